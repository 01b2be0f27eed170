package fsm

import (
	"bytes"
	"strings"

	"github.com/toolsieve/toolsieve/fsm/jsonscan"
	"github.com/toolsieve/toolsieve/lexer"
)

// Dialects without markers are opened by bytes of the text, their text
// openers (the table's opener.text): `{` a JSON call object (json), `[` an
// array of them (xlam) or a Python call list (pythonic), `functools[` an
// array after a word (phi4_mini). Such a call is only safe for declared
// tools. At a text opener the machine holds the text back in a probe that
// reads just far enough to see the first call's name: the first string
// member of {"name": N, ..} (also "tool", "function", "tool_name"), or the
// callee of [N(..]. If N is a declared tool, the held bytes are the start
// of the call and go on to the body's scanner (JSON or pythonic);
// otherwise they go back to the text. The body decides among the dialects
// that share an opener: '{' after '[' is an array of call objects, a name
// is a Python call. A probe holds at most maxProbe bytes and looks at each
// byte once; a byte that ends a probe and may open another starts the next
// probe itself.
//
// An opener that starts with a word counts only where the word starts (the
// byte before it is not a word byte). Text that ends in a prefix of such a
// word (`func`) is held back in a probe until the next bytes show whether
// the opener is complete.

const (
	maxProbe    = 256
	maxProbeKey = 16
	maxProbeVal = 64
)

// textOpener is one text opener of the table.
type textOpener struct {
	text  string
	spec  int   // table index of its dialect
	shape shape // the shape of its dialect's bodies
}

// opSet is a set of text openers, by index in probeTable.ops.
type opSet uint32

func (s opSet) has(k int) bool { return s&(1<<k) != 0 }

// probeTable is what the probes need of the table, built once.
type probeTable struct {
	ops    []textOpener
	all    opSet       // every text opener
	fenced opSet       // those that count in a fenced code block
	inWord [256]bool   // the bytes of the openers' words
	at     [256]uint16 // where in the openers' words a byte stands: bit i for position i
	words  []int       // the openers that start with a word
	word   int         // the longest word of an opener
	syms   []int       // the symbol openers (`>>>`, `**Tool Call:**`: probeline.go)
}

var pt = func() (t probeTable) {
	for i := range table {
		for _, op := range table[i].opens {
			if op.text == "" {
				continue
			}
			w, last := op.text[:len(op.text)-1], op.text[len(op.text)-1]
			sym := isSymbolOpener(op.text)
			if !sym && (last != '{' && last != '[' || strings.IndexFunc(w, func(r rune) bool { return r > 0x7f || !isIdentByte(byte(r)) }) >= 0) {
				panic("fsm: text opener " + op.text + " is not a word, then '{' or '[', nor a symbol opener")
			}
			if sym && (len(op.text) > maxWord || strings.IndexFunc(op.text, func(r rune) bool { return r > 0x7f }) >= 0) {
				panic("fsm: symbol opener " + op.text + " is not ASCII of at most 16 bytes")
			}
			for _, o := range t.ops {
				if o.text != op.text && (strings.HasPrefix(o.text, op.text) || strings.HasPrefix(op.text, o.text)) {
					panic("fsm: text opener " + op.text + " is a prefix of another") // dialects may share one
				}
			}
			k := len(t.ops)
			if k == 32 {
				panic("fsm: more text openers than a probe's set holds")
			}
			t.ops = append(t.ops, textOpener{text: op.text, spec: i, shape: table[i].shape})
			t.all |= 1 << k
			if table[i].fenced {
				t.fenced |= 1 << k
			}
			if sym {
				t.syms = append(t.syms, k)
				continue
			}
			if w != "" {
				t.words = append(t.words, k)
			}
			if len(w) > maxWord {
				panic("fsm: the word of text opener " + op.text + " is longer than 16 bytes")
			}
			for x, c := range []byte(w) {
				t.inWord[c] = true
				t.at[c] |= 1 << x
			}
			t.word = max(t.word, len(w))
		}
	}
	return t
}()

// textOpened reports whether text opens the dialect's units.
func (s *Spec) textOpened() bool {
	for _, op := range s.opens {
		if op.text != "" {
			return true
		}
	}
	return false
}

