package fsm

import (
	"bytes"

	"github.com/toolsieve/toolsieve/fsm/jsonscan"
	"github.com/toolsieve/toolsieve/lexer"
)

// sep is the byte that may separate calls in the block, or 0: its
// dialect's, or that of a candidate (llama3 shares its token with
// llama3_builtin).
func (b *block) sep() byte {
	if b.spec != nil {
		return b.spec.callSep
	}
	for cands := b.cands; cands != 0; cands &= cands - 1 {
		if c := cands.first().callSep; c != 0 {
			return c
		}
	}
	return 0
}

// settle ends an implicit block once its call is done: text follows.
func (m *Machine) settle() {
	if m.lv == lvBlock && m.blk.implicit && !m.pend.active {
		m.toText()
	}
	m.checkLevel()
}

// ---- loose text inside blocks and calls ----

// textLoose handles text between elements. Whitespace is markup; other
// text is gathered into a segment (up to a newline, a tag, a '>' or
// maxSegment bytes) and judged as a whole by closeSegment.
func (m *Machine) textLoose(b []byte) int {
	if m.lv == lvCall && m.call.slot == slotParam {
		if n, ok := m.slotText(b); ok {
			return n
		}
	}
	if n := m.fenceInfo(b); n > 0 {
		return n
	}
	if m.lv == lvCall && m.call.slot == slotFused {
		return m.fusedText(b)
	}
	if m.lv == lvCall && m.collectsLoose() {
		return m.textLooseCall(b)
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if isSpace(c) || c != 0 && c == m.blk.sep() || c == ']' && m.blk.cands&sentinelDialects != 0 {
			if c == '\n' && m.seg.active {
				if m.add(b[:i]) {
					m.closeSegment(len(m.buf))
				}
				return i
			}
			continue
		}
		if !m.seg.active && spAt(b, i) { // `▁` before a body (spspace.go)
			i += len(spSpace) - 1
			continue
		}
		if !m.seg.active {
			if m.jsonCanStart(c) {
				if m.add(b[:i]) {
					m.startJSON(c)
				}
				return i
			}
			if s := m.pyStarts(c); s != nil {
				if m.add(b[:i]) {
					m.startPy(s, len(m.buf))
				}
				return i
			}
			if m.hashCanStart(c) {
				if m.add(b[:i]) {
					m.startHash()
				}
				return i
			}
			m.seg = segment{active: true, start: len(m.buf) + i}
		}
		if c == '{' && m.nameBeforeJSON(b[:i]) { // `<tool_call>NAME{json}`: the name ends at the body
			if m.add(b[:i]) {
				m.closeSegment(len(m.buf))
			}
			return i
		}
		m.seg.n++
		m.seg.rune.step(c)
		if c == '>' || m.seg.n > maxSegment && m.seg.rune.whole() && (!m.blk.eol || m.seg.n > maxMarkLine) || c == '(' && m.pyMayStart() {
			if m.add(b[:i+1]) {
				m.closeSegment(len(m.buf))
			}
			return i + 1
		}
	}
	m.add(b)
	return len(b)
}

func firstNonSpace(b []byte) int {
	for i, c := range b {
		if !isSpace(c) {
			return i
		}
	}
	return -1
}

// looseKV is the first of the candidates whose calls are key/value calls
// named by loose text in their wrapper (glm): a dialect whose calls have
// an element of their own (hy_v3's <tool_call>) names them inside it.
func looseKV(cands dset) *Spec {
	for ; cands != 0; cands &= cands - 1 {
		if s := cands.first(); s.shape == shKV && s.call == lexer.Unknown {
			return s
		}
	}
	return nil
}

