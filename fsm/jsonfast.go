package fsm

// A large JSON argument is mostly the inside of one string. A chunk of it
// that cannot end the string, start a marker or end a misspelt closer is
// taken whole here, with the result textInJSON reaches piece by piece: the
// bytes go to the buffer and the scanner, but for the letters at the end,
// which stay held (they may begin a misspelt closer). Escapes are allowed
// when they are whole and simple (\n, \", ...): the string goes on.
//
// The scanner gets such bytes later, in one piece (m.jlazy of them before
// the held letters): it is resumable, so what it makes does not depend on
// that, and nothing looks at it before Write or Close hand them over
// (flushJSON), or maxLazy of them wait.

// maxLazy bounds the bytes that wait for the scanner.
const maxLazy = 64 << 10

// jsonStringStop marks the bytes that keep a chunk of a JSON string off
// the short path: marker triggers, '>', quotes, '\\' and control bytes.
var jsonStringStop = func() (t [256]bool) {
	t = markerStart
	for c := range 0x20 {
		t[c] = true
	}
	t['>'], t['"'], t['\''], t['\\'] = true, true, true, true
	return t
}()

// writeJSONString takes chunk p whole when it is such text, and reports
// whether it did. The state does not change: m.plain stays as it is.
func (m *Machine) writeJSONString(p []byte) bool {
	// Bytes waiting for the scanner end inside the string, out of escapes.
	if m.lv != lvJSON || m.pend.active || m.jlazy == 0 && !m.json.InStringBody() || len(m.buf)+len(p) > m.opt.MaxCall {
		return false
	}
	esc, ok := inString(p)
	if !ok || !m.lex.Plain(p) {
		return false
	}
	held := m.jheld
	m.add(p)
	w := len(trailingWord(p))
	if w < len(p) {
		m.jheld = w // the held letters before p go to the scanner with the rest
	} else {
		m.jheld = min(held+w, maxHeldWord)
	}
	m.jlazy += len(p) + held - m.jheld
	if esc > len(p)-w || m.jlazy >= maxLazy { // the held letters begin inside an escape (\n): the scanner is in it
		m.flushJSON()
	}
	m.textOff = m.lex.Offset()
	m.prev = p[len(p)-1]
	return true
}

// flushJSON hands the bytes that wait for the scanner over to it.
func (m *Machine) flushJSON() {
	if m.jlazy == 0 {
		return
	}
	end := len(m.buf) - m.jheld
	b := m.buf[end-m.jlazy : end]
	m.jlazy = 0
	m.feedBytes(b)
}

// simpleEscape marks the bytes that make a whole escape after a backslash.
var simpleEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// inString reports whether p, inside a string and not in an escape, leaves
// it so: no byte of jsonStringStop, but backslashes that begin whole simple
// escapes. esc is where the last escape ends (0: none).
func inString(p []byte) (esc int, ok bool) {
	for i := 0; i < len(p); i++ {
		if jsonStringStop[p[i]] {
			if p[i] != '\\' || i+1 == len(p) || !simpleEscape[p[i+1]] {
				return 0, false
			}
			i++
			esc = i + 1
		}
	}
	return esc, true
}
