package fsm

import (
	"bytes"
	"encoding/json"
)

// Gemini CLI's models write a call they meant to make as a label line
// that holds its one argument in words:
//
//	[tool_call: read_file for absolute_path 'requirements.txt']
//
// Such a line is a label line (anchor.go: a '[' at a line start, outside
// code, with tools declared) that ends at its ']' with: a label of words
// and ':', a declared tool's name, `for`, a key, and a quoted value, with
// nothing else before the ']'. The call takes {key: value}, must fit the
// tool's schema, and carries inferred_call. A name that is not declared,
// a key the tool does not take, more words, or such a line in a code
// fence (no label line is held there) or after a line that introduces an
// illustration ("Example:") stays text.

// maxForLabel is the most bytes of a label before its ':'.
const maxForLabel = 32

// forLabelArgs returns the declared tool and the arguments object of
// held, a label line from its '[' to its ']', when it is such a call.
func forLabelArgs(held []byte, declared func(w []byte) bool) ([]byte, []byte, bool) {
	b := held[1 : len(held)-1]
	c := bytes.IndexByte(b, ':')
	if c <= 0 || c > maxForLabel || !labelWords(b[:c]) {
		return nil, nil, false
	}
	name, rest := identAt(bytes.TrimLeft(b[c+1:], " \t"))
	if name == nil || !declared(name) {
		return nil, nil, false
	}
	rest, ok := bytes.CutPrefix(bytes.TrimLeft(rest, " \t"), []byte("for "))
	if !ok {
		return nil, nil, false
	}
	key, rest := identAt(bytes.TrimLeft(rest, " \t"))
	rest = bytes.TrimLeft(rest, " \t=:")
	if key == nil || len(rest) == 0 || rest[0] != '\'' && rest[0] != '"' {
		return nil, nil, false
	}
	v, n, more := attrValue(rest) // a quoted value, as a tag's attribute (attrbody.go)
	if v == nil || more || len(bytes.TrimSpace(rest[n:])) > 0 {
		return nil, nil, false
	}
	kq, _ := json.Marshal(string(key))
	return name, append(append(append(append([]byte{'{'}, kq...), ':'), v...), '}'), true
}

// labelWords reports whether b is a label: words of letters, '_' and
// spaces.
func labelWords(b []byte) bool {
	for _, c := range b {
		if !isWordByte(c) && c != ' ' {
			return false
		}
	}
	return len(bytes.TrimSpace(b)) > 0
}

// identAt splits an identifier off the start of b (nil if none).
func identAt(b []byte) ([]byte, []byte) {
	i := 0
	for i < len(b) && (isIdentByte(b[i]) || i > 0 && (b[i] == '-' || b[i] == '.')) {
		i++
	}
	if i == 0 || !isWordByte(b[0]) {
		return nil, b
	}
	return b[:i], b[i:]
}

// forLabelCall emits the call of the label line held, whose ']' is the
// last byte, when it is one (see forLabelArgs). It reports whether it did.
func (m *Machine) forLabelCall(held []byte) bool {
	s, ok := lookup(jsonDialect)
	if !ok || m.ix.on&specSet(s) == 0 {
		return false
	}
	name, args, ok := forLabelArgs(held, m.declared)
	if !ok || !m.objectFits(name, args) || m.illustrated() {
		return false
	}
	off := m.lbl.off
	m.lbl.state = lbNone
	m.startProbe(off, true)
	m.buf = append(m.buf, held...)
	return m.emitInferred(name, args)
}

// emitInferred emits the call of the declared tool name with arguments
// args, an object that fits it, whose markup is all of m.buf: a call the
// text implies without a dialect's markup (inferred_call), reported as
// the json dialect's. It reports false when that dialect is off.
func (m *Machine) emitInferred(name, args []byte) bool {
	s, ok := lookup(jsonDialect)
	if !ok || m.ix.on&specSet(s) == 0 {
		return false
	}
	m.blk = block{cands: specSet(s), spec: s, implicit: true}
	m.call = call{loose: -1, name: m.keepName(name), done: true}
	m.call.args = append(m.argsBuf[:0], args...)
	m.argsBuf = m.call.args
	m.setDialect(s)
	m.lv = lvCall
	m.openers = 0
	m.completeCall(len(m.buf), RInferredCall)
	return true
}

// forLabelMay reports whether a label line's rest up to its line break,
// line, after held bytes, may be such a call: a ']' ends it within
// maxAnchorLine.
func forLabelMay(line []byte, held int) bool {
	i := bytes.LastIndexByte(line, ']')
	return i >= 0 && held+i < maxAnchorLine
}