// nameBeforeJSON reports whether the segment in progress, ending with b
// (not in m.buf yet; the segment may begin in it), is the name of a call of a block whose key/value
// dialect may hold a JSON body, the '{' after it that body.
func (m *Machine) nameBeforeJSON(b []byte) bool {
	if m.lv != lvBlock || m.blk.calls > 0 || len(m.buf)-m.seg.start+len(b) > maxSegment {
		return false
	}
	var ok bool
	if k := m.seg.start - len(m.buf); k >= 0 { // the segment began in b
		ok = isIdent(b[k:])
	} else {
		ok = isIdent2(m.buf[m.seg.start:], b)
	}
	if !ok {
		return false
	}
	s := looseKV(m.blk.cands)
	return s != nil && s.json
}

// closeSegment judges the loose text at buf[seg.start:end].
func (m *Machine) closeSegment(end int) {
	m.seg.active = false
	start := m.seg.start
	s := m.buf[start:end]
	if m.markSegment(start, end) || m.toolSegment(start, end) { // markline.go, toolline.go
		return
	}
	if r, ok := m.corruptCloser(s); ok {
		m.applyCorrupt(r, start, end)
		return
	}
	if m.elemNameText(s) { // nameelem.go
		return
	}
	if m.bareInMarkup(start, end) {
		return
	}
	if m.lv == lvBlock && m.blk.calls == 0 {
		if spec, name, ok := m.headerSegment(s); ok {
			m.blk.cands, m.blk.spec = specSet(spec), spec
			m.openLoose(spec, name)
			return
		}
	}
	if m.lv == lvBlock && m.blk.calls == 0 && isIdent(s) && !proseWord(m.buf, start, end) {
		if spec := looseKV(m.blk.cands); spec != nil {
			m.openLoose(spec, s)
			return
		}
	}
	if m.attrBody(start, end) { // attrbody.go
		return
	}
	if m.lv == lvBlock && m.blk.calls == 0 && looksPythonic(s) {
		if spec := m.pySpecFor(s[max(firstNonSpace(s), 0)]); spec != nil {
			m.startPy(spec, start)
			return
		}
	}
	if m.pyFromCall(s, start) {
		return
	}
	if m.lv == lvBlock && m.blk.calls == 0 && m.blk.spec != nil && m.blk.spec.preamble != "" {
		if !equalFold(bytes.TrimSpace(s), m.blk.spec.preamble) {
			m.toText() // another kind of message
		}
		return // the unit's header (gigachat3 `function call`)
	}
	if len(s) <= maxStrayWord && isWord(s) {
		if m.lv == lvCall && !m.call.done && (start == 0 || m.buf[start-1] != '`') {
			m.markUnread() // a word in a call's body is an argument without its element (not a fence's `json`)
		}
		m.strayWord() // a stray word line (`court`): kept in the markup
		return
	}
	switch {
	case m.lv == lvBlock && m.blk.calls == 0:
		m.toText() // the opener was not markup after all
	case m.lv == lvBlock:
		m.flushDiscard(start, DiscardBlockMarkup)
		m.toText()
	case m.lv == lvCall && m.call.done:
		m.completeCall(start, RMissingCloser)
		m.toText()
	case m.lv == lvCall && m.blk.implicit && len(m.call.params) == 0:
		m.toText()
	case m.lv == lvCall:
		m.markUnread() // text in a call's body that is no argument element
	}
}

// applyCorrupt acts on a misspelt closer found in loose text at buf[start:end].
func (m *Machine) applyCorrupt(r role, start, end int) {
	switch {
	case m.lv == lvBlock && r == rBlockClose:
		m.openers = 0
		m.endBlock(end)
	case m.lv == lvCall && r == rCallClose:
		m.openers = 0
		m.completeCall(end, m.closerRepair(start, end))
	case m.lv == lvCall && r == rBlockClose:
		m.openers = 0
		rep := m.closerRepair(start, end)
		if m.call.spec.call != lexer.Unknown {
			rep |= RMissingCloser
		}
		m.completeCall(start, rep)
		if m.lv == lvBlock {
			m.endBlock(end - start)
		}
	}
}

