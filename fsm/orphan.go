package fsm

import "github.com/toolsieve/toolsieve/lexer"

// A model may drop a wrapper's opener and write only its closer after the
// call: `{"name": "f", "arguments": {..}}\n</TOOLCALL>`. Without declared
// tools a bare JSON object in text is no call, but one followed by the
// closer of a wrapper that holds such objects (hermes's </tool_call>,
// nemotron's </TOOLCALL>, ..) is: the orphan closer says what the object
// was. So when no tools are declared and such a dialect is on, a '{' or
// '[' that starts a line is probed like a text opener (probe.go); once the
// probe has read a call's name, the whole JSON value is held (at most
// Options.MaxCall bytes), then the whitespace after it. A closer of one of
// those wrappers makes the held bytes a call of its dialect with
// missing_opener, the closer its last markup; anything else gives them
// back as text. With declared tools the json and xlam dialects read such
// objects themselves (the closer is then an orphan, discarded).

// orphanDialects are the dialects whose wrapper closer may stand alone
// after their JSON call objects.
var orphanDialects = dialectsWhere(func(s *Spec) bool {
	return s.shape == shEnvelope && s.block != lexer.Unknown && !s.block.IsSpecial()
})

// orphanOps are the text openers an orphan probe looks for: the one-byte
// openers of JSON bodies, '{' and '['.
var orphanOps = func() (s opSet) {
	for k, o := range pt.ops {
		if o.shape == shProbe && len(o.text) == 1 {
			s |= 1 << k
		}
	}
	return s
}()

// holdBody goes on from a probe that read a call's name to hold the whole
// JSON value: its bytes so far (m.buf from the body's start) are scanned.
func (m *Machine) holdBody() {
	m.probe.state = pBody
	m.json.Write(m.buf[m.probe.body:])
}

// textHeld takes text while a call body is held: more of the JSON value,
// then whitespace. Anything else, or a value that is not JSON or outgrows
// the call cap, gives the held bytes back as text.
func (m *Machine) textHeld(b []byte) int {
	if len(m.buf)+len(b) > m.opt.MaxCall {
		m.probeText()
		return 0
	}
	if m.probe.state == pBody {
		n, done := m.json.Write(b)
		m.add(b[:n])
		switch {
		case m.json.Failed():
			m.probeText()
		case done:
			m.probe.state = pAfter
		}
		return n
	}
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	m.add(b[:i])
	if i < len(b) {
		m.probeText()
	}
	return i
}

// closeHeld handles token t after a held call body: a closer of a wrapper
// whose dialect writes such bodies ends the call. It reports whether it
// took t.
func (m *Machine) closeHeld(t *lexer.Token) bool {
	if m.probe.state != pAfter || t.Kind != lexer.Tag || !t.Has(lexer.Closing) {
		return false
	}
	var cands dset
	for d := orphanDialects & m.ix.on; d != 0; d &= d - 1 {
		if s := d.first(); s.block == t.Marker {
			cands |= specSet(s)
		}
	}
	m.blk = block{cands: cands, implicit: true}
	s := m.envelopeFor(m.buf[m.probe.body])
	if s == nil {
		m.blk = block{}
		return false
	}
	m.blk.cands, m.blk.spec = specSet(s), s
	m.call = call{jsonEnv: true, loose: -1, repairs: RMissingOpener}
	if s.variant(t) != 0 {
		m.call.repairs |= RMarkerVariant
	}
	m.setDialect(s)
	m.lv = lvJSON
	m.finishJSON()
	if !m.add(t.Raw) {
		return true
	}
	m.completeCall(len(m.buf), 0)
	if m.lv == lvBlock {
		m.toText()
	}
	return true
}
