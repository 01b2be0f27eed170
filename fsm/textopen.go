package fsm

import "github.com/toolsieve/toolsieve/lexer"

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
func (o *textOpens) begin(t *lexer.Token) { o.unit, o.unitOff = openerMarker(t), t.Offset }

// givenBack notes that text from offset off on is given back: when it is
// the start of the unit, the unit's opener was text.
func (o *textOpens) givenBack(off int64) {
	if o.unit != lexer.Unknown && off == o.unitOff {
		o.count(o.unit)
		o.unit = lexer.Unknown
	}
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