// corruptCloser reports whether b ends with a closer name and '>' but no
// `</` (`invfunction_calls>`), for an element that is open.
func (m *Machine) corruptCloser(b []byte) (role, bool) {
	if len(b) < 2 || b[len(b)-1] != '>' {
		return rNone, false
	}
	w := trailingWord(b[:len(b)-1])
	for _, mk := range corruptClosers {
		name := mk.String()
		if len(w) < len(name) || !equalFold(w[len(w)-len(name):], name) {
			continue
		}
		if r := m.openRole(mk); r != rNone {
			return r, true
		}
	}
	return rNone, false
}

// corruptClosers are the elements whose closer real models misspell
// without its `</` (`invfunction_calls>`), longest name first where one
// name ends another.
var corruptClosers = []lexer.Marker{lexer.FunctionCalls, lexer.ToolCalls, lexer.InvokeToolCall,
	lexer.ToolCall, lexer.Invoke, lexer.Parameter, lexer.Function}

// openRole is the closer role of marker mk if an element it closes is open:
// the value's closer, the call element, or the block's wrapper.
func (m *Machine) openRole(mk lexer.Marker) role {
	switch {
	case m.lv == lvValue && m.val.closer == mk:
		return rParamClose
	case m.lv >= lvCall && m.call.spec.call == mk:
		return rCallClose
	case m.lv >= lvBlock && m.lv <= lvJSON && !m.blk.implicit && anyOf(m.blk.cands, func(s *Spec) bool { return s.block == mk }):
		return rBlockClose
	}
	return rNone
}

// maxHeldWord bounds the letters held back from the JSON scanner: the
// longest closer name, with room for junk before it.
const maxHeldWord = 32

func trailingWord(b []byte) []byte {
	i := len(b)
	for i > 0 && len(b)-i < maxHeldWord && isWordByte(b[i-1]) {
		i--
	}
	return b[i:]
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
}

func isWord(b []byte) bool {
	for _, c := range b {
		if !isWordByte(c) {
			return false
		}
	}
	return len(b) > 0
}

// isIdent reports whether b looks like a tool name (GLM writes it bare).
func isIdent(b []byte) bool { return isIdent2(b, nil) }

// isIdent2 is isIdent for the bytes of a, then b (a name cut in two).
func isIdent2(a, b []byte) bool {
	at := func(i int) byte {
		if i < len(a) {
			return a[i]
		}
		return b[i-len(a)]
	}
	i, j := 0, len(a)+len(b)
	for i < j && isSpace(at(i)) {
		i++
	}
	for j > i && isSpace(at(j-1)) {
		j--
	}
	if i == j || j-i > 64 {
		return false
	}
	for k := i; k < j; k++ {
		if c := at(k); !(isWordByte(c) || '0' <= c && c <= '9' || c == '-' || c == '.' || c == ':') {
			return false
		}
	}
	return true
}

// proseWord reports whether loose text that isIdent accepts reads as a word
// of a sentence rather than a name: spaced on both sides within one line
// (`<tool_call> and </tool_call>`), or ended by a full stop, hyphen or colon
// (`<tool_call>tags.</tool_call>`). No dialect writes a name so.
func proseWord(buf []byte, start, end int) bool {
	s := buf[start:end]
	t := bytes.TrimSpace(s)
	if len(t) == 0 {
		return false
	}
	if c := t[len(t)-1]; c == '.' || c == '-' || c == ':' {
		return true
	}
	for start > 0 && (buf[start-1] == ' ' || buf[start-1] == '\t') {
		start-- // the spaces the segment began after
	}
	s = buf[start:end]
	if bytes.IndexByte(s, '\n') >= 0 {
		return false
	}
	sp := func(c byte) bool { return c == ' ' || c == '\t' }
	return sp(s[0]) && (sp(s[len(s)-1]) || end < len(buf) && sp(buf[end]))
}

// openLoose starts a call of a dialect that writes its name as loose text
// (glm) named name.
func (m *Machine) openLoose(s *Spec, name []byte) {
	if m.openLooseCall(s, name) {
		m.callStart(m.nameOf(m.call.name))
	}
}

