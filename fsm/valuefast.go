package fsm

import "github.com/toolsieve/toolsieve/lexer"

// The short path for a value's chunks that hold marker triggers (see
// writeValue). A value is content up to its closer: most triggers in it
// ('<' of `i < n`, '[' of `xs[i]`, backticks, HTML tags) change nothing
// but the buffer. Such a chunk is taken with the result the long way
// reaches token by token: triggers that the next byte or two of the chunk
// decide are taken without the lexer (valueRun), the rest of the chunk
// goes through the lexer, and its tokens that are plain content
// (valueToken) skip the state machine's dispatch. A token that may mean
// something, and what follows it in the chunk, takes the long way.

// ltFails marks the bytes on which a marker candidate `<` fails at once:
// ASCII other than '/', ' ', a bar and a name's first letter.
// ltSpaceFails is the same after `< `, where a name may not start.
// bracketFails is the same after the name of a possible bracket token
// (bracketEnd): ASCII other than ']', '/', 'A'-'Z', '_' and digits (a
// byte the name could take would have been taken, but for a name at its
// bound, where the recognizer fails on any byte).
var ltFails, ltSpaceFails, bracketFails = func() (lt, lts, br [256]bool) {
	for c := range 0x80 {
		b := byte(c)
		letter := 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || b == '_'
		other := b != '/' && b != ' ' && b != '|'
		lt[c] = other && !letter
		lts[c] = other
		br[c] = b != ']' && b != '/' && b != '_' && !('A' <= b && b <= 'Z') && !('0' <= b && b <= '9')
	}
	return
}()

// bracketEnd returns where the name of a bracket token `[NAME]` or
// `[/NAME]` that may begin at p[j] ends: after an optional slash, upper
// case letters, '_' and digits (not first), at most lexer.MaxNameLen of
// them (the recognizer fails on the next one, which it does not take).
func bracketEnd(p []byte, j int) int {
	if j < len(p) && p[j] == '/' {
		j++
	}
	k := j
	for k < len(p) && k-j < lexer.MaxNameLen {
		c := p[k]
		if !('A' <= c && c <= 'Z' || c == '_' || k > j && '0' <= c && c <= '9') {
			break
		}
		k++
	}
	return k
}

// valueRun returns the length of the longest prefix of p that the lexer,
// idle, returns as text and backtick runs and that leaves it idle: every
// '<' and '[' in it is one the next bytes show is no marker, and it does
// not end inside a UTF-8 sequence. A backtick run is content in a value
// however it is cut, so one at the end of p is taken too.
func valueRun(p []byte) int {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '<':
			k := i + 1
			if k < len(p) && p[k] == ' ' {
				if k++; k < len(p) && ltSpaceFails[p[k]] {
					i = k - 1 // p[k] is looked at again: it may be a trigger
					continue
				}
				return i
			}
			if k == len(p) || !ltFails[p[k]] {
				return i
			}
		case '[':
			k := bracketEnd(p, i+1)
			if k == len(p) || !bracketFails[p[k]] {
				return i
			}
			i = k - 1 // p[k] is looked at again
		}
	}
	return lexer.CompleteUTF8(p)
}

// writeValueRun takes chunk p of a value, which holds marker triggers or
// '>', when the lexer is idle: what valueRun allows at once, the rest
// through the lexer (writeTokens).
func (m *Machine) writeValueRun(p []byte) {
	n := valueRun(p)
	base := len(m.buf)
	m.add(p[:n]) // the caller checked the cap
	// A '>' may end a misspelt closer (textInValue): if one does, that
	// text takes the long way from its '>'.
	for j := indexByte(p[:n], '>'); j >= 0; {
		if _, ok := m.corruptCloser(m.buf[max(0, base+j+1-40) : base+j+1]); ok {
			m.buf = m.buf[:base+j]
			n = j
			break
		}
		k := indexByte(p[j+1:n], '>')
		if k < 0 {
			break
		}
		j += k + 1
	}
	if n > 0 {
		m.lex.Skip(p[:n])
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
// tag in a dialect whose elements are named after the tool).
func (m *Machine) valueToken(t *lexer.Token) bool {
	switch t.Kind {
	case lexer.Text:
		if t.Flags&lexer.Overflow != 0 || indexByte(t.Raw, '>') >= 0 {
			return false
		}
	case lexer.Backticks:
	case lexer.Tag:
		if t.Marker != lexer.Unknown || m.call.spec.name == nameTag || t.Has(lexer.Closing) && m.corruptParamCloser(t) {
			return false
		}
	default:
		return false
	}
	m.add(t.Raw)
	m.prev = t.Raw[len(t.Raw)-1]
	return true
}
