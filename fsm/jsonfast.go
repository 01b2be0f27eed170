package fsm

import (
	"unicode/utf8"

	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/lexer"
)

// A large JSON argument is mostly the inside of one string. A chunk of it
// that cannot end the string or end a misspelt closer is taken here, with
// the result textInJSON and tagInJSON reach piece by piece: the bytes go
// to the buffer and the scanner, but for the letters at the end, which
// stay held (they may begin a misspelt closer). Escapes are allowed when
// they are simple (\n, \", ...), also when a chunk boundary cuts one: the
// string goes on. Marker triggers are handled as in a value (valuefast.go):
// those the next bytes decide at once, then the lexer, whose text, backtick
// runs and tags that are no marker are string content.
//
// The scanner gets such bytes later, in one piece (m.jlazy of them before
// the held letters): it is resumable, so what it makes does not depend on
// that, and nothing looks at it before Write, Close or a token taking the
// long way hand them over (flushJSON), or maxLazy of them wait. With the
// held letters they end in the string's body, but for a backslash at their
// end that begins an escape (m.jopen): the next byte must end it.

// maxLazy bounds the bytes that wait for the scanner.
const maxLazy = 64 << 10

// jsonStringStop marks the bytes that may end a JSON string or leave its
// body (jsonspan.EndsPlain), and the single quote of a loose string.
var jsonStringStop = func() (t [256]bool) {
	for c := range t {
		t[c] = jsonspan.EndsPlain(byte(c))
	}
	t['\''] = true
	return t
}()

// writeJSONString takes chunk p whole when it is more of a JSON string,
// and reports whether it did. The state does not change but where a token
// may mean something (then m.plain is set again). The call cap is not hit
// here: the bytes held by the lexer and p fit.
func (m *Machine) writeJSONString(p []byte) bool {
	if m.lv != lvJSON || !shortPaths || m.pend.active || len(m.buf)+m.lex.Holding()+len(p) > m.opt.MaxCall {
		return false
	}
	if m.jlazy > 0 && !m.jopen && len(p) > 0 && p[len(p)-1] < utf8.RuneSelf && m.lex.Idle() && !hasAny(p, &jsonPlainStop) {
		m.jsonPlain(p) // the common case: in the body after waiting bytes, nothing to look at
		if m.skipped(p) {
			m.textOff = m.lex.Offset()
		}
		return true
	}
	if m.jlazy == 0 && !m.json.InStringBody() && !m.json.InEscape() {
		return false
	}
	n := 0
	if m.lex.Idle() {
		n = lexer.PlainRun(p)
		if n > 0 && !m.jsonText(p[:n], true) {
			return false
		}
		if !m.skipped(p[:n]) {
			m.discardStopped(p[n:], false)
			return true
		}
	}
	if n < len(p) {
		m.writeTokens(p[n:])
	}
	m.textOff = m.lex.Offset()
	return true
}

// jsonToken handles token t inside a JSON string when it is content of the
// string, and reports whether it did: text, a backtick run, a tag that is
// no marker (in a dialect whose elements are not named after the tool).
func (m *Machine) jsonToken(t *lexer.Token) bool {
	switch t.Kind {
	case lexer.Text:
		return t.Flags&lexer.Overflow == 0 && m.jsonText(t.Raw, true)
	case lexer.Backticks:
	case lexer.Tag:
		if t.Marker != lexer.Unknown || m.call.spec.name == nameTag {
			return false
		}
	default:
		return false
	}
	return m.jsonText(t.Raw, false)
}

// jsonPlainStop marks the bytes that jsonPlain does not take: those of
// jsonStringStop, marker triggers and '>'.
var jsonPlainStop = func() (t [256]bool) {
	t = valueStop // marker triggers and '>'
	for c, stop := range jsonStringStop {
		t[c] = t[c] || stop
	}
	return t
}()