// openLooseCall opens the call of openLoose without reporting its start;
// it reports whether the call is open (no runaway).
func (m *Machine) openLooseCall(s *Spec, name []byte) bool {
	m.openers++
	if int(m.openers) > m.opt.Runaway.OpenersWithoutCloser {
		m.runaway(RunawayUnclosedOpeners)
		return false
	}
	m.call = call{loose: -1}
	m.setDialect(s)
	m.call.name = m.keepName(bytes.TrimSpace(name))
	if m.blk.open.variant || m.blk.variants&specSet(s) != 0 {
		m.call.repairs |= RMarkerVariant
	}
	m.lv = lvCall
	return true
}

// ---- values ----

// textInValue appends value text; a closer name followed by '>' without
// its `</` may end the value (pending).
func (m *Machine) textInValue(b []byte) int {
	if m.blk.eol {
		if n, ok := m.markInValue(b); ok { // markline.go
			return n
		}
	}
	i := bytes.IndexByte(b, '>')
	if i < 0 {
		m.add(b)
		return len(b)
	}
	if !m.add(b[:i+1]) || m.toolValueCloser() { // toolline.go
		return i + 1
	}
	if r, ok := m.corruptCloser(m.buf[max(0, len(m.buf)-40):]); ok {
		w := trailingWord(m.buf[:len(m.buf)-1])
		start, rep := len(m.buf)-len(w)-1, RCorruptedCloser
		if s, ok := bareCloserAt(m.buf, start); ok { // `1/parameter>`: only the '<' is missing
			start, rep = s, RMissingBracket
		} else if n := len(m.val.closer.String()); r == rParamClose && len(w) > n {
			start, rep = len(m.buf)-n-1, RMissingBracket // `Parisparameter>`: the value, then its closer without `</`
		}
		if r != rParamClose {
			rep |= RMissingCloser
		}
		m.expect(r, start, rep)
	}
	return i + 1
}

// ---- JSON bodies ----

// jsonCanStart reports whether byte c starts a JSON body here.
func (m *Machine) jsonCanStart(c byte) bool {
	switch m.lv {
	case lvCall:
		cl := &m.call
		switch {
		case !cl.spec.json:
			return c == '{' && m.jsonSibling() != nil
		case len(cl.params) > 0 || cl.kv.has || cl.done && cl.args == nil:
			return false
		case cl.spec.envFirst && !cl.hdr.named:
			return c == '{' || c == '['
		case cl.spec.header != nil && cl.spec.key == lexer.Unknown: // a key/value call may hold an envelope
			return (c == '{' || c == '"' && cl.spec.shape == shTokens) && cl.hdr.named // a string: arguments encoded twice (doubleenc.go)
		}
		return c == '{'
	case lvBlock:
		// A unit of an envelope dialect: JSON call objects stand in it. Where
		// the content decides the dialect, only as its first call.
		return (c == '{' || c == '[' && m.pyList() == nil) && (m.blk.spec != nil || m.blk.calls == 0) && m.envelopeFor(c) != nil
	}
	return false
}

// jsonSibling is the dialect of the call's family that writes the call in
// progress's element around a JSON object where the call's own dialect
// writes argument elements (functionary_v31's `<function=N>{..}` for
// qwen3_coder's `<function=N><parameter=..>`), or nil. Only a call that
// holds nothing yet may turn out to be such a sibling's.
func (m *Machine) jsonSibling() *Spec {
	c := &m.call
	if c.spec.call == lexer.Unknown || len(c.params) > 0 || c.done || c.kv.has || c.slot != slotOwn {
		return nil
	}
	return jsonSiblings[c.spec.id]
}

// jsonSiblings maps a dialect to its JSON-bodied sibling (jsonSibling).
var jsonSiblings = func() (sib [64]*Spec) {
	for i := range table {
		s := &table[i]
		for k := range table {
			o := &table[k]
			if !s.json && o.json && s.Family == o.Family && s.call != lexer.Unknown && o.call == s.call && o.shape == s.shape && o.name == s.name {
				sib[i] = o
			}
		}
	}
	return sib
}()

