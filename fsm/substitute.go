package fsm

import (
	"bytes"

	"github.com/toolsieve/toolsieve/lexer"
)

// A model may write one marker of a dialect where another of the same
// dialect belongs. What follows the marker shows which one was meant, and
// the call then carries marker_substituted:
//
//   - a call's or wrapper's closer inside a value, followed by the opener of
//     the next argument, was the value's closer
//     (`<parameter=a>\n1\n</function>\n<parameter=b>`, glm's
//     `<arg_key>k</tool_call><arg_value>`): the call goes on;
//   - a wrapper opener inside a key/value call where an argument's opener
//     belongs (glm's `<tool_call>` for `<arg_key>`: `<tool_call>path</arg_key>`),
//     followed by the argument's closer, was that argument's opener. The
//     table names such a marker (Spec.argSwap). Until the next token
//     decides, the text after it is held as the call's loose text; any
//     other token shows that it opened the next unit after all, and the
//     call ends before it as it did before (missing_closer).

// swap is a marker of Spec.argSwap met where an argument's opener belongs,
// waiting for the next token.
type swap struct {
	at, n    int // its bytes in m.buf
	cands    dset
	variants dset
	info     markerInfo
}

// substitutedCloser settles a call's or wrapper's closer met inside a value
// (pending p) when the next token t opens another argument: the closer was
// the value's. It reports whether it did.
func (m *Machine) substitutedCloser(p pending, t *lexer.Token) bool {
	if m.lv != lvValue || p.fromJSON || p.role != rCallClose && p.role != rBlockClose {
		return false
	}
	switch m.roleIn(t, lvCall) {
	case rParamOpen, rKeyOpen, rValOpen:
		if m.call.spec.name == nameTag && t.Has(lexer.Closing) {
			return false
		}
		m.closeValue(p.start, RMarkerSubstituted)
		return true
	}
	return false
}

// swapOpen holds opener t (its bytes end m.buf at tokStart) when it is the
// marker the call's dialect writes in place of an argument's opener. It
// reports whether it did.
func (m *Machine) swapOpen(t *lexer.Token, tokStart int) bool {
	s := m.call.spec
	if s.argSwap == lexer.Unknown || t.Marker != s.argSwap || t.Kind != lexer.Tag || t.Has(lexer.Closing) ||
		m.call.name.b == m.call.name.a {
		return false
	}
	cands, variants, _ := m.openersOf(t)
	m.call.swap = &swap{at: tokStart, n: len(t.Raw), cands: cands, variants: variants, info: infoOf(t)}
	m.call.loose = -1
	return true
}

// settleSwap decides a held marker at the next token t (its bytes end m.buf
// at tokStart): the closer of the argument it stands for makes it that
// argument's opener; anything else makes it the next unit's opener.
func (m *Machine) settleSwap(t *lexer.Token, tokStart int) {
	sw := *m.call.swap
	m.call.swap = nil
	c := &m.call
	switch r := m.roleIn(t, lvCall); {
	case r == rKeyClose && !c.kv.has && isIdent(m.looseText(tokStart)): // <tool_call>K</arg_key>
		c.repairs |= RMarkerSubstituted
		c.kv = keyVal{key: m.keepName(bytes.TrimSpace(m.looseText(tokStart))), has: true}
		c.loose = -1
	case r == rValClose && c.kv.has: // <tool_call>V</arg_value>
		c.repairs |= RMarkerSubstituted
		m.addParam(c.kv.key, m.looseSpan(tokStart), HintNone)
		c.kv.has = false
		c.loose = -1
	default:
		m.splitAtSwap(sw, t, tokStart)
	}
}

// splitAtSwap ends the call before a held marker that opened the next unit
// after all, opens that unit, and handles the text after the marker and
// then token t (nil at the end of input) afresh in it.
func (m *Machine) splitAtSwap(sw swap, t *lexer.Token, tokStart int) {
	rest := bytes.Clone(m.buf[sw.at+sw.n : tokStart]) // not m.scratch: handling rest may use it
	m.buf = m.buf[:tokStart]
	m.call.loose = -1
	m.completeCall(sw.at, RMissingCloser)
	if m.lv != lvBlock {
		if m.lv == lvStopped && t != nil { // a repeated call: the runaway took the markup
			m.sink.Discard(t.Raw, DiscardAfterRunaway)
		}
		return
	}
	m.buf = m.buf[:sw.n] // the marker alone: it opens the unit
	m.names = m.names[:0]
	m.blk = block{cands: sw.cands, variants: sw.variants, spec: sw.cands.only(), open: sw.info}
	m.seg = segment{}
	m.textOff = m.bufOff + int64(sw.n)
	m.text(rest)
	if t != nil {
		m.marker(t)
	}
}

// swapAtEOF settles a held marker at the end of input: it opened a unit.
func (m *Machine) swapAtEOF() {
	if m.lv == lvCall && m.call.swap != nil {
		sw := *m.call.swap
		m.call.swap = nil
		m.splitAtSwap(sw, nil, len(m.buf))
	}
}