// jsonPlain is jsonText for text after bytes that wait for the scanner
// (in the string's body) that holds none of jsonPlainStop.
func (m *Machine) jsonPlain(p []byte) {
	held := m.jheld
	if !m.addRoom(p) {
		m.add(p)
	}
	if w := len(trailingWord(p)); w < len(p) {
		m.jheld = w
	} else {
		m.jheld = min(held+w, maxHeldWord)
	}
	if m.jlazy += len(p) + held - m.jheld; m.jlazy >= maxLazy {
		m.flushJSON()
	}
	m.prev = p[len(p)-1]
}

// jsonText takes p, more of the JSON string in progress, the way
// textInJSON (text: the letters at its end are held) or tagInJSON (a token
// that is string content) would. It reports false, taking nothing, when p
// may end the string, holds an escape that is not simple, or ends a
// misspelt closer (textInJSON looks at a '>' after letters).
func (m *Machine) jsonText(p []byte, text bool) bool {
	open := m.jopen // the byte before p began an escape: p[0] ends it
	if m.jlazy == 0 && !m.json.InStringBody() {
		switch {
		case !m.json.InEscape():
			return false
		case m.jheld == 0:
			open = true
		case !simpleEscape[m.buf[len(m.buf)-m.jheld]]: // the first held letter ends the escape
			return false
		}
	}
	cut, ok := inString(p, open)
	if !ok {
		return false
	}
	base, held := len(m.buf), m.jheld
	m.add(p)
	if text && m.gtCloses(p, base, held) {
		m.buf = m.buf[:base]
		return false
	}
	w := 0
	if text {
		w = len(trailingWord(p))
	}
	if w < len(p) {
		m.jheld = w // the held letters before p go to the scanner with the rest
	} else {
		m.jheld = min(held+w, maxHeldWord)
	}
	m.jlazy += len(p) + held - m.jheld
	m.jopen = cut
	if m.jlazy >= maxLazy {
		m.flushJSON()
	}
	m.prev = p[len(p)-1]
	return true
}

// gtCloses reports whether a '>' in p, text just added at m.buf[base:],
// ends a misspelt closer after the letters before it, held ones included.
func (m *Machine) gtCloses(p []byte, base, held int) bool {
	for j := indexByte(p, '>'); j >= 0; {
		s := j
		for s > 0 && isWordByte(p[s-1]) {
			s--
		}
		if s == 0 {
			s = -held
		}
		if s < j {
			if _, ok := m.corruptCloser(m.buf[base+s : base+j+1]); ok {
				return true
			}
		}
		k := indexByte(p[j+1:], '>')
		if k < 0 {
			break
		}
		j += k + 1
	}
	return false
}

// flushJSON hands the bytes that wait for the scanner over to it.
func (m *Machine) flushJSON() {
	if m.jlazy == 0 {
		return
	}
	end := len(m.buf) - m.jheld
	b := m.buf[end-m.jlazy : end]
	m.jlazy, m.jopen = 0, false // an open escape is the scanner's state now
	if m.lv == lvJSON {
		m.json.WriteBody(b) // more of the string: its end is not in b
	}
}

// simpleEscape marks the bytes that make a whole escape after a backslash.
var simpleEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// inString reports whether p, inside a string, leaves it so: no byte of
// jsonStringStop, but backslashes that begin simple escapes. With open,
// p[0] ends an escape begun before it. cut reports that p ends with a
// backslash, inside an escape.
func inString(p []byte, open bool) (cut, ok bool) {
	i := 0
	if open {
		if len(p) == 0 || !simpleEscape[p[0]] {
			return false, false
		}
		i = 1
	}
	for ; i < len(p); i++ {
		if jsonStringStop[p[i]] {
			switch {
			case p[i] != '\\':
				return false, false
			case i+1 == len(p):
				return true, true
			case !simpleEscape[p[i+1]]:
				return false, false
			}
			i++
		}
	}
	return false, true
}