// envelopeFor is the envelope dialect among the block's candidates whose
// calls may start with c: '{' one call object, '[' an array of them. A
// dialect whose own opener this was comes first, then one that writes no
// arrays, for '{'.
func (m *Machine) envelopeFor(c byte) *Spec {
	var found *Spec
	rank := func(s *Spec) int {
		r := 0
		if m.blk.variants&specSet(s) != 0 {
			r += 2
		}
		if s.list {
			r++
		}
		return r
	}
	for cands := m.blk.cands; cands != 0; cands &= cands - 1 {
		s := cands.first()
		if s.shape != shEnvelope || c == '[' && !s.list {
			continue
		}
		if found == nil || rank(s) < rank(found) {
			found = s
		}
	}
	return found
}

// startJSON begins a JSON body at the next byte, c: call arguments, call
// envelopes, or a value repeated after a complete body (skipped).
func (m *Machine) startJSON(c byte) {
	if m.lv == lvBlock {
		m.openers++
		if int(m.openers) > m.opt.Runaway.OpenersWithoutCloser {
			m.runaway(RunawayUnclosedOpeners)
			return
		}
		s := m.envelopeFor(c)
		m.blk.cands, m.blk.spec = specSet(s), s
		m.blk.implicit = m.blk.implicit || s.message // one message, one call: the unit ends with it
		m.call = call{jsonEnv: true, loose: -1, start: len(m.buf)}
		m.setDialect(s)
		if m.blk.open.variant {
			m.call.repairs |= RMarkerVariant
		}
	} else if m.call.name.b == m.call.name.a && !m.call.done {
		m.call.jsonEnv = true // {"name":..,"arguments":..}
		if m.blk.spec == nil && m.call.open.marker.IsSpecial() {
			m.blk.cands, m.blk.spec = specSet(m.call.spec), m.call.spec // the body decided: llama3's, not llama3_builtin's
		}
	} else if !m.call.spec.json { // the body decides: <function=N>{..} is functionary_v31's
		s := m.jsonSibling()
		m.setDialect(s)
		switch {
		case m.blk.implicit && !s.wrapped():
			m.call.repairs &^= RMissingOpener // it was its sibling's wrapper that was missing
		case !m.blk.implicit && m.blk.cands&specSet(s) == 0:
			m.call.repairs |= RMarkerVariant // in its sibling's wrapper (<tool_call>)
		}
	}
	m.resetJSON()
	m.jheld = 0
	m.call.jsonAt = len(m.buf)
	if m.jw != nil {
		*m.jw = jsonWalk{}
	}
	m.lv = lvJSON
}

// textInJSON feeds JSON text to the scanner. Inside a string, runs of
// letters are held back until the next byte shows they are not a misspelt
// closer (`..."invfunction_calls>`).
func (m *Machine) textInJSON(b []byte) int {
	if !m.json.InString() && m.jheld == 0 {
		// Up to the next quote at most: a string may start there.
		if i := bytes.IndexAny(b, `"'`); i >= 0 {
			b = b[:i+1]
		}
		return m.writeJSON(b)
	}
	i := 0
	for i < len(b) && isWordByte(b[i]) {
		i++
	}
	if i > 0 {
		if !m.add(b[:i]) {
			return i
		}
		m.jheld += i
		if m.jheld > maxHeldWord { // only the last maxHeldWord bytes can be a closer's name
			old := m.buf[len(m.buf)-m.jheld : len(m.buf)-maxHeldWord]
			m.jheld = maxHeldWord
			m.feedBytes(old)
		}
		return i
	}
	if b[0] == '>' && m.jheld > 0 {
		if !m.add(b[:1]) {
			return 1
		}
		if r, ok := m.corruptCloser(m.buf[len(m.buf)-m.jheld-1:]); ok {
			w := trailingWord(m.buf[:len(m.buf)-1])
			start := len(m.buf) - len(w) - 1
			m.feedBytes(m.buf[len(m.buf)-m.jheld-1 : start])
			m.jheld = 0
			m.expect(r, start, RCorruptedCloser|RMissingCloser)
			return 1
		}
		m.jheld++
		m.feedHeld()
		return 1
	}
	m.feedHeld()
	if m.lv != lvJSON {
		return 0
	}
	j := 1
	for j < len(b) && !isWordByte(b[j]) {
		j++
	}
	return m.writeJSON(b[:j])
}

