package fsm

// Granite 3.3 and 4.0 (granite_pythonic) write each call as a line of its
// own in the text, a Python call expression of a declared tool:
//
//	Let me look that up.
//	get_weather(location="Paris", unit="celsius")
//
// Only a line that starts with a declared tool's name and '(' is probed
// (openerAt); the call is read by the pythonic scanner and must end its
// line: anything but whitespace after its ')' on the line means the line
// was prose or code, and it goes back to the text. The line's newline is
// the call's last markup.

// A line call starts its line: no spaces before the name (the servers'
// parser strips them; held here, they would make where the chunks fall
// matter).

// mayLineCall reports whether the line that starts b may be a line call,
// as far as b shows: a name, optional spaces, then '(', the name a
// declared tool's.
func (m *Machine) mayLineCall(b []byte) bool {
	if !isWordByte(b[0]) {
		return false
	}
	j := 1
	for j < len(b) && calleeByte[b[j]] {
		j++
	}
	if j > maxProbeVal {
		return false
	}
	if j == len(b) {
		return true // the name may go on
	}
	if b[j] == ':' && m.mayLooseLine(b) { // looseline.go
		return true
	}
	k := j
	for k < len(b) && (b[k] == ' ' || b[k] == '\t') {
		k++
	}
	if k == len(b) || b[k] == '(' || exprLead(b[:j], b[k:], k > j) {
		return m.mayExprLine(b) // callexpr.go
	}
	return false
}

// startLineCall makes the probe just started one of a line call: it reads
// the callee and its '(' (probe.go's pCallee), then the pythonic scanner
// takes over (openProbed).
func (m *Machine) startLineCall() {
	p := m.probe
	p.state, p.py, p.json, p.lineCall = pList, true, false, true
	p.cands, p.head = eolDialects&m.ix.on, m.looseLineSpec()
}

// eolDialects are the dialects whose calls are lines of their own (Spec.eol).
var eolDialects = dialectsWhere(func(s *Spec) bool { return s.eol })

// textLineEnd takes text after a line call's ')' (see callLineRest); the
// ')' of a wrapper around the call (print(..), callexpr.go) is its markup.
func (m *Machine) textLineEnd(b []byte) int {
	return m.callLineRest(b, m.exprWrapClose, m.lineCallDone)
}

// callLineRest takes text b after a call written as a line of its own:
// blanks up to the end of its line, whose newline completes the call
// (done, with the markup's end), and bytes markup says are the call's.
// Anything else gives the line back to the text.
func (m *Machine) callLineRest(b []byte, markup func(byte) bool, done func(int)) int {
	for i, c := range b {
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			continue
		case c == '\n':
			if m.add(b[:i+1]) {
				done(len(m.buf))
			}
			return i + 1
		case markup != nil && markup(c):
			continue
		}
		if m.add(b[:i]) {
			m.toText() // prose or code after the call on its line
		}
		return i
	}
	m.add(b)
	return len(b)
}

// lineCallDone reports the line call whose markup ends at buf[:end].
func (m *Machine) lineCallDone(end int) {
	m.call.done = false
	var rep Repairs
	if m.exprUnfit(m.py.Name(), m.py.Args(), &rep) { // callexpr.go
		m.toText()
		return
	}
	m.pyCall(m.py.Name(), m.py.Args(), end, rep)
	m.fenceCallDone() // toolcode.go
	m.atLine = true   // its markup ended with its line's newline (or the input)
}

// lineCallToken handles token t after a line call's ')' (its bytes end
// m.buf): markup on the call's line means it was none; the line goes back
// to the text and t is handled there.
func (m *Machine) lineCallToken(t []byte) {
	m.buf = m.buf[:len(m.buf)-len(t)]
	m.toText()
}

// lineCallFrom turns a probe that held the start of a line as a line
// without '<' (bare.go), not one after all at b[i], into a line call's
// when the held bytes, then b, may be one. It reports whether it did; b[i]
// then goes on in the line call's probe.
func (m *Machine) lineCallFrom(b []byte, i int) bool {
	if !m.ix.lineCalls || !m.probe.line || len(m.buf)+i > maxProbeVal {
		return false
	}
	var line [2 * maxProbeVal]byte
	n := copy(line[:], m.buf)
	n += copy(line[n:], b[:min(len(b), len(line)-n)])
	if !m.mayLineCall(line[:n]) || !m.add(b[:i]) {
		return false
	}
	m.startLineCall()
	for _, c := range m.buf { // a few bytes of a name: read again as the call's
		m.probe.step(c)
	}
	return true
}