// isIdentByte reports whether c continues a word (an opener's word, or the
// word before one).
func isIdentByte(c byte) bool { return isWordByte(c) || '0' <= c && c <= '9' }

type probeState uint8

const (
	pOpener    probeState = iota // in a text opener
	pList                        // after '[': whitespace, then '{' or a callee
	pCallee                      // in a callee name
	pCalleeSp                    // spaces after a callee name: '('
	pKeyQuote                    // expect the quote that opens a key
	pKey                         // inside a key
	pColon                       // expect ':'
	pValQuote                    // expect the quote that opens a string value
	pVal                         // inside the value
	pComma                       // expect ',' before the next key
	pScalar                      // in a number or literal value (`null`, `1`) before the name
	pLooseName                   // after a line's loose call header (`call:`): the name, then '{' (looseline.go)
	pUKey                        // inside an unquoted key (loosekey.go)
	pShKey                       // a shell-style line call's key (shellcall.go)
	pShQuote                     // after its '=': the value's quote
	pShVal                       // inside the quoted value
	pShSp                        // after it: spaces, the next key or the line's end
	pName                        // after a name line's opener: the name, up to the line's end (probeline.go)
	pNameEnd                     // after the name's line: whitespace, then the '{' of the arguments
	pFence                       // after a label opener: whitespace, then a code fence (probeline.go)
	pBody                        // holding the rest of a call's JSON value (orphan.go)
	pAfter                       // holding whitespace after it
	pBareBlock                   // a line that may be a block opener without its '<' (bare.go)
	pBareEnd                     // after it: spaces, then the end of the line
	pBareNext                    // whitespace before the next line
	pBareCall                    // a line that may be a call opener without its '<'
)

// probeVerdict is what one byte tells a probe.
type probeVerdict uint8

const (
	pvMore       probeVerdict = iota // the byte is held; read on
	pvNot                            // not a call: the byte is not part of one
	pvName                           // the byte completed the first call's name
	pvFrame                          // the held bytes are a dialect's framing (functionary_v32's `>>>all\n`)
	pvShell                          // the byte ended a shell-style line call (shellcall.go)
	pvIfDeclared                     // the byte is held if the callee is a declared tool's name (declaredCallee)
)

// probe matches the start of a call in text one byte at a time.
type probe struct {
	state    probeState
	seen     int       // bytes stepped
	spec     *Spec     // the dialect of a symbol opener or a line call, once known
	output   bool      // it holds the output's first line (startsOutput)
	lineCall bool      // it holds the start of a line that may be a call (linecall.go)
	head     *Spec     // a line call's dialect whose lines start with a header (looseline.go)
	loose    bool      // the line is a loose call's: its name read, its '{' next
	ops      opSet     // the openers the bytes so far fit
	n        int       // bytes of the opener matched
	body     int       // offset in the held bytes of the body's first byte
	pre      int       // held bytes before the opener: a label line that anchors it (anchor.go)
	anchor   span      // in the held bytes: the declared tool's name the label gives
	cands    dset      // the dialects of the opener, once it is complete
	json     bool      // one of them writes JSON call objects
	py       bool      // one of them writes Python calls
	python   bool      // the body is a Python call list
	line     bool      // it started a line: a word that is not an opener may be a word line
	nest     nest      // the containers around the call object the probe reads (toolcalls.go)
	bare     bareLines // lines of markup written without '<' (bare.go)
	ukey     bool      // an unquoted key was read (loosekey.go)
	expr     exprPre   // what a line call's prefix held (callexpr.go)
	esc      bool      // in a skipped string value, after a backslash
	quote    byte
	key      [maxProbeKey]byte
	nkey     int
	val      [maxProbeVal]byte // the name: a string value or a callee
	nval     int
}