// writeJSON feeds b (not yet in m.buf) to the scanner.
func (m *Machine) writeJSON(b []byte) int {
	n, done := m.json.Write(b)
	if !m.add(b[:n]) {
		return n
	}
	if done || m.json.Failed() {
		m.finishJSON()
		m.jsonEnded()
	}
	return n
}

// jsonEnded completes a call of a family without closers once its JSON
// value is complete.
func (m *Machine) jsonEnded() {
	if m.lv == lvCall && m.call.done && m.call.spec.ends {
		m.openers = 0 // its end closes it
		m.completeCall(len(m.buf), 0)
	}
}

// feedHeld feeds the held-back bytes at the end of m.buf to the scanner.
func (m *Machine) feedHeld() {
	if m.jheld == 0 {
		return
	}
	held := m.buf[len(m.buf)-m.jheld:]
	m.jheld = 0
	m.feedBytes(held)
}

// feedBytes feeds bytes already in m.buf to the scanner. When b ends the
// buffer and the value ends inside it, the bytes after the value are taken
// out and handled again at the call level, as if they had come after it.
func (m *Machine) feedBytes(b []byte) {
	if m.lv != lvJSON || len(b) == 0 {
		return
	}
	n, done := m.json.Write(b)
	if !done && !m.json.Failed() {
		return
	}
	var rest []byte
	prev := m.prev
	if n < len(b) && &b[len(b)-1] == &m.buf[len(m.buf)-1] {
		rest = append(m.scratch[:0], b[n:]...)
		m.scratch = rest
		m.buf = m.buf[:len(m.buf)-len(rest)]
		if len(m.buf) > 0 {
			prev = m.buf[len(m.buf)-1]
		}
	}
	m.finishJSON()
	m.jsonEnded()
	last := m.prev
	m.prev = prev // the byte before rest
	m.text(rest)
	m.prev = last
}

func (m *Machine) tagInJSON(t *lexer.Token, tokStart int) {
	m.feedBytes(m.buf[tokStart-m.jheld : tokStart])
	m.jheld = 0
	if m.lv != lvJSON {
		m.tagInCall(t, tokStart)
		return
	}
	if m.json.InString() {
		if r := m.roleIn(t, lvCall); r == rCallClose || r == rBlockClose {
			m.expect(r, tokStart, 0)
			return
		}
	}
	n, done := m.json.Write(t.Raw)
	if done || m.json.Failed() {
		m.finishJSON()
		if n == 0 && m.lv == lvCall {
			m.tagInCall(t, tokStart)
		}
		m.jsonEnded()
	}
}

