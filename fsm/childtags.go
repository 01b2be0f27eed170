package fsm

import (
	"bytes"
	"encoding/json"

	"github.com/toolsieve/toolsieve/lexer"
)

// Dialects with Spec.childParams (minimax_m3) name each argument of their
// call element by a child element of its own, `<invoke name="N"><city>SF
// </city></invoke>`, and write a nested object as elements inside the
// value: `<actions><cmd>ls</cmd><cwd>/</cwd></actions>` is
// {"actions": {"cmd": "ls", "cwd": "/"}}. MiniMax-M3 also writes its
// sentinel token `]<]minimax[>[` before every tag: the lexer reads it as
// part of the tag (lexer.Sentinel), the ']' before it is markup.

// sentinelDialects are the dialects whose tags follow a sentinel token.
var sentinelDialects = dialectsWhere(func(s *Spec) bool { return s.sentinel })

// childRole is what tag t means inside a call whose arguments are child
// elements: any element opens an argument; the closer of the argument's
// own element closes it; other tags in a value are its content.
func (m *Machine) childRole(t *lexer.Token, lv level) role {
	closing := t.Has(lexer.Closing)
	switch {
	case t.Kind != lexer.Tag || t.Has(lexer.SelfClosing):
	case closing && lv == lvValue && bytes.Equal(t.Name, m.nameOf(m.val.tagName)):
		return rParamClose
	case !closing && lv == lvCall:
		return rParamOpen
	}
	return rNone
}

// maxChildDepth bounds the nesting of elements read as an object.
const maxChildDepth = 16

// childObject rewrites argument p as a JSON object when its value is made
// of child elements only; the object is kept in m.names.
func (m *Machine) childObject(p *pspan) {
	v := m.buf[p.val.a:p.val.b]
	i := skipSentinel(v, skipSpace(v, 0))
	if i >= len(v) || v[i] != '<' || i+1 >= len(v) || !isWordByte(v[i+1]) {
		return
	}
	var out []byte
	out, end, ok := appendChildren(nil, v, i, 0)
	if !ok || skipSpace(v, end) != len(v) {
		return
	}
	a := len(m.names)
	m.names = append(m.names, out...)
	p.val, p.inNames, p.hint = span{a, len(m.names)}, true, HintJSON
}

// appendChildren appends to dst the object made of the elements at b[i:]
// up to the first closer or the end, and returns where they end.
func appendChildren(dst, b []byte, i, depth int) ([]byte, int, bool) {
	if depth >= maxChildDepth {
		return dst, i, false
	}
	dst = append(dst, '{')
	first := true
	for {
		j := skipSentinel(b, skipSpace(b, i))
		if j >= len(b) || b[j] != '<' || j+1 < len(b) && b[j+1] == '/' {
			return append(dst, '}'), i, !first
		}
		k := j + 1
		for k < len(b) && (isWordByte(b[k]) || '0' <= b[k] && b[k] <= '9' || b[k] == '-' || b[k] == '.') {
			k++
		}
		if k == j+1 || k >= len(b) || b[k] != '>' {
			return dst, i, false // an element with attributes, or no element
		}
		name := b[j+1 : k]
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(appendJSONString(dst, name), ':')
		var ok bool
		if dst, i, ok = appendChild(dst, b, k+1, name, depth); !ok {
			return dst, i, false
		}
	}
}

// appendChild appends the value of element name whose content starts at
// b[i:], and returns where its closer ends.
func appendChild(dst, b []byte, i int, name []byte, depth int) ([]byte, int, bool) {
	closer := append(append([]byte("</"), name...), '>')
	j := skipSentinel(b, skipSpace(b, i))
	if j+1 < len(b) && b[j] == '<' && isWordByte(b[j+1]) { // nested elements
		var ok bool
		if dst, j, ok = appendChildren(dst, b, i, depth+1); !ok {
			return dst, i, false
		}
		k := skipSentinel(b, skipSpace(b, j))
		if !bytes.HasPrefix(b[k:], closer) {
			return dst, i, false
		}
		return dst, k + len(closer), true
	}
	k := bytes.Index(b[i:], closer)
	if k < 0 {
		return dst, i, false
	}
	text := trimSentinel(b[i : i+k])
	if json.Valid(text) {
		dst = append(dst, bytes.TrimSpace(text)...)
	} else {
		dst = appendJSONString(dst, text)
	}
	return dst, i + k + len(closer), true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipSentinel skips a sentinel token `]<]NAME[>[` (its ']' optional) at
// b[i:].
func skipSentinel(b []byte, i int) int {
	j := i
	if j < len(b) && b[j] == ']' {
		j++
	}
	if j+2 > len(b) || b[j] != '<' || b[j+1] != ']' {
		return i
	}
	k := j + 2
	for k < len(b) && isWordByte(b[k]) {
		k++
	}
	if k == j+2 || !bytes.HasPrefix(b[k:], []byte("[>[")) {
		return i
	}
	return k + 3
}

// trimSentinel drops a sentinel token, and its ']', that ends b.
func trimSentinel(b []byte) []byte {
	if !bytes.HasSuffix(b, []byte("[>[")) {
		return b
	}
	i := bytes.LastIndex(b, []byte("<]"))
	if i < 0 || skipSentinel(b, i) != len(b) {
		return b
	}
	if i > 0 && b[i-1] == ']' {
		i--
	}
	return b[:i]
}

// holdBracket holds a ']' that ends text b while a sentinel dialect is on:
// it may begin the sentinel before a tag, which is markup. It returns
// where what it holds starts (len(b): nothing).
func (m *Machine) holdBracket(b []byte) int {
	n := len(b)
	if !m.ix.sentinel || b[n-1] != ']' {
		return n
	}
	m.held = append(m.held[:0], ']')
	m.heldOff = m.textOff + int64(n-1)
	m.wl = wlBracket
	return n - 1
}

// foldBracket makes a held ']' the start of the unit that the sentinel
// tag after it (already in m.buf) opens.
func (m *Machine) foldBracket(held bool) {
	if !held {
		return
	}
	n := len(m.held)
	m.buf = append(m.buf, m.held...) // room for it in front
	copy(m.buf[n:], m.buf[:len(m.buf)-n])
	copy(m.buf, m.held)
	m.bufOff = m.heldOff
	m.wl = wlNone
}
