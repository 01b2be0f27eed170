package fsm

import (
	"bytes"
	"slices"
	"strings"

	"github.com/toolsieve/toolsieve/lexer"
)

// Models sometimes drop the '<' of their markup, from one tag to every
// tag of a block:
//
//	function_calls>
//	invoke name="get_weather">
//	parameter name="city">SF/parameter>
//	/invoke>
//	/function_calls>
//
// In text such lines are only markup when they say so unambiguously: a
// line that is a block opener of a dialect with call elements, alone
// (`function_calls>`), and then, as the next line, one of its call
// openers with the call's name (`invoke name="get_weather">`, written with
// or without its '<'). The first line is held (a probe of its own kind,
// see probe.go) until the second decides; prose that mentions
// `invoke name=` stays text. Inside markup, where loose text is judged
// anyway, a segment that is a whole opener without its '<' acts as the
// opener, and a closer `/invoke>` as the closer (corruptCloser). The call
// carries missing_bracket.

// maxBare bounds the bytes held for the two lines.
const maxBare = 512

// bareDialects are the dialects whose markup may be written without '<':
// a tag wrapper around tag call elements.
var bareDialects = dialectsWhere(func(s *Spec) bool {
	return s.shape == shXML && s.block != lexer.Unknown && !s.block.IsSpecial() && s.call != lexer.Unknown && !s.call.IsSpecial()
})

// bareNames are the names a block opener line may spell, in the lexer's
// folded spelling, and bareNS the namespaces it may carry; bareFirst marks
// the bytes such a line may start with. A line is held only while its
// first word may still become one of them.
var bareNames, bareNS, bareFirst = func() (names, ns []string, first [256]bool) {
	for i := range table {
		if !bareDialects.has(i) {
			continue
		}
		for _, op := range table[i].opens {
			if op.role != rBlockOpen || op.marker.IsSpecial() {
				continue
			}
			for _, n := range lexer.TagNames(op.marker) {
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
			if op.ns != "" && !slices.Contains(ns, op.ns) {
				ns = append(ns, op.ns)
			}
		}
	}
	for _, w := range append(slices.Clone(names), ns...) {
		first[w[0]] = true
	}
	first['|'], first[0xEF], first[0xE2] = true, true, true // bars: ASCII, U+FF5C, U+2016
	return names, ns, first
}()

// heldLead marks the bytes a line that may be held starts with: a word
// line (lower case) or a line without '<' (lower case, or a bar).
var heldLead = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c, ok := range bareFirst {
		t[c] = t[c] || ok
	}
	return t
}()

// maxBareWord bounds a block opener line's name.
const maxBareWord = 32

// bareLines is what a probe keeps of the lines it holds.
type bareLines struct {
	word     [maxBareWord]byte // the block opener's name so far, folded
	nw       int
	rec      lexer.Bare
	cands    dset // the dialects the block opener line may start
	variants dset
	open     markerInfo
	call     int  // start in m.buf of the call opener line
	calls    bool // tools are declared: the line may be a call opener (barecall.go)
	eol      bool // its '>' was lost too: the line's end ends the tag (markline.go)
	tags     bool // the line may be a declared tool's tag (toolline.go)
}

// openerKind is what may start where openerAt found a unit.
type openerKind uint8

const (
	atProbe    openerKind = iota // a text opener, or the call body of an orphan closer (probe.go, orphan.go)
	atBare                       // a line without '<'
	atLineCall                   // a call on a line of its own (lineCall.go)
	atBareLine                   // a DSML marker line without its brackets (markline.go)
)

// openerAt returns where a unit of markup may start in text b, and what
// may start there. One pass over the line starts looks for lines without
// '<', orphan call bodies and line calls.
func (m *Machine) openerAt(b []byte) (int, openerKind) {
	i := -1
	if m.probing() {
		i = m.probeAt(b)
	}
	bare := m.code == codeNone && m.bareOn()
	orphans := m.code == codeNone && m.ix.orphans
	calls := m.code == codeNone && m.ix.lineCalls
	if !bare && !orphans && !calls {
		return i, atProbe
	}
	lim := len(b)
	if i >= 0 {
		lim = i
	}
	for j := 0; j < lim; {
		if c := b[j]; j > 0 || m.atLine {
			if orphans && (c == '{' || c == '[') {
				return j, atProbe
			}
			if bare && markLead[c] && m.mayMarkLine(b[j:]) {
				return j, atBareLine
			}
			if bare && (bareFirst[c] && m.mayBeBare(b[j:]) || m.mayToolLine(b[j:])) {
				return j, atBare
			}
			if calls && m.mayLineCall(b[j:]) {
				return j, atLineCall
			}
		}
		k := bytes.IndexByte(b[j:lim], '\n')
		if k < 0 {
			break
		}
		j += k + 1
	}
	return i, atProbe
}