// finishJSON ends the JSON body: completes it if it was cut, and takes the
// arguments (or, for an envelope, the name and arguments) from it.
func (m *Machine) finishJSON() {
	if m.lv != lvJSON {
		return
	}
	m.lv = lvCall
	skip := m.call.done // a value repeated after a complete body
	out, truncated, repaired := m.json.Finish()
	if m.json.SentencePiece() { // `▁` for spaces (spspace.go)
		m.call.repairs |= RMarkerVariant
	}
	if !m.json.Done() && !truncated {
		truncated = true
	}
	if truncated {
		m.call.repairs |= RTruncatedJSON
	}
	if repaired {
		m.call.repairs |= RJSONRepaired
	}
	m.call.done = true
	if skip {
		m.call.repairs |= RJSONRepaired
		return
	}
	if !m.call.jsonEnv {
		if (truncated || repaired) && lostContent(m.buf[min(m.call.jsonAt, len(m.buf)):], out) {
			m.markUnread()
		}
		m.call.args = m.json.Take(m.argsBuf) // out, kept: the next body is written in argsBuf's room
		m.argsBuf = m.call.args
		m.argsWhole(truncated)
		return
	}
	if out = bytes.TrimSpace(out); len(out) > 0 && out[0] == '[' {
		m.envelopes(out)
		return
	}
	if list := toolCallsOf(out); list != nil {
		m.envelopes(list)
		return
	}
	name, args := m.envelope(out)
	m.call.name = m.keepName(name)
	m.call.args = append(m.argsBuf[:0], args...)
	m.argsBuf = m.call.args
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// repairJSON completes and repairs a whole JSON document, noting repairs.
func (m *Machine) repairJSON(b []byte) []byte {
	out, truncated, repaired, ok := jsonscan.Repair(b)
	if !ok {
		m.call.repairs |= RJSONRepaired
		return nil
	}
	if truncated {
		m.call.repairs |= RTruncatedJSON
	}
	if repaired {
		m.call.repairs |= RJSONRepaired
	}
	return out
}

// decodeAttrJSON undoes the quoting of JSON written in an attribute:
// `{\"a\": 1}` or `{&quot;a&quot;: 1}`. Only the quotes were escaped for
// the attribute; other escapes belong to the JSON.
func decodeAttrJSON(v []byte) []byte {
	if bytes.Contains(v, []byte(`\"`)) {
		v = bytes.ReplaceAll(v, []byte(`\"`), []byte(`"`))
	}
	if bytes.IndexByte(v, '&') >= 0 {
		return appendDecoded(nil, v) // entities.go
	}
	return v
}

// ---- completing calls ----

// completeCall ends the call in progress at buf[:end] and reports it.
func (m *Machine) completeCall(end int, rep Repairs) {
	switch m.lv {
	case lvValue:
		m.closeValue(end, RMissingCloser)
	case lvJSON:
		m.feedHeld()
		m.finishJSON()
	}
	if m.lv != lvCall {
		return
	}
	m.call.repairs |= rep
	m.bareHeader(end)
	if m.call.muted { // a disabled dialect: its markup stays text
		m.envs = m.envs[:0]
		m.flushText(end)
		m.blk.muted++
		m.call = call{loose: -1}
		m.lv = lvBlock
		return
	}
	if len(m.envs) > 0 {
		if !m.refuseUnread(end) {
			m.emitEnvelopes(end)
		}
		return
	}
	if m.call.slot == slotProse && m.proseUnfit(end) {
		return
	}
	if m.elemUnfit(end) || m.tagJSONUnfit(end) || m.toolAttrUnfit(end) || m.wordKeyUnfit(end) { // nameelem.go, tagjson.go, attrtag.go, wordkey.go
		return
	}
	if inner := decodeTwice(m.call.args); inner != nil { // arguments encoded twice (doubleenc.go)
		m.call.args = inner
		m.call.repairs |= RJSONRepaired
	}
	if a := bytes.TrimSpace(m.call.args); len(a) > 0 && a[0] != '{' { // arguments must be an object
		m.call.args = nil
		m.call.repairs |= RJSONRepaired
		m.markUnread()
	}
	if m.call.kv.has || m.closedInOpener() {
		m.markUnread() // a key without its value; arguments after a closer fused into the opener (unread.go)
	}
	if m.refuseUnread(end) {
		return
	}
	c := m.outCall()
	*c = Call{Dialect: m.call.spec.Name, Name: m.nameOf(m.call.name), Repairs: m.call.repairs, Raw: m.buf[:end], Offset: m.bufOff}
	if m.call.id.b > m.call.id.a {
		c.ID = m.nameOf(m.call.id)
	}
	m.params = m.params[:0]
	for i := range m.call.params {
		p := &m.call.params[i]
		if p.name.b == p.name.a {
			continue // an argument without a name is never passed (unread.go)
		}
		m.params = append(m.params, Param{Name: m.nameOf(p.name), Value: m.paramValue(p), Hint: p.hint})
	}
	if len(m.params) > 0 || m.call.args == nil {
		c.Params = m.params
	} else {
		c.Args = m.call.args
	}
	if len(c.Name) == 0 {
		if m.unnamed(c) {
			m.call = call{loose: -1}
			m.lv = lvBlock
		}
		return
	}
	if m.call.spec.shape == shEnvelope && m.blk.calls > 0 && callSum(c) == m.lastCall {
		// {"name":..}{"name":..}: the same object twice in one block; the first was kept.
		m.flushDiscard(end, DiscardDuplicateValue)
		m.call = call{loose: -1}
		m.lv = lvBlock
		return
	}
	c.Stable = m.stable()
	if !m.report(c, m.call.byOpener) {
		return
	}
	if c.Stable {
		m.setAside(end)
	} else {
		m.shift(end)
	}
	if m.opt.Declared != nil && !m.opt.Declared(c.Name) {
		m.blk.muted++ // given back as text with an error (emitter): the block's markup stays text too
	} else {
		m.blk.calls++
	}
	m.call = call{loose: -1}
	m.lv = lvBlock
}

// bareHeader reads the header of a call closed before its separator, the
// header ending at buf[:end]: a caller that meets the closing token passes
// its start, so that the token is not part of the name.
func (m *Machine) bareHeader(end int) {
	if h := m.call.spec.header; h != nil && h.bare != nil && !m.call.hdr.sep {
		h.bare(m, end)
		m.call.hdr.sep = true
	}
}

// emitEnvelopes reports the calls of a JSON array of call objects: the
// first carries the markup's bytes.
func (m *Machine) emitEnvelopes(end int) {
	envs := m.envs
	m.envs = m.envs[:0]
	for i, e := range envs {
		c := m.outCall()
		*c = Call{Dialect: m.call.spec.Name, Name: m.nameOf(e.name), Args: e.args, Repairs: m.call.repairs, Offset: m.bufOff}
		if i == 0 {
			c.Raw = m.buf[:end]
		}
		if !m.report(c, m.call.byOpener) {
			return
		}
		if i == 0 {
			m.shift(end) // reported: a runaway at a later call does not report them again
		}
	}
	m.blk.calls += len(envs)
	m.call = call{loose: -1}
	m.lv = lvBlock
}

// eof closes whatever is open at the end of input.
func (m *Machine) eof() {
	m.fusedAtEOF()
	m.labelAtEOF()
	m.flushHeld()
	m.swapAtEOF()
	m.slotAtEOF()
	m.shellAtEOF() // shellcall.go
	m.markAtEOF()  // markline.go
	if m.lv == lvProbe {
		m.toText()
	}
	m.labelledAtEOF()
	if m.pend.active && m.pend.seg >= 0 {
		m.judgePending()
	} else if m.pend.active {
		m.decide(nil, nil, true)
	}
	if m.seg.active && (m.lv == lvBlock || m.lv == lvCall) {
		m.closeSegment(len(m.buf))
	}
	m.hashEnd()
	m.pyEnd(len(m.buf), RClosedAtEOF)
	m.looseEnd(RMissingCloser)
	m.refuseCut()
	switch m.lv {
	case lvValue, lvJSON, lvCall:
		if m.lv == lvCall {
			m.bareHeader(len(m.buf))
		}
		m.looseValue(len(m.buf))
		rep := RClosedAtEOF
		if m.call.spec.call != lexer.Unknown || m.lv != lvCall || !m.call.done {
			rep |= RMissingCloser
		}
		m.completeCall(len(m.buf), rep)
	}
	if m.lv == lvBlock {
		m.endBlock(len(m.buf))
	}
	m.settle()
}

// outCall returns the Call that calls are built in.
func (m *Machine) outCall() *Call {
	if m.out == nil {
		m.out = new(Call)
	}
	return m.out
}
