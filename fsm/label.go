package fsm

import (
	"bytes"
	"unicode/utf8"

	"github.com/toolsieve/toolsieve/lexer"
)

// Agent harnesses print a tool call in a transcript as a label line,
// `[Tool Use: NAME]` or `[Calling tool: NAME]` (labelPrefixes), followed
// by its arguments; models that read such transcripts write the label
// themselves, then bare argument elements:
//
//	[Tool Use: read_file]
//	<parameter name="path">src/a.go</parameter>
//
// A label at a line start (not in code) is held back, up to its ']' and
// the whitespace after it. If the next token opens an argument element of
// a dialect (`<parameter name="K">`, `<parameter=K>`, DSML's; with
// declared tools, a child tag that is a parameter of the declared tool
// NAME), the label opens a call named NAME of that dialect, with
// misplaced_name. Anything else gives the held bytes back to the text, as
// if they had not been held.
//
// The call has no closer of its own: it ends after an argument's closer
// at the first thing that is not the next argument (text, other markup,
// the end of input), or at the closer of the element it lacks
// (`</invoke>`).

const (
	maxLabelName = 64
	maxLabelWait = 64 // whitespace held after the ']'
)

// labelPrefixes open a label line, matched without regard to case and with
// '_' for a space. The first is the harness's own; the others
// (transcripts of Hermes, Open WebUI, Cline: `[Calling tool: NAME]`) name
// a call only when NAME is a declared tool (labelNames), and the call
// carries inferred_call: its keys must fit the tool.
var labelPrefixes = [...]string{"[tool use:", "[calling tool:", "[tool call:", "[using tool:"}

type labelState uint8

const (
	lbNone    labelState = iota
	lbPrefix             // in one of labelPrefixes
	lbSpace              // spaces before the name
	lbName               // the name
	lbAfter              // spaces after the name
	lbWait               // after the ']': whitespace, then the next token decides
	lbAnchor             // another label line: held up to a '{' (anchor.go)
	lbTagName            // after a <name> tag: the name, then blanks (nametag.go)
	lbCurly              // an anchored object in typographic quotes (curly.go)
)

// label is a label line being held back.
type label struct {
	state  labelState
	n      int    // bytes of a label prefix matched
	live   uint8  // lbPrefix: the labelPrefixes still matching, as bits; then the one matched
	held   []byte // the label's bytes so far
	off    int64  // input offset of held[0]
	name   span   // in held
	wait   int    // whitespace bytes after the ']'
	replay bool   // held bytes are being given back: no label starts
	spaced bool   // lbAnchor: a space or ':' was held (a label, not a call expression)
	cu     curly  // lbCurly: the object (curly.go)
}

// step advances the label by byte c, the held byte at position pos. It
// reports false when c cannot continue it.
func (l *label) step(c byte, pos int) bool {
	switch l.state {
	case lbPrefix:
		return l.stepPrefix(c)
	case lbSpace:
		switch {
		case c == ' ' || c == '\t':
		case isLabelNameByte(c):
			l.state, l.name = lbName, span{pos, pos + 1}
		default:
			return false
		}
	case lbName:
		switch {
		case isLabelNameByte(c) && l.name.b-l.name.a < maxLabelName:
			l.name.b++
		case c == ' ' || c == '\t':
			l.state = lbAfter
		case c == ']':
			l.state = lbWait
		default:
			return false
		}
	case lbAfter:
		switch c {
		case ' ', '\t':
		case ']':
			l.state = lbWait
		default:
			return false
		}
	case lbTagName:
		return l.stepTagName(c, pos) // nametag.go
	case lbWait:
		if !isSpace(c) || l.wait == maxLabelWait {
			return false
		}
		l.wait++
	}
	return true
}

// stepPrefix advances the match of the label prefixes by c.
func (l *label) stepPrefix(c byte) bool {
	live := uint8(0)
	for i, p := range labelPrefixes {
		if l.live&(1<<i) == 0 || l.n >= len(p) {
			continue
		}
		if want := p[l.n]; lower(c) == want || want == ' ' && c == '_' {
			live |= 1 << i
			if l.n+1 == len(p) {
				l.state, l.live = lbSpace, 1<<i
				l.n++
				return true
			}
		}
	}
	l.live = live
	l.n++
	return live != 0
}