// bareOn reports whether lines without '<' are looked for: a dialect
// that may be written so is on, and the call cap leaves room for the lines.
func (m *Machine) bareOn() bool {
	return m.ix.on&bareDialects != 0 && m.opt.MaxCall >= maxBare
}

// mayBeBare reports whether the line starting b may be a block opener
// without '<', as far as b shows: text that cannot be one is not held, so
// that it goes on in one piece.
func (m *Machine) mayBeBare(b []byte) bool {
	if m.probe == nil {
		m.probe = new(probe)
	}
	l := &m.probe.bare
	l.nw, l.calls = 0, m.opt.Declared != nil
	l.rec.Reset(true)
	for _, c := range b {
		switch l.rec.Step(c) {
		case lexer.BareDone:
			return true
		case lexer.BareFail:
			return false
		}
		if l.rec.InName() && !l.nameByte(c) || !l.rec.InName() && !l.attrsOK() {
			return false
		}
	}
	return true
}

// bareFrom turns a probe that held the start of a line as a word opener
// (`funct` of `functools[`), not one after all, into one of a line
// without '<' (`function_calls>`) when its bytes, then b, may be one.
func (m *Machine) bareFrom(b []byte) bool {
	p := m.probe
	if p.state != pOpener || !p.line || !m.bareOn() {
		return false
	}
	held := len(m.buf)
	if held+len(b) > m.opt.MaxCall || !m.add(b) {
		return false
	}
	if !m.mayBeBare(m.buf) {
		m.buf = m.buf[:held]
		return false
	}
	m.startBare(false)
	for _, c := range m.buf { // a few bytes of a word: read again as the line's start
		p.bare.rec.Step(c)
		if p.bare.rec.InName() {
			p.bare.nameByte(c)
		}
	}
	return true
}

// startBare makes the probe just started one of a line without '<', or
// with eol one of a DSML marker line without its brackets.
func (m *Machine) startBare(eol bool) {
	p := m.probe
	p.state = pBareBlock
	p.line = true
	p.bare.nw, p.bare.calls, p.bare.eol, p.bare.tags = 0, m.opt.Declared != nil, eol, !eol && m.toolLines()
	p.bare.reset()
}

// reset starts reading the next line's tag.
func (l *bareLines) reset() {
	if l.eol {
		l.rec.ResetBarLost()
		return
	}
	l.rec.Reset(l.calls)
}

// nameByte follows the name of a block opener line by one byte c of it,
// and reports whether the name may still become one that opens a block.
func (l *bareLines) nameByte(c byte) bool {
	switch {
	case c == ':': // a namespace prefix
		ok := slices.Contains(bareNS, string(l.word[:l.nw]))
		l.nw = 0
		return ok
	case c == '-':
		c = '_'
	case c >= 'A' && c <= 'Z':
		c += 'a' - 'A'
	}
	if l.nw == len(l.word) {
		return false
	}
	l.word[l.nw] = c
	l.nw++
	w := string(l.word[:l.nw])
	for _, n := range bareNames {
		if strings.HasPrefix(n, w) {
			return true
		}
	}
	for _, n := range bareNS {
		if strings.HasPrefix(n, w) {
			return true
		}
	}
	return l.calls && callPrefix(w)
}

