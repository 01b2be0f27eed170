package fsm

import (
	"bytes"

	"github.com/toolsieve/toolsieve/fsm/loosejson"
	"github.com/toolsieve/toolsieve/lexer"
)

// Gemma 4 calls reach the text without their <|tool_call> tokens when a
// server strips special tokens or reads the call with another dialect's
// parser; the call is then a line of its own:
//
//	call:write_file{content:hello,path:a.txt}
//
// Such a line is a call only where the rest confirms it: the dialect's
// header (Spec.lineHead, `call:`) starts the line, a declared tool's name
// follows it, then the loose object, whose keys fit the tool's schema,
// and then the line ends (or the call's closer token follows, the opener
// alone lost). The line is probed like a line call (linecall.go): not in
// a code fence or span (openerAt), not in a sentence (the header must
// start the line), not after a line that introduces an example
// ("Example:"), not with an undeclared name; text after the object on its
// line gives the whole line back to the text. The call carries
// missing_opener.

// lineHeads are the dialects whose calls may be such lines.
var lineHeads = dialectsWhere(func(s *Spec) bool { return s.lineHead != "" })

// looseLineSpec is the dialect on whose calls may be such lines, or nil.
func (m *Machine) looseLineSpec() *Spec {
	if d := lineHeads & m.ix.on; d != 0 {
		return d.first()
	}
	return nil
}

// mayLooseLine reports whether the line that starts b may be a loose
// call's line, as far as b shows: the header, a name, then '{', the name
// a declared tool's.
func (m *Machine) mayLooseLine(b []byte) bool {
	s := m.looseLineSpec()
	if s == nil || m.opt.Declared == nil {
		return false
	}
	h := s.lineHead
	if len(b) < len(h) {
		return h[:len(b)] == string(b)
	}
	if string(b[:len(h)]) != h {
		return false
	}
	j := len(h)
	for j < len(b) && (isIdentByte(b[j]) || b[j] == '.' || b[j] == '-') {
		j++
	}
	switch {
	case j-len(h) > maxProbeVal:
		return false
	case j == len(b):
		return true // the name may go on
	}
	return b[j] == '{' && m.opt.Declared(b[len(h):j])
}

// headWord reports whether the callee a line call's probe read, with the
// ':' after it, is the header of a loose line (`call:`).
func (p *probe) headWord() bool {
	if p.head == nil || !p.lineCall || p.expr.words > 0 || p.expr.guessed() {
		return false // not the line's first word (`Tool call: f(..)`, callexpr.go)
	}
	h := p.head.lineHead
	return len(h) == p.nval+1 && h[len(h)-1] == ':' && string(p.val[:p.nval]) == h[:p.nval]
}

// looseName reads the name after a loose line's header, up to its '{'.
func (p *probe) looseName(c byte) probeVerdict {
	switch {
	case isIdentByte(c) || c == '.' || c == '-':
		if p.nval == maxProbeVal {
			return pvNot
		}
		p.val[p.nval] = c
		p.nval++
		return pvMore
	case c == '{' && p.nval > 0:
		p.loose = true
		return pvName
	}
	return pvNot
}

// openLooseLine opens the call of a loose line whose header and name the
// probe read (its bytes are m.buf, its '{' last). It reports false, the
// line then being text, after a line that introduces an example.
func (m *Machine) openLooseLine() bool {
	p := m.probe
	if m.illustrated() {
		return false
	}
	s := p.head
	m.blk = block{cands: specSet(s), spec: s, implicit: true}
	m.call = call{loose: -1, repairs: RMissingOpener, line: true}
	m.setDialect(s)
	m.names = m.names[:0]
	m.call.name = m.keepName(p.val[:p.nval])
	m.call.hdr.named = true
	if m.lj == nil {
		m.lj = new(loosejson.Scanner)
	}
	m.lj.Reset(s.delim)
	m.lv = lvLoose
	_, done := m.lj.Write(m.buf[len(m.buf)-1:])
	m.looseStatus(done)
	return true
}

// textLooseLineEnd takes text after a loose line's object (see
// callLineRest).
func (m *Machine) textLooseLineEnd(b []byte) int {
	return m.callLineRest(b, nil, m.looseLineDone)
}

// looseLineToken handles token t after a loose line's object (its bytes
// end m.buf at tokStart): the call's closer completes it; other markup on
// its line means it was none, and t is then handled in the text.
func (m *Machine) looseLineToken(t *lexer.Token, tokStart int) bool {
	if m.roleIn(t, lvCall) == rCallClose {
		m.note(t)
		m.looseLineDone(len(m.buf))
		return true
	}
	m.buf = m.buf[:tokStart]
	m.toText()
	return false
}

// looseLineDone reports the loose line's call, its markup ending at
// buf[:end], when its arguments fit the tool; else the line is text.
func (m *Machine) looseLineDone(end int) {
	name := m.nameOf(m.call.name)
	if m.opt.FitsTool != nil && !m.objectFits(name, m.call.args) && !bytes.Equal(bytes.TrimSpace(m.call.args), []byte("{}")) {
		m.toText()
		return
	}
	m.lv = lvCall
	m.completeCall(end, 0)
	m.atLine = true
}
