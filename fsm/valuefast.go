package fsm

import (
	"bytes"

	"github.com/toolsieve/toolsieve/lexer"
)

// The short path for a value's chunks that hold marker triggers (see
// writeValue). A value is content up to its closer: most triggers in it
// ('<' of `i < n`, '[' of `xs[i]`, backticks, HTML tags) change nothing
// but the buffer. Such a chunk is taken with the result the long way
// reaches token by token: triggers that the next byte or two of the chunk
// decide are taken without the lexer (lexer.PlainRun), the rest of the chunk
// goes through the lexer, and its tokens that are plain content
// (valueToken) skip the state machine's dispatch. A token that may mean
// something, and what follows it in the chunk, takes the long way.

// writeValueRun takes chunk p of a value, which holds marker triggers or
// '>', when the lexer is idle: what lexer.PlainRun allows at once, the rest
// through the lexer (writeTokens).
func (m *Machine) writeValueRun(p []byte) {
	n := lexer.PlainRun(p)
	base := len(m.buf)
	m.add(p[:n]) // the caller checked the cap
	// A '>' may end a misspelt closer (textInValue): if one does, that
	// text takes the long way from its '>'.
	for j := bytes.IndexByte(p[:n], '>'); j >= 0; { // a chunk: bytes.IndexByte, not the loop for short runs
		if _, ok := m.corruptCloser(m.buf[max(0, base+j+1-40) : base+j+1]); ok || m.toolCloserLine(base+j+1) >= 0 {
			m.buf = m.buf[:base+j]
			n = j
			break
		}
		k := bytes.IndexByte(p[j+1:n], '>')
		if k < 0 {
			break
		}
		j += k + 1
	}
	if n > 0 {
		if !m.skipped(p[:n]) {
			m.discardStopped(p[n:], false)
			return
		}
		m.prev = p[n-1]
	}
	if n < len(p) {
		m.writeTokens(p[n:])
	}
}

// writeTokens feeds p, more of a value or of a JSON string, to the lexer
// and handles its tokens: those that are content of the value or string
// in progress directly, others (and all after them that are not) the long
// way, after the JSON bytes that wait for the scanner.
func (m *Machine) writeTokens(p []byte) {
	m.lex.Feed(p)
	long := false
	for {
		m.watchLines()
		t, ok := m.lex.Next(false)
		if !ok {
			break
		}
		if !m.pend.active && (m.lv == lvValue && m.valueToken(t) || m.lv == lvJSON && m.jsonToken(t)) {
			continue
		}
		m.flushJSON()
		m.token(t)
		long = true
	}
	if long {
		m.plain = m.idle()
	}
}

// valueToken handles token t of a value when it is content that changes
// nothing but the buffer, and reports whether it did: text without '>'
// (which may end a misspelt closer), a backtick run, a tag that is no
// marker (but a closer that may be a misspelt one of the value, and any
// tag in a dialect whose elements are named after the tool or after the
// argument).
func (m *Machine) valueToken(t *lexer.Token) bool {
	switch t.Kind {
	case lexer.Text:
		if t.Flags&lexer.Overflow != 0 || indexByte(t.Raw, '>') >= 0 {
			return false
		}
	case lexer.Backticks:
	case lexer.Tag:
		if t.Marker != lexer.Unknown || m.call.spec.name == nameTag || m.call.spec.childParams || t.Has(lexer.Closing) && m.corruptParamCloser(t) {
			return false
		}
	default:
		return false
	}
	m.add(t.Raw)
	m.prev = t.Raw[len(t.Raw)-1]
	return true
}