// textBare holds the lines of a possible block written without '<'.
func (m *Machine) textBare(b []byte) int {
	p := m.probe
	for i := 0; i < len(b); i++ {
		c := b[i]
		if len(m.buf)+i >= maxBare {
			return m.bareText(b, i)
		}
		switch p.state {
		case pBareBlock, pBareCall:
			end := i + 1
			var v lexer.BareVerdict
			if c == '\n' && p.bare.eol { // the line's end stands for the lost '>'
				start := 0
				if p.state == pBareCall {
					start = p.bare.call
				}
				v, end = m.markLineEnd(start, b[:i]), i // markline.go
			} else if p.state == pBareBlock && p.bare.eol && !m.markPrefixSoFar(b[:i+1]) {
				v = m.bareFromMark(b[:i+1]) // markline.go
			} else if v = p.bare.rec.Step(c); v == lexer.BareMore && p.state == pBareBlock && (p.bare.rec.InName() && !p.bare.nameByte(c) && !(p.bare.tags && m.toolLineSoFar(b[:i+1])) || !p.bare.rec.InName() && !p.bare.attrsOK() && !(p.bare.eol && isSpace(c))) {
				v = lexer.BareFail
			}
			switch v {
			case lexer.BareMore:
				continue
			case lexer.BareFail:
				if p.state == pBareBlock && m.lineCallFrom(b, i) {
					return i + m.textInProbe(b[i:]) // the line may be a call of a declared tool
				}
				if p.state == pBareBlock && m.wordLineFrom(b[:i]) {
					return i // a lower-case word alone: maybe a mangled wrapper
				}
				return m.bareText(b, i)
			}
			if !m.add(b[:end]) {
				return end
			}
			if p.state == pBareBlock {
				if !m.bareBlock() {
					m.probeText()
				} else if end == i && m.add(b[i:i+1]) { // the newline that ended a marker line (markline.go)
					p.state, end = pBareNext, i+1
				}
			} else if !m.bareCall() {
				m.probeText()
			}
			return end
		case pBareEnd:
			switch c {
			case ' ', '\t', '\r':
			case '\n':
				p.state = pBareNext
			default:
				return m.bareText(b, i)
			}
		case pBareNext:
			if !isSpace(c) {
				p.state = pBareCall
				p.bare.call = len(m.buf) + i
				p.bare.rec.Reset(true)
				if p.bare.eol {
					p.bare.reset()
				}
				i-- // c starts the line
			}
		}
	}
	m.add(b)
	return len(b)
}

// bareText gives the held lines and b[:i] back as text, with the rest of
// a character that b[i] is part of.
func (m *Machine) bareText(b []byte, i int) int {
	for i < len(b) && b[i]&0xC0 == 0x80 {
		i++
	}
	if m.add(b[:i]) {
		m.probeText()
	}
	return i
}

// bareBlock judges the block opener line, all of m.buf: it must open a
// wrapper of a dialect with call elements.
func (m *Machine) bareBlock() bool {
	p := m.probe
	t := p.bare.rec.Token(m.buf)
	if t.Kind != lexer.Tag || t.Flags&(lexer.Closing|lexer.SelfClosing) != 0 || p.bare.eol && !t.Has(lexer.DSML) {
		return false
	}
	cands, variants, r := m.openersOf(t)
	if m.bareCallLine(t, cands, r) || !p.bare.eol && m.toolLine(t) {
		return true
	}
	if r != rBlockOpen || cands&bareDialects == 0 {
		return false
	}
	p.bare.cands, p.bare.variants, p.bare.open = cands&bareDialects, variants&bareDialects, infoOf(t)
	p.state = pBareEnd
	return true
}

// bareCall judges the call opener line at the end of m.buf.
func (m *Machine) bareCall() bool {
	t := m.probe.bare.rec.Token(m.buf[m.probe.bare.call:])
	if m.probe.bare.eol && !t.Has(lexer.DSML) {
		return false
	}
	return m.openBare(t, m.probe.bare.call)
}

// bareOpener handles a tag that comes as the line after a block opener
// written without '<' (`function_calls>\n<invoke name="x">`). It reports
// whether it took t.
func (m *Machine) bareOpener(t *lexer.Token) bool {
	if s := m.probe.state; s != pBareEnd && s != pBareNext {
		return false
	}
	n := len(m.buf)
	if m.callOf(m.probe.bare.cands, t) == nil {
		return false
	}
	if !m.add(t.Raw) {
		return true // past the call cap: the machine stopped
	}
	if !m.openBare(t, n) {
		m.buf = m.buf[:n]
		return false
	}
	return true
}

// callOf returns the dialect among cands whose named call element t
// opens, or nil.
func (m *Machine) callOf(cands dset, t *lexer.Token) *Spec {
	if t.Kind != lexer.Tag || t.Flags&(lexer.Closing|lexer.SelfClosing) != 0 {
		return nil
	}
	s := choose(cands, t.Marker, t.Has(lexer.DSML), shNone)
	if s == nil || s.call != t.Marker {
		return nil
	}
	switch s.name {
	case nameAttr:
		if !hasAttr(s, t) {
			return nil
		}
	case nameValue:
		if len(t.Value) == 0 {
			return nil
		}
	}
	return s
}

