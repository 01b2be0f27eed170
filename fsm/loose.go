package fsm

import (
	"bytes"
	"strconv"

	"github.com/toolsieve/toolsieve/fsm/loosejson"
	"github.com/toolsieve/toolsieve/lexer"
)

// Loose-object dialects (gemma4, functiongemma) write a call as
// `call:NAME{key:<|"|>value<|"|>,n:5}` between their call tokens: a loose
// header names the call, then an object with bare keys and strings between
// a delimiter token. A loosejson.Scanner turns the object into JSON; the
// call is reported the moment its closing '}' arrives.

const maxLooseHeader = 128

// looseHeaderHook: text before the object is the call's header.
var looseHeaderHook = header{loose: func(c *call) bool { return !c.hdr.named }}

// looseHeader reads the header `call:NAME` once the object's '{' is next:
// it reports false when the text is not a call header. Models also write
// `call NAME` and `:NAME`, or a declared tool's name alone
// (`<start_function_call>NAME{}`); inside the call's tokens the intent is
// plain, and the call carries marker_variant.
func (m *Machine) looseHeader() bool {
	h := bytes.TrimSpace(m.looseText(len(m.buf)))
	name, canonical := bytes.CutPrefix(h, []byte("call:"))
	if !canonical {
		name = bytes.TrimLeft(bytes.TrimPrefix(h, []byte("call")), ": ")
		if len(name) == len(h) && !m.declared(name) {
			return false // neither `call` nor ':' before the name, nor a declared tool's name
		}
		m.call.repairs |= RMarkerVariant
	}
	if len(name) == 0 || !isIdent(name) {
		return false
	}
	m.setName(name)
	m.call.loose = -1
	return true
}

// textLooseHeader gathers a loose dialect's header up to the object's '{'.
func (m *Machine) textLooseHeader(b []byte) int {
	j := bytes.IndexByte(b, '{')
	if j < 0 {
		j = len(b)
	}
	if have := len(m.buf) - m.call.start; have+j > maxLooseHeader {
		// Too long for a header: not a call. Only the byte that made it
		// too long is taken, so that the call cap is met (or not) at the
		// same byte whatever the chunking.
		k := max(0, maxLooseHeader+1-have) // tokens in the header may have passed the limit already
		if m.add(b[:k]) {
			m.toText()
		}
		return k
	}
	if !m.add(b[:j]) || j == len(b) {
		return j
	}
	if !m.looseHeader() {
		m.toText()
		return j
	}
	if m.lj == nil {
		m.lj = new(loosejson.Scanner)
	}
	m.lj.Reset(m.call.spec.delim)
	m.lv = lvLoose
	return j
}

// textInLoose scans more of the object.
func (m *Machine) textInLoose(b []byte) int {
	if m.call.done { // a loose line's object was read
		return m.textLooseLineEnd(b)
	}
	n, done := m.lj.Write(b)
	if !m.add(b[:n]) {
		return n
	}
	m.looseStatus(done)
	return n
}

// looseStatus takes the arguments when the object is done (the call's
// closer comes next), and gives the unit back as text when it is not an
// object after all: a call whose arguments cannot be read is never
// reported with none.
func (m *Machine) looseStatus(done bool) {
	switch {
	case done:
		m.looseArgs()
		if m.call.line {
			m.lv = lvLoose // its line's end decides (looseline.go)
		}
	case m.lj.Failed():
		m.sink.Error("arguments of tool call "+strconv.Quote(string(m.nameOf(m.call.name)))+" could not be read: "+m.lj.Err().Error()+"; kept as text", m.bufOff)
		m.toText()
	}
}

// looseArgs ends the object with the scanner's output as its arguments
// (JSON), taken without a copy: the next object is written in argsBuf's
// room.
func (m *Machine) looseArgs() {
	m.call.args = m.lj.Take(m.argsBuf)
	m.argsBuf = m.call.args
	if m.lj.Mismatched() { // a string opened with a quote, closed with the delimiter
		m.call.repairs |= RJSONRepaired
	}
	m.call.done = true
	m.lv = lvCall
}

// looseEnd ends an object cut off by the call's closer or the end of
// input; the call carries rep.
func (m *Machine) looseEnd(rep Repairs) {
	switch {
	case m.lv != lvLoose:
		return
	case m.call.line && m.call.done: // a loose line ends with the input
		m.looseLineDone(len(m.buf))
		return
	case m.call.line: // a loose line cut in its object: not confirmed
		m.toText()
		return
	}
	if out, _ := m.lj.Finish(); out == nil {
		m.toText()
		return
	}
	m.looseArgs()
	m.call.repairs |= rep | RTruncatedJSON
}

// tagInLoose handles a token inside the object (its bytes end m.buf): the
// call's closer (special tokens are never string content), a delimiter
// token, or string content.
func (m *Machine) tagInLoose(t *lexer.Token, tokStart int) {
	if m.call.done { // after a loose line's object (looseline.go)
		if !m.looseLineToken(t, tokStart) {
			m.tagInText(t)
		}
		return
	}
	if r := m.roleIn(t, lvCall); r == rCallClose || r == rBlockClose {
		m.looseEnd(0)
		if m.lv == lvCall {
			m.completeCall(len(m.buf), RMissingCloser)
		}
		return
	}
	n, done := m.lj.Write(t.Raw)
	if n < len(t.Raw) && !m.lj.Failed() {
		// The object ended inside the token: its rest is loose text after it.
		m.looseStatus(done)
		m.seg = segment{active: true, start: tokStart + n}
		m.closeSegment(len(m.buf))
		return
	}
	m.looseStatus(done)
}
