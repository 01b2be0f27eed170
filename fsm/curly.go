package fsm

import (
	"bytes"
	"encoding/json"

	"github.com/toolsieve/toolsieve/lexer"
)

// Arguments in typographic quotes. An editor, a chat UI or the model
// itself turns JSON's quotes into curly ones: `[Calling tool: terminal
// with arguments: {“command”: “ls ‘a’”}]`. Where a label anchors the
// object on a declared tool (anchor.go: the probe holds the label and the
// '{'), a “ where the first key's quote belonged makes the object one in
// typographic quotes: the label and the object are held (at most
// maxCurly bytes; a token inside is held too), strings running from “ to
// ”, with straight quotes and other characters inside them literal, up to
// the '}' that closes the object. It is then read as JSON with “ and ” as
// its string quotes; if that gives an object (not a schema) that fits the
// anchored tool, the held bytes are the call (json_repaired,
// inferred_call). Anything else (the cap, the end of input, an object that
// is no JSON so read, keys that do not fit) gives the held bytes back to
// the text. Without an anchoring label a curly object is never read.

const maxCurly = 4096

var (
	curlyOpen  = []byte("“")
	curlyClose = []byte("”")
)

// curly follows a held object in typographic quotes.
type curly struct {
	spec  *Spec
	obj   int  // offset of the object's '{' in the held bytes
	depth int  // open objects and arrays
	str   bool // inside a “ .. ” string
	plain bool // inside a "..." string (outside typographic ones)
	esc   bool // after a backslash in a "..." string
}

// curlyFrom turns the probe of an anchored object, giving up at byte c
// after the held bytes and pre (b's bytes before c), into a held curly
// object when c begins a “. It reports whether it did; c then goes on at
// the text level, to the held label.
func (m *Machine) curlyFrom(pre []byte, c byte) bool {
	p := m.probe
	if p.anchor.b == 0 || p.state != pKeyQuote || c != curlyOpen[0] || m.code != codeNone || m.tail == nil {
		return false
	}
	s := choose(p.cands, 0, false, shProbe)
	if s == nil {
		return false
	}
	if m.lbl == nil {
		m.lbl = new(label)
	}
	held := append(append(m.lbl.held[:0], m.buf...), pre...)
	*m.lbl = label{state: lbCurly, held: held, off: m.bufOff, name: p.anchor}
	m.lbl.cu = curly{spec: s, obj: p.pre, depth: 1}
	m.buf = m.buf[:0]
	m.lv = lvText
	return true
}

// curlyText steps the held curly object by b[i]. It reports whether the
// object was decided, and how many bytes of b were taken then.
func (m *Machine) curlyText(b []byte, i int) (int, bool) {
	l := m.lbl
	u := &l.cu
	c := b[i]
	if len(l.held)+i+1 > maxCurly {
		return m.giveBackThrough(b, i)
	}
	switch {
	case u.plain:
		switch {
		case u.esc:
			u.esc = false
		case c == '\\':
			u.esc = true
		case c == '"':
			u.plain = false
		}
	case u.str:
		// the closing ” is seen at its last byte
		if c == curlyClose[2] && endsWith(l.held, b[:i], curlyClose[:2]) {
			u.str = false
		}
	case c == curlyOpen[2] && endsWith(l.held, b[:i], curlyOpen[:2]):
		u.str = true
	case c == '"':
		u.plain = true
	case c == '{' || c == '[':
		u.depth++
	case c == '}' || c == ']':
		if u.depth--; u.depth == 0 {
			l.held = append(l.held, b[:i+1]...)
			m.curlyEnds()
			return i + 1, true
		}
	}
	return 0, false
}

// endsWith reports whether the bytes a then b end with w (w shorter than
// three bytes: a quote's lead bytes).
func endsWith(a, b, w []byte) bool {
	if len(b) >= len(w) {
		return bytes.HasSuffix(b, w)
	}
	k := len(w) - len(b)
	return len(a) >= k && bytes.Equal(a[len(a)-k:], w[:k]) && bytes.Equal(b, w[k:])
}

// curlyTag holds a token met inside a held curly object, and reports
// whether it did.
func (m *Machine) curlyTag(t *lexer.Token) bool {
	l := m.lbl
	if l.state != lbCurly || len(l.held)+len(t.Raw) > maxCurly {
		return false
	}
	l.held = append(l.held, t.Raw...)
	return true
}

// curlyEnds judges the whole held object: a call of the anchored tool, or
// text.
func (m *Machine) curlyEnds() {
	l := m.lbl
	args := curlyJSON(l.held[l.cu.obj:])
	var members map[string]json.RawMessage
	name := l.held[l.name.a:l.name.b]
	if json.Unmarshal(args, &members) != nil || members == nil || schemaLike(members) || !m.opt.FitsTool(name, keysOf(members)) {
		m.giveBackLabel()
		return
	}
	l.state = lbNone
	m.buf = append(m.buf[:0], l.held...)
	m.bufOff = l.off
	s := l.cu.spec
	m.blk = block{cands: specSet(s), spec: s, implicit: true}
	m.call = call{loose: -1}
	m.setDialect(s)
	m.call.name = m.keepName(name)
	m.call.args = append(m.argsBuf[:0], args...)
	m.argsBuf = m.call.args
	m.lv = lvCall
	m.completeCall(len(m.buf), RJSONRepaired|RInferredCall)
	m.settle()
}

// curlyJSON rewrites an object in typographic quotes as JSON: “ and ”
// delimit strings, inside which straight quotes are escaped.
func curlyJSON(obj []byte) []byte {
	out := make([]byte, 0, len(obj))
	str := false
	for i := 0; i < len(obj); {
		switch {
		case !str && bytes.HasPrefix(obj[i:], curlyOpen):
			out, str = append(out, '"'), true
			i += len(curlyOpen)
		case str && bytes.HasPrefix(obj[i:], curlyClose):
			out, str = append(out, '"'), false
			i += len(curlyClose)
		case str && obj[i] == '"':
			out = append(out, '\\', '"')
			i++
		default:
			out = append(out, obj[i])
			i++
		}
	}
	return out
}