// openBare opens the block whose opener line the probe holds and its call
// at opener t, whose bytes are m.buf[at:]. It reports false, changing
// nothing, when t is not a call opener of the block.
func (m *Machine) openBare(t *lexer.Token, at int) bool {
	p := m.probe
	if m.callOf(p.bare.cands, t) == nil {
		return false
	}
	m.blk = block{cands: p.bare.cands, variants: p.bare.variants, spec: p.bare.cands.only(), open: p.bare.open, eol: p.bare.eol}
	m.lv = lvBlock
	m.strays = 0
	m.tagInBlock(t, at)
	if m.lv == lvCall {
		m.call.repairs |= RMissingBracket
	}
	return true
}

// bareInMarkup acts on loose text inside markup, buf[start:end] (the end
// of m.buf), that is a whole opener written without '<': a call opener in
// a block, an argument's opener in a call. It reports whether it did.
func (m *Machine) bareInMarkup(start, end int) bool {
	if end != len(m.buf) || m.lv != lvBlock && m.lv != lvCall {
		return false
	}
	t := m.bareTag(m.buf[start:end])
	if t == nil || !m.bareFits(t, m.lv) {
		return false
	}
	m.tagInMarkup(t)
	if m.lv >= lvCall {
		m.call.repairs |= RMissingBracket
	}
	return true
}

// bareOpenerAt reports whether buf[start:], text after an argument's
// closer, is the opener of the call's next argument written without '<'.
func (m *Machine) bareOpenerAt(start int) bool {
	t := m.bareTag(m.buf[start:])
	return t != nil && m.bareFits(t, lvCall)
}

// bareTag reads s as one opener written without its '<', or returns nil.
// The token is valid until the next bareTag.
func (m *Machine) bareTag(s []byte) *lexer.Token {
	if len(s) < 2 || s[len(s)-1] != '>' {
		return nil
	}
	if m.probe == nil {
		m.probe = new(probe)
	}
	rec := &m.probe.bare.rec
	rec.Reset(true)
	for i, c := range s {
		if v := rec.Step(c); v == lexer.BareFail || v == lexer.BareDone && i < len(s)-1 {
			return nil
		}
	}
	t := rec.Token(s)
	if t.Kind != lexer.Tag || t.Marker == lexer.Unknown || t.Flags&(lexer.Closing|lexer.SelfClosing) != 0 {
		return nil
	}
	return t
}

// bareFits reports whether opener t, written without '<', opens what may
// come at level lv: a named call in a block, an argument in a call.
func (m *Machine) bareFits(t *lexer.Token, lv level) bool {
	switch r := m.roleIn(t, lv); {
	case lv == lvBlock && r == rCallOpen:
		return m.callOf(m.blk.cands, t) != nil
	case lv == lvCall:
		return r == rParamOpen || r == rKeyOpen || r == rValOpen
	}
	return false
}

// bareCloserAt reports where a closer written without its '<' starts
// when its name starts at b[w]: at its '/' (`/invoke>`), with a DSML
// prefix on either side of the slash (`/｜DSML｜invoke>`).
func bareCloserAt(b []byte, w int) (int, bool) {
	i := dsmlBefore(b, w)
	if i == 0 || b[i-1] != '/' {
		return 0, false
	}
	return dsmlBefore(b, i-1), true
}

// dsmlBefore returns where a DSML prefix (`｜DSML｜`, `|DSML|`) ending at
// b[i] starts, or i when none does.
func dsmlBefore(b []byte, i int) int {
	j := barsBefore(b, i)
	if j == i || j < 4 || !equalFold(b[j-4:j], "DSML") {
		return i
	}
	if k := barsBefore(b, j-4); k < j-4 {
		return k
	}
	return i
}

// barsBefore returns where the run of bars ending at b[i] starts.
func barsBefore(b []byte, i int) int {
	for n := 0; i > 0 && n < 4; n++ {
		switch {
		case b[i-1] == '|':
			i--
		case i >= 3 && (string(b[i-3:i]) == "｜" || string(b[i-3:i]) == "‖"):
			i -= 3
		default:
			return i
		}
	}
	return i
}

// closerRepair is the repair of a misspelt closer found in loose text at
// buf[start:end]: missing_bracket when it is the closer without its '<'
// (`/invoke>`), else corrupted_closer (`invfunction_calls>`).
func (m *Machine) closerRepair(start, end int) Repairs {
	w := trailingWord(m.buf[start : end-1])
	if s, ok := bareCloserAt(m.buf, end-1-len(w)); ok && s == start {
		return RMissingBracket
	}
	return RCorruptedCloser
}