// step advances the probe by byte c.
func (p *probe) step(c byte) probeVerdict {
	p.seen++
	ws := isSpace(c)
	switch p.state {
	case pOpener:
		return p.opener(c)
	case pName, pNameEnd:
		return p.nameLine(c)
	case pFence:
		if !ws {
			return pvNot
		}
	case pList:
		switch {
		case c == ' ' || c == '\t' || ws && !p.lineCall: // a line call's prefix ends with its line (mayExprLine)
		case c == '{' && p.json:
			p.state = pKeyQuote
		case isWordByte(c) && p.py:
			p.val[0], p.nval, p.state = c, 1, pCallee
			if p.lineCall {
				p.body = p.seen - 1 // after a prefix (callexpr.go)
			}
		default:
			return pvNot
		}
	case pCallee:
		switch {
		case c == '.' && p.lineCall && p.namespace():
		case isIdentByte(c) || c == '.' || c == '-':
			if p.nval == maxProbeVal {
				return pvNot
			}
			p.val[p.nval] = c
			p.nval++
		case c == ' ' || c == '\t':
			p.state = pCalleeSp
			if p.lineCall && !p.spacedLead() {
				return pvIfDeclared // callexpr.go
			}
		case c == '(':
			return p.callParen()
		case c == ':' && p.headWord():
			p.state, p.nval = pLooseName, 0
		case c == ':' && p.lineCall:
			return p.labelEnd()
		default:
			return pvNot
		}
	case pLooseName:
		return p.looseName(c)
	case pCalleeSp:
		switch {
		case c == ' ' || c == '\t':
		case c == '(':
			return p.callParen()
		case isWordByte(c) && p.lineCall:
			return p.nextWord(c)
		default:
			return pvNot
		}
	case pKeyQuote:
		switch {
		case ws:
		case c == '"' || c == '\'':
			p.quote, p.nkey, p.state = c, 0, pKey
		case isWordByte(c) && p.nkey == 0: // the object's first key, unquoted (loosekey.go)
			p.key[0], p.nkey, p.state = c, 1, pUKey
		default:
			return pvNot
		}
	case pKey:
		switch {
		case c == p.quote:
			p.state = pColon
		case p.nkey < maxProbeKey:
			p.key[p.nkey] = c
			p.nkey++
		default:
			return pvNot
		}
	case pColon:
		switch {
		case ws:
		case c == ':':
			p.state = pValQuote
		default:
			return pvNot
		}
	case pValQuote:
		switch {
		case ws:
		case c == '"' || c == '\'':
			p.quote, p.nval, p.state = c, 0, pVal
		case p.enters(c):
		case isScalarByte(c) && c != '.' && c != '+':
			p.state = pScalar // a member before the name: {"id": 1, "content": null, ..}
		default:
			return pvNot // a call object names its tool first
		}
	case pVal:
		named := p.namesTool()
		switch {
		case p.esc:
			p.esc = false
		case c == p.quote:
			if named {
				return pvName
			}
			p.state = pComma
		case !named: // another member's value, skipped: {"content": "..", "name": ..}
			p.esc = c == '\\'
		case c == '\\' || p.nval == maxProbeVal:
			return pvNot
		default:
			p.val[p.nval] = c
			p.nval++
		}
	case pComma:
		switch {
		case ws:
		case c == ',':
			p.state = pKeyQuote
		default:
			return pvNot
		}
	case pUKey:
		return p.unquotedKey(c)
	case pShKey, pShQuote, pShVal, pShSp:
		return p.shellStep(c)
	case pScalar:
		switch {
		case ws:
			p.state = pComma
		case c == ',':
			p.state = pKeyQuote
		case !isScalarByte(c):
			return pvNot
		}
	}
	return pvMore
}

// namesTool reports whether the member being read names the call's tool.
func (p *probe) namesTool() bool {
	switch string(p.key[:p.nkey]) {
	case "name", "tool", "function", "tool_name":
		return true
	case "_name": // tgi, inside its "function" object
		return p.nest&nestFunction != 0
	}
	return false
}

// flat reports whether the name the probe read is a flat call object's
// (tgi's "_name"): its other members are the arguments.
func (p *probe) flat() bool { return string(p.key[:p.nkey]) == "_name" }

// resetJSON prepares the JSON scanner for a new body.
func (m *Machine) resetJSON() {
	if m.json == nil {
		m.json = new(jsonscan.Scanner)
	}
	m.json.Reset()
}