// labelNames reports whether the held label may name its call: its
// prefix is the harness's own, or its name is a declared tool.
func (m *Machine) labelNames() bool {
	return m.lbl.live == 1 || m.declared(m.lbl.held[m.lbl.name.a:m.lbl.name.b])
}

func isLabelNameByte(c byte) bool {
	return isIdentByte(c) || c == '-' || c == '.' || c == ':'
}

// labelHeld reports whether a label is being held.
func (m *Machine) labelHeld() bool { return m.lbl != nil && m.lbl.state != lbNone }

// startsLabel reports whether text b, at the text level, starts a label.
func (m *Machine) startsLabel(b []byte) bool {
	return b[0] == '[' && m.atLine && m.code == codeNone && (m.lbl == nil || !m.lbl.replay)
}

// textLabel feeds text to the label being held.
func (m *Machine) textLabel(b []byte) int {
	if m.lbl == nil {
		m.lbl = new(label)
	}
	if m.lbl.state == lbNone {
		*m.lbl = label{state: lbPrefix, held: m.lbl.held[:0], off: m.textOff, live: 1<<len(labelPrefixes) - 1}
	}
	if m.lbl.state == lbAnchor && !mayAnchor(b, len(m.lbl.held)) { // the line ends with no '{'
		return m.anchorEnds(b)
	}
	for i, c := range b {
		if m.lbl.state == lbCurly {
			if n, ok := m.curlyText(b, i); ok {
				return n
			}
			continue
		}
		if m.lbl.state == lbAnchor {
			if n, ok := m.anchorLabel(b, i); ok {
				return n
			}
			continue
		}
		if m.lbl.step(c, len(m.lbl.held)+i) {
			continue
		}
		if (m.lbl.state < lbWait || m.lbl.state == lbWait && c == '{') && m.anchorsLabels() && mayAnchor(b[i:], len(m.lbl.held)+i) {
			// no label of argument elements: it may name a tool before its arguments object
			m.lbl.state = lbAnchor
			m.lbl.spaced = bytes.ContainsAny(m.lbl.held, " :") || bytes.ContainsAny(b[:i], " :")
			if n, ok := m.anchorLabel(b, i); ok {
				return n
			}
			continue
		}
		// Not a label: the held bytes and c (a whole character) are text.
		j, _ := m.giveBackThrough(b, i)
		return j
	}
	m.lbl.held = append(m.lbl.held, b...)
	return len(b)
}

// giveBackThrough gives the held label back as text with b up to the
// end of the character b[i] begins (a decision never splits one), and
// returns how many bytes of b it took, and true: the label was decided.
func (m *Machine) giveBackThrough(b []byte, i int) (int, bool) {
	j := i + 1
	for j < len(b) && !utf8.RuneStart(b[j]) {
		j++
	}
	m.lbl.held = append(m.lbl.held, b[:j]...)
	m.giveBackLabel()
	return j, true
}

// giveBackLabel hands the held bytes to the text level, as if they had
// not been held.
func (m *Machine) giveBackLabel() {
	held, off := m.lbl.held, m.lbl.off
	m.lbl.state = lbNone
	m.lbl.replay = true
	textOff := m.textOff
	m.textOff = off
	m.text(held)
	m.textOff = textOff
	m.lbl.replay = false
}

// labelTag decides a held label at token t, met in text. It reports
// whether t was handled: it opened the labelled call, or the label's
// bytes, given back, left the text level and t was handled from there.
func (m *Machine) labelTag(t *lexer.Token) bool {
	if m.tagNameCloses(t) || m.curlyTag(t) { // nametag.go, curly.go
		return true
	}
	if m.lbl.state == lbWait && m.labelNames() {
		if s := m.labelDialect(t); s != nil {
			m.openLabelled(t, s)
			return true
		}
	}
	m.giveBackLabel()
	if m.lv != lvText {
		m.marker(t)
		return true
	}
	return false
}

