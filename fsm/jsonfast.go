package fsm

// A large JSON argument is mostly the inside of one string. A chunk of it
// that cannot end the string, start a marker or end a misspelt closer is
// taken whole here, with the result textInJSON reaches piece by piece: the
// bytes go to the buffer and the scanner, but for the letters at the end,
// which stay held (they may begin a misspelt closer). Escapes are allowed
// when they are whole and simple (\n, \", ...): the string goes on.

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
// whether it did.
func (m *Machine) writeJSONString(p []byte) bool {
	if m.lv != lvJSON || m.pend.active || !m.json.InStringBody() || len(m.buf)+len(p) > m.opt.MaxCall ||
		!inString(p) || !m.lex.Plain(p) {
		return false
	}
	held := m.jheld
	m.add(p)
	if w := len(trailingWord(p)); w < len(p) {
		m.jheld = w // the held letters before p go to the scanner with the rest
	} else {
		m.jheld = min(held+w, maxHeldWord)
	}
	m.feedBytes(m.buf[len(m.buf)-len(p)-held : len(m.buf)-m.jheld])
	m.textOff = m.lex.Offset()
	m.prev = p[len(p)-1]
	return true
}

// simpleEscape marks the bytes that make a whole escape after a backslash.
var simpleEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// inString reports whether p, inside a string and not in an escape, leaves
// it so: no byte of jsonStringStop, but backslashes that begin whole simple
// escapes.
func inString(p []byte) bool {
	for i := 0; i < len(p); i++ {
		if jsonStringStop[p[i]] {
			if p[i] != '\\' || i+1 == len(p) || !simpleEscape[p[i+1]] {
				return false
			}
			i++
		}
	}
	return true
}