// probing reports whether a '{' in text may start a json-dialect call.
// opener matches byte c against the openers still possible. Once one is
// complete (no opener is a prefix of another), its last byte starts the
// body.
func (p *probe) opener(c byte) probeVerdict {
	var next, done opSet
	for k, o := range pt.ops {
		if !p.ops.has(k) || p.n >= len(o.text) || o.text[p.n] != c {
			continue
		}
		next |= 1 << k
		if len(o.text) == p.n+1 {
			done |= 1 << k
		}
	}
	p.n++
	p.ops = next
	switch {
	case next == 0:
		return pvNot
	case done == 0:
		return pvMore
	}
	p.body = p.pre + p.n - 1
	for k, o := range pt.ops {
		if done.has(k) {
			p.cands |= 1 << o.spec
			p.json = p.json || o.shape == shProbe
			p.py = p.py || o.shape == shPython
		}
	}
	if s := p.cands.only(); s != nil && isSymbolOpener(pt.ops[bitsIndex(done)].text) {
		p.symbolAfter(s)
		return pvMore
	}
	if c == '{' {
		p.state, p.nest = pKeyQuote, nestTop
	} else {
		p.state = pList
	}
	return pvMore
}

// inString reports whether the probe is inside a JSON string: a marker
// arriving now is string content.
func (p *probe) inString() bool { return p.state == pKey || p.state == pVal || p.state == pShVal }

// probing reports whether text openers are probed here: in text and in a
// fenced code block, not in a code span.
func (m *Machine) probing() bool {
	return (m.ix.probes || m.ix.free != 0) && m.code != codeSpan
}

// probeOps are the text openers that count here: without declared tools,
// those of the dialects that need none (free) outside code, and the
// orphan bodies' (orphan.go).
func (m *Machine) probeOps() opSet {
	if !m.ix.probes {
		if m.code != codeNone {
			return orphanOps
		}
		return orphanOps | m.ix.free
	}
	if m.code == codeFence {
		if !m.fence.mayOpen() {
			return 0 // code: not the whole body of a json fence
		}
		return pt.fenced
	}
	return pt.all
}

// byteBefore is the input byte before b[j] (b is the text being handled).
func (m *Machine) byteBefore(b []byte, j int) byte {
	if j > 0 {
		return b[j-1]
	}
	return m.prev
}

// probeAt returns where a probe starts in text b: at its first text
// opener, or at a prefix of an opener's word that ends b; -1 if nowhere.
func (m *Machine) probeAt(b []byte) int {
	ops := m.probeOps()
	if !m.ix.probes {
		ops &= m.ix.free // no orphan bodies here: those start lines (openerAt)
	}
	var ends [8]byte // the last bytes of the openers of ops
	ne := 0
	for k, o := range pt.ops {
		if !ops.has(k) || ne == len(ends) {
			continue
		}
		c, seen := o.text[len(o.text)-1], false
		for _, e := range ends[:ne] { // a loop, not a call: this runs for every text token
			seen = seen || e == c
		}
		if !seen {
			ends[ne] = c
			ne++
		}
	}
	for from := 0; from < len(b); {
		i, lim := -1, len(b)
		for _, c := range ends[:ne] {
			if n := bytes.IndexByte(b[from:lim], c); n >= 0 {
				i = from + n
				lim = i
			}
		}
		if i < 0 {
			break
		}
		if j := m.openerEnding(b, i, ops); j >= 0 {
			return j
		}
		from = i + 1
	}
	if j := symbolTail(b, ops); j >= 0 {
		return j
	}
	if m.ix.leads {
		return m.leadTail(b, ops)
	}
	return -1
}

// openerEnding returns the start of the longest opener of ops that ends
// with b[i], or -1.
func (m *Machine) openerEnding(b []byte, i int, ops opSet) int {
	best := -1
	for k, o := range pt.ops {
		t := o.text
		if !ops.has(k) || t[len(t)-1] != b[i] {
			continue
		}
		j := i + 1 - len(t)
		if j < 0 || string(b[j:i]) != t[:len(t)-1] || len(t) > 1 && !isSymbolOpener(t) && isIdentByte(m.byteBefore(b, j)) {
			continue
		}
		if best < 0 || j < best {
			best = j
		}
	}
	return best
}

