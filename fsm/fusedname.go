package fsm

import (
	"bytes"

	"github.com/toolsieve/toolsieve/lexer"
)

// A key/value dialect named by loose text (glm) may lose the opener of its
// first key: the name and the key then run together up to the key's
// closer, `<tool_call>NAME KEY</arg_key>` or, with nothing between them,
// `<tool_call>NAMEKEY</arg_key>`. When the segment before that closer is
// a declared tool's name, then a key (an identifier), the call is NAME's
// and KEY its first key (missing_arg_key); where the two were fused, the
// name is the longest declared name the segment starts with, and the call
// also carries fused_name (a guess from the declared names). Only a key
// closer right after the segment opens such a call, on probation: the
// value's opener must come next (whitespace between), else the opener,
// the words and the closer were prose and go back to the text as they
// were. Its start is reported once the value's opener confirmed it.

// maxFusedName bounds the segment looked at: a name and a key.
const maxFusedName = 128

// nameKeySegment opens the call of a name fused with its first key, at the
// key closer t that follows the segment in progress. It reports whether it
// did; the segment is then the call's name and loose text.
func (m *Machine) nameKeySegment(t *lexer.Token) bool {
	if m.lv != lvBlock || m.blk.calls > 0 || m.opt.Declared == nil || t.Kind != lexer.Tag || !t.Has(lexer.Closing) {
		return false
	}
	spec := looseKV(m.blk.cands)
	if spec == nil || t.Marker != spec.key || len(m.buf)-m.seg.start > maxFusedName {
		return false
	}
	seg := m.buf[m.seg.start:]
	lead := firstNonSpace(seg)
	if lead < 0 {
		return false
	}
	word := bytes.TrimRight(seg[lead:], " \t\r\n")
	nameEnd, keyAt, fused := splitNameKey(word, m.declared)
	if nameEnd < 0 {
		return false
	}
	start := m.seg.start + lead
	m.seg.active = false
	m.blk.cands, m.blk.spec = specSet(spec), spec
	if !m.openLooseCall(spec, m.buf[start:start+nameEnd]) {
		return true // a runaway
	}
	m.call.loose = start + keyAt
	m.call.slot = slotFused
	if fused {
		m.call.repairs |= RFusedName
	}
	return true
}

// splitNameKey splits b, a name and a key, where declared says a name is a
// tool's: `NAME KEY` (spaces between) or `NAMEKEY` (the longest declared
// name b starts with, b itself undeclared). It returns the name's end and
// the key's start, or -1.
func splitNameKey(b []byte, declared func([]byte) bool) (nameEnd, keyAt int, fused bool) {
	if i := bytes.IndexAny(b, " \t"); i >= 0 {
		name, key := b[:i], bytes.TrimLeft(b[i:], " \t")
		if isIdent(name) && isKeyWord(key) && declared(name) {
			return i, len(b) - len(key), false
		}
		return -1, -1, false
	}
	if !isIdent(b) || declared(b) {
		return -1, -1, false
	}
	for n := len(b) - 1; n > 0; n-- {
		if declared(b[:n]) && isKeyWord(b[n:]) {
			return n, n, true
		}
	}
	return -1, -1, false
}

// isKeyWord reports whether b is one argument name: letters, digits, '_'
// and '-', starting with no digit.
func isKeyWord(b []byte) bool {
	if len(b) == 0 || '0' <= b[0] && b[0] <= '9' {
		return false
	}
	for _, c := range b {
		if !isIdentByte(c) && c != '-' {
			return false
		}
	}
	return true
}

// settleFused decides a call on probation at the next token t: the value's
// opener confirms it, anything else makes its markup text.
func (m *Machine) settleFused(t *lexer.Token) {
	if t.Kind == lexer.Tag && t.Marker == m.call.spec.value && !t.Has(lexer.Closing) {
		m.call.slot = slotOwn
		m.callStart(m.nameOf(m.call.name))
		return
	}
	m.toText()
}

// fusedText takes text after the key closer of a call on probation:
// whitespace waits for the value's opener, other text makes the call's
// markup text (b from that byte on is then read at the text level).
func (m *Machine) fusedText(b []byte) int {
	i := firstNonSpace(b)
	if i < 0 {
		m.add(b)
		return len(b)
	}
	if m.add(b[:i]) {
		m.toText()
	}
	return i
}

// fusedAtEOF makes the markup of a call still on probation text.
func (m *Machine) fusedAtEOF() {
	if m.lv == lvCall && m.call.slot == slotFused {
		m.toText()
	}
}
