package fsm

import (
	"bytes"

	"github.com/toolsieve/toolsieve/lexer"
)

// textOpens counts, per marker, the openers of known elements that went out
// as text: a document's <parameter> or <param>, an <invoke src=..> that
// names no tool. A closer of such an element closes that text, not a call,
// so it is text too (a DocBook <parameter>x</parameter>, an SCXML
// </invoke>), where a closer with nothing open is otherwise dropped as
// debris of a call. The counts saturate; one byte per marker, no scan.
type textOpens struct {
	n [lexer.NumMarkers]uint8
	// The opener of the markup unit in progress and its input offset: if
	// the unit is given back as text from its start, its opener was text.
	unit    lexer.Marker
	unitOff int64
	// inUnit: per marker, openers less closers met inside the unit after
	// its opener; when the unit is given back, those openers were text too.
	inUnit [lexer.NumMarkers]int8
	dirty  bool // inUnit holds a count
	// examples: <example> elements open in the text (foreign.go).
	examples uint8
}

// texts returns the machine's textOpens, made when first needed: an idle
// parser holds none.
func (m *Machine) texts() *textOpens {
	if m.txtOpen == nil {
		m.txtOpen = new(textOpens)
	}
	return m.txtOpen
}

// openerMarker returns the marker of t if it is an element's opener, else Unknown.
func openerMarker(t *lexer.Token) lexer.Marker {
	if t.Kind != lexer.Tag || t.Flags&(lexer.Closing|lexer.SelfClosing) != 0 {
		return lexer.Unknown
	}
	return t.Marker
}

// count notes an opener of mk given out as text.
func (o *textOpens) count(mk lexer.Marker) {
	if mk != lexer.Unknown && o.n[mk] < 255 {
		o.n[mk]++
	}
}

// opened notes opener t given out as text.
func (o *textOpens) opened(t *lexer.Token) { o.count(openerMarker(t)) }

// begin notes t, which opens a unit of markup at offset off.
func (o *textOpens) begin(t *lexer.Token) {
	o.unit, o.unitOff = openerMarker(t), t.Offset
	if o.dirty {
		o.inUnit, o.dirty = [lexer.NumMarkers]int8{}, false
	}
}

// inside notes tag t met inside the unit in progress.
func (o *textOpens) inside(t *lexer.Token) {
	if t.Kind != lexer.Tag || t.Marker == lexer.Unknown || t.Has(lexer.SelfClosing) {
		return
	}
	c := &o.inUnit[t.Marker]
	switch {
	case t.Has(lexer.Closing) && *c > -100:
		*c--
	case !t.Has(lexer.Closing) && *c < 100:
		*c++
	}
	o.dirty = true
}

// givenBack notes that text from offset off on is given back: when it is
// the start of the unit, the unit's opener was text.
func (o *textOpens) givenBack(off int64) {
	if off != o.unitOff || o.unit == lexer.Unknown {
		return
	}
	o.count(o.unit)
	o.unit = lexer.Unknown
	if !o.dirty {
		return
	}
	for mk, c := range o.inUnit {
		for ; c > 0; c-- {
			o.count(lexer.Marker(mk))
		}
	}
	o.inUnit, o.dirty = [lexer.NumMarkers]int8{}, false
}

// closes reports whether closer t closes an opener that went out as text,
// and forgets that opener.
func (o *textOpens) closes(t *lexer.Token) bool {
	if t.Kind != lexer.Tag || t.Flags&lexer.Closing == 0 || o.n[t.Marker] == 0 || t.Marker == lexer.Unknown {
		return false
	}
	o.n[t.Marker]--
	return true
}

// blankBlock reports whether b, what followed a wrapper's opener up to its
// end, holds nothing but whitespace and at most the wrapper's closer: only
// such an empty wrapper is dropped as debris (`<tool_call>\n</tool_call>`).
// A wrapper that held other text or elements and no call (a listing of
// tool definitions in <tools>) is given back as text.
func blankBlock(b []byte) bool {
	i, j := 0, len(b)
	for i < j && isSpace(b[i]) {
		i++
	}
	for j > i && isSpace(b[j-1]) {
		j--
	}
	b = b[i:j]
	return len(b) <= 64 && bytes.Count(b, []byte("<")) <= 1 && bytes.IndexByte(b, '\n') < 0
}