// leadTail returns the start of the word ending b if it is a prefix of an
// opener's word (`func` of `functools[`), or -1.
func (m *Machine) leadTail(b []byte, ops opSet) int {
	j := len(b)
	for j > 0 && isIdentByte(b[j-1]) {
		if !pt.inWord[b[j-1]] || len(b)-j == pt.word {
			return -1
		}
		j--
	}
	if j == len(b) || isIdentByte(m.byteBefore(b, j)) {
		return -1
	}
	w := b[j:]
	for _, k := range pt.words {
		if t := pt.ops[k].text; ops.has(k) && len(t) > len(w) && t[:len(w)] == string(w) {
			return j
		}
	}
	return -1
}

// mayEndWord is a quick test of whether b may end in a prefix of an
// opener's word: its last byte starts a word, or its last two bytes stand
// next to each other in one.
func (t *probeTable) mayEndWord(b []byte) bool {
	at := t.at[b[len(b)-1]]
	return at&1 != 0 || len(b) > 1 && t.at[b[len(b)-2]]&(at>>1) != 0
}

// opensProbe reports whether b[i], which ended a probe, opens another.
func (m *Machine) opensProbe(b []byte, i int) bool {
	var prev byte
	switch {
	case i > 0:
		prev = b[i-1]
	case len(m.buf) > 0:
		prev = m.buf[len(m.buf)-1]
	default:
		return false // the probe's own first byte
	}
	if !m.ix.probes && prev != '\n' || prev == '{' && b[i] == '{' {
		return false // an orphan probe starts a line; `{{` is a template's brace, in prose
	}
	ops := m.probeOps()
	for k, o := range pt.ops {
		if ops.has(k) && o.text[0] == b[i] && (len(o.text) == 1 || isSymbolOpener(o.text) || !isIdentByte(prev)) {
			return true
		}
	}
	return false
}

// startProbe holds back text from a text opener on; line: the opener
// starts a line.
func (m *Machine) startProbe(off int64, line bool) {
	m.buf = m.buf[:0]
	m.bufOff = off
	m.names = m.names[:0]
	if m.probe == nil {
		m.probe = new(probe)
	}
	*m.probe = probe{ops: m.probeOps(), line: line && m.code == codeNone}
	m.resetJSON()
	m.lv = lvProbe
}

// probeText gives the held bytes back as text.
func (m *Machine) probeText() {
	if len(m.buf) > 0 {
		m.atLine = m.buf[len(m.buf)-1] == '\n'
	}
	m.toText()
}

// wordLineFrom turns a probe that held a lower-case word at a line start
// (its bytes, then b), not an opener after all, into a held word line (see
// wordLine), as if the text had not been probed.
func (m *Machine) wordLineFrom(b []byte) bool {
	p := m.probe
	if !p.line || p.state != pOpener && p.state != pBareBlock && !p.lineCall || len(m.buf)+len(b) > maxWordLine || len(m.buf)+len(b) == 0 ||
		len(m.buf) > 0 && !isLowerWord(m.buf) || len(b) > 0 && !isLowerWord(b) {
		return false
	}
	m.add(b)
	m.held = append(m.held[:0], m.buf...)
	m.heldOff = m.bufOff
	m.wl = wlWord
	m.bufOff += int64(len(m.buf))
	m.buf = m.buf[:0]
	m.lv = lvText
	return true
}