// labelDialect is the dialect whose argument element t opens, preferring an
// enabled one, or nil.
func (m *Machine) labelDialect(t *lexer.Token) *Spec {
	if t.Kind != lexer.Tag || t.Has(lexer.Closing) || t.Has(lexer.SelfClosing) || t.Has(lexer.Unclosed) {
		return nil
	}
	name := m.lbl.held[m.lbl.name.a:m.lbl.name.b]
	var found *Spec
	for i := range table {
		s := &table[i]
		fits := false
		switch {
		case t.Marker == lexer.Unknown:
			fits = s.name == nameTag && m.declared(name) && m.takes(name, t.Name)
		case s.shape == shXML && s.param == t.Marker && s.dsml == t.Has(lexer.DSML):
			_, attr := s.attrOf(t, true)
			fits = attr && s.name == nameAttr || !attr && len(t.Value) > 0 && s.name == nameValue
		}
		if fits && (found == nil || m.ix.on&specSet(found) == 0 && m.ix.on&specSet(s) != 0) {
			found = s
		}
	}
	return found
}

// openLabelled opens the call the held label names, of dialect s, at its
// first argument element t.
func (m *Machine) openLabelled(t *lexer.Token, s *Spec) {
	m.lbl.state = lbNone
	rep := RMisplacedName
	if m.lbl.live != 1 { // another harness's label, a <name> tag (nametag.go): a guess, its keys must fit (wordkey.go)
		rep |= RInferredCall
	}
	m.openLabelledAt(m.lbl.held, m.lbl.off, m.lbl.name, t, s, rep)
}

// openLabelledAt opens a labelled call of dialect s at its first argument
// element t: held, at input offset off, is the markup before t, name the
// tool's name in it; the call carries rep.
func (m *Machine) openLabelledAt(held []byte, off int64, name span, t *lexer.Token, s *Spec, rep Repairs) {
	m.buf = append(m.buf[:0], held...)
	m.bufOff = off
	m.names = m.names[:0]
	m.seg = segment{}
	m.lv = lvCall // for the cap: a runaway reports buf
	if !m.add(t.Raw) {
		return
	}
	if m.openers++; int(m.openers) > m.opt.Runaway.OpenersWithoutCloser {
		m.runaway(RunawayUnclosedOpeners)
		return
	}
	m.blk = block{cands: specSet(s), spec: s, implicit: true}
	m.call = call{loose: -1, repairs: rep, slot: slotLabel}
	m.call.open.dsml = t.Has(lexer.DSML) // its elements' prefix is the call's: not mixed
	m.setDialect(s)
	m.call.name = m.keepName(held[name.a:name.b])
	m.tagInCall(t, len(m.buf)-len(t.Raw))
}

// labelledEnds ends a labelled call after an argument's closer (pending p)
// when the next token t is not the next argument or a closer of the call:
// it reports whether it did. The machine is then at the text level.
func (m *Machine) labelledEnds(p pending, t *lexer.Token) bool {
	if m.call.slot != slotLabel || p.role != rParamClose {
		return false
	}
	switch m.roleIn(t, lvCall) {
	case rParamOpen, rKeyOpen, rValOpen, rCallClose, rBlockClose:
		return false
	}
	m.endLabelled(p)
	return true
}

// endLabelled ends a labelled call at its last argument's closer (pending
// p): what follows is text.
func (m *Machine) endLabelled(p pending) {
	m.pend.active = false
	m.openers = 0 // its end is its closer
	m.closeValue(p.start, p.repairs)
	m.completeCall(p.end, 0)
	m.settle()
}

// labelledAtEOF completes a labelled call whose last argument was closed
// when the input ends: it needs no closer.
func (m *Machine) labelledAtEOF() {
	switch {
	case m.call.slot != slotLabel:
	case m.pend.active && m.pend.role == rParamClose:
		m.endLabelled(m.pend)
	case m.lv == lvCall:
		m.completeCall(len(m.buf), 0)
		m.settle()
	}
}

// labelAtEOF gives a label still held at the end of input back to the text.
func (m *Machine) labelAtEOF() {
	if m.labelHeld() {
		m.giveBackLabel()
	}
}

// labelCloser is the closer a call inferred from a label line calls for
// after it: the ']' of `[Calling tool: NAME with arguments: {..}]`, when
// the label before the call's object did not close itself. It is then
// markup (leftover.go), not text shown to the user.
func labelCloser(c *Call) []byte {
	if c.Repairs&RInferredCall == 0 || len(c.Raw) == 0 || c.Raw[0] != '[' {
		return nil
	}
	obj := bytes.IndexByte(c.Raw, '{')
	if obj < 0 || bytes.IndexByte(c.Raw[:obj], ']') >= 0 {
		return nil
	}
	return labelClose
}

var labelClose = []byte("]")
