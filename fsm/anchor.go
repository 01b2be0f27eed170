package fsm

import (
	"bytes"

	"github.com/toolsieve/toolsieve/lexer"
)

// Recovery anchored on the declared tools: what the parser may conclude
// from a declared tool's name and its schema when the markup around them
// is not a dialect's.

// takes reports whether the declared tool named tool takes a parameter
// named param: it declares it, or it declares none (a tool declared
// without properties takes any names, as JSON Schema reads it).
func (m *Machine) takes(tool, param []byte) bool {
	if m.opt.HasParam != nil && m.opt.HasParam(tool, param) {
		return true
	}
	return m.opt.Open != nil && m.opt.Open(tool)
}

// openToolShown reports whether t, the tag of a declared tool, only shows
// the tool rather than calls it, for a tool that takes any argument names
// (its children then prove nothing, so where the tag stands must): the tag
// does not start a line (it is part of a sentence), or the text introduced
// the markup as an illustration (its last line before the tag says
// "example:", "usage:", "format:" ...; see illustrates), here or earlier in
// the answer: a prompt or a manual echoed back lists one example after
// another. Tools that declare their parameters are judged by them instead.
func (m *Machine) openToolShown(t *lexer.Token) bool {
	if m.opt.Open == nil || !m.opt.Open(t.Name) {
		return false
	}
	if !t.Has(lexer.LineStart) {
		return true
	}
	if !m.shown && m.tail != nil && illustrates(m.tail.lastLine()) {
		m.shown = true
	}
	return m.shown
}

// illustrationWords introduce an example, not a call, when the line that
// holds one ends with ':'.
var illustrationWords = []string{"example", "usage", "format", "syntax", "e.g."}

// illustrates reports whether line (the last line of text) introduces an
// illustration: it ends with ':' and holds one of illustrationWords.
func illustrates(line []byte) bool {
	line = bytes.TrimRight(line, " \t")
	if len(line) == 0 || line[len(line)-1] != ':' {
		return false
	}
	for _, w := range illustrationWords {
		if containsFold(line, w) {
			return true
		}
	}
	return false
}

// containsFold reports whether b holds the lower-case ASCII word w in any
// case.
func containsFold(b []byte, w string) bool {
	for i := 0; i+len(w) <= len(b); i++ {
		if bytes.EqualFold(b[i:i+len(w)], []byte(w)) {
			return true
		}
	}
	return false
}

// lastLine returns the last line of the held text that holds more than
// whitespace (without its line break).
func (t *textTail) lastLine() []byte {
	b := bytes.TrimRight(t.buf[max(t.start, t.end-maxTail):t.end], " \t\r\n")
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	return b
}