// textInProbe feeds held-back bytes to the probe.
func (m *Machine) textInProbe(b []byte) int {
	switch {
	case m.probe.state >= pBareBlock:
		return m.textBare(b)
	case m.probe.state >= pBody:
		return m.textHeld(b)
	}
	for i, c := range b {
		v := m.probe.step(c)
		if v == pvIfDeclared {
			v = m.declaredCallee()
		}
		if v == pvMore && len(m.buf)+i+1 <= maxProbe {
			continue
		}
		if v == pvNot && m.curlyFrom(b[:i], c) { // curly.go
			return i
		}
		if m.mayBeBareArgs(v) { // arguments whose tool only prose names (bareargs.go)
			if m.add(b[:i+1]) {
				m.openBareArgs()
			}
			return i + 1
		}
		if v == pvShell { // shellcall.go
			if m.add(b[:i+1]) && !m.shellCall() {
				m.probeText()
			}
			return i + 1
		}
		if v == pvFrame {
			if m.add(b[:i+1]) {
				m.probeFrame()
			}
			return i + 1
		}
		if v == pvNot && m.probe.output {
			return m.replayOutput(b) // the output's first line was no name line
		}
		if v == pvNot && m.ix.lineCalls && m.lineStartAt(b, i) {
			if m.add(b[:i]) { // c starts a line that may be a call: it goes on at the text level
				m.probeText()
			}
			return i
		}
		if v == pvNot && m.opensProbe(b, i) {
			// The held bytes are text; c opens the next probe.
			if !m.add(b[:i]) {
				return i
			}
			m.probeText()
			m.startProbe(m.textOff+int64(i), m.atLine)
			m.probe.step(c)
			m.add(b[i : i+1])
			return i + 1
		}
		if v == pvNot && m.bareFrom(b[:i]) {
			return i + m.textBare(b[i:]) // c goes on with a line that may be markup without '<'
		}
		if v == pvNot && m.wordLineFrom(b[:i]) {
			return i // c goes on with the word line
		}
		if !m.add(b[:i+1]) {
			return i + 1
		}
		if v == pvName && m.ix.orphans {
			m.holdBody()
			return i + 1
		}
		if v == pvName && m.opt.Declared(m.probe.val[:m.probe.nval]) && m.openProbed() {
			return i + 1
		}
		m.probeText()
		return i + 1
	}
	m.add(b)
	return len(b)
}

// openProbed opens the call whose start the probe found (its bytes are
// m.buf). It reports false if no dialect of the opener writes such a body.
func (m *Machine) openProbed() bool {
	p := m.probe
	if p.loose {
		return m.openLooseLine() // looseline.go
	}
	sh := shProbe
	if p.python {
		sh = shPython
	}
	var s *Spec
	for cands := p.cands; cands != 0 && s == nil; cands &= cands - 1 {
		if c := cands.first(); c.shape == sh && (c.flat != "") == p.flat() {
			s = c
		}
	}
	if s == nil {
		return false
	}
	if sh == shPython {
		m.blk = block{cands: specSet(s), spec: s, implicit: true}
		m.startPy(s, p.body)
		return true
	}
	if s.nameLine { // the name was the line's, the body is the arguments
		m.names = m.names[:0]
		m.openProbedJSON(s, call{loose: -1, name: m.keepName(p.val[:p.nval])})
		return true
	}
	m.openProbedJSON(s, call{jsonEnv: true, loose: -1})
	return true
}

// openProbedJSON opens an implicit block of dialect s whose call c reads
// its JSON body from the probe's held bytes.
func (m *Machine) openProbedJSON(s *Spec, c call) {
	m.blk = block{cands: specSet(s), spec: s, implicit: true}
	m.call = c
	m.setDialect(s)
	m.lv = lvJSON
	m.jheld = 0
	m.call.jsonAt = m.probe.body
	if m.jw != nil {
		*m.jw = jsonWalk{} // a new body: the walk of the last one is over
	}
	m.json.Write(m.buf[m.probe.body:])
	if m.json.Done() || m.json.Failed() {
		m.finishJSON()
		m.jsonEnded()
	}
}

// tagInProbe handles a marker met while probing: inside a JSON string it
// is string content; after a held call body it may be the orphan closer
// that makes it a call (orphan.go). Otherwise the held bytes were text, and
// it reports false: the marker is then handled at the text level.
func (m *Machine) tagInProbe(t *lexer.Token) bool {
	p := m.probe
	switch {
	case p.inString() || p.state == pBody && m.json.InString():
		m.textOff = t.Offset
		m.text(t.Raw)
		return true
	case m.closeHeld(t), m.bareOpener(t), m.fenceOpens(t), m.probedWordKey(t): // wordkey.go
		return true
	case p.output: // the output's first line was no name line: it may be a word line
		m.replayOutput(nil)
		return m.lv == lvProbe && m.tagInProbe(t)
	}
	m.probeText()
	return false
}
