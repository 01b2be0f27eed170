package fsm

import (
	"bytes"
	"slices"
	"strings"

	"github.com/toolsieve/toolsieve/lexer"
)

// A client that renders markdown (a chat app) may lose every angle bracket
// of DSML markup and turn its fullwidth bars into ASCII ones, leaving each
// marker as a line of its own:
//
//	DSML | tool_calls
//	DSML | invoke name="terminal"
//	DSML | parameter name="command" string="true"
//	ls
//	DSML | /parameter
//	DSML | /invoke
//	DSML | /tool_calls
//
// Such a line is read as the marker it was, through the lexer's reading of
// a tag that lost its '<' and first bar (lexer.Bare.ResetBarLost), the end
// of the line standing for its '>': the dialect's prefix word (`DSML`, or
// another DSML-style prefix of the table, `GCML`), a bar in any spelling,
// then the element and its attributes. Only a token the lexer reads with
// the DSML prefix and a known marker counts.
//
// Where it may be one: in text, a line of its own, outside code, held like
// a line without '<' (bare.go): a block opener line counts only when the
// next line opens a named call, a call opener line alone only when it names
// a declared tool (barecall.go). In a block of a DSML-style dialect, a
// segment of loose text that is such a whole line (markSegment); in an
// argument value of a block whose markers were such lines (block.eol), a
// line of the value (markInValue). A sentence that mentions the markup, a
// line in a code fence or span, a quoted line (`> DSML | ..`) and an
// indented one stay text. The call carries missing_bracket.

// markDialects are the dialects whose tags carry a DSML-style prefix.
var markDialects = dialectsWhere(func(s *Spec) bool { return s.dsml })

// markWords are the prefix words of those dialects, upper case; markLead
// marks the bytes a marker line may start with (a word's first letter in
// either case, or a bar): the short path looks at such lines (plain.go).
var markWords, markLead = func() (words []string, lead [256]bool) {
	words = []string{"DSML"}
	for i := range table {
		if !markDialects.has(i) {
			continue
		}
		for _, op := range table[i].opens {
			if w := strings.ToUpper(op.ns); w != "" && !slices.Contains(words, w) {
				words = append(words, w)
			}
		}
	}
	for _, w := range words {
		lead[w[0]], lead[w[0]+'a'-'A'] = true, true
	}
	lead['|'], lead[0xEF], lead[0xE2] = true, true, true // bars: ASCII, U+FF5C, U+2016
	return words, lead
}()

// maxMarkLine bounds a marker line.
const maxMarkLine = 256

// markPrefix reports whether b, the start of a line, may begin a marker
// line as far as it shows: bars or spaces, a prefix word, spaces, a bar.
func markPrefix(b []byte) bool {
	i := 0
	for n := 0; i < len(b) && n < 8; n++ { // the bars the line may keep before the word
		if k := lexer.BarAt(b, i); k > 0 {
			i += k
		} else if b[i] == ' ' && i > 0 {
			i++
		} else {
			break
		}
	}
	if i == len(b) {
		return true
	}
	word := 0
	for _, w := range markWords {
		n := min(len(w), len(b)-i)
		if equalFold(b[i:i+n], w[:n]) {
			if n < len(w) {
				return true
			}
			word = n
			break
		}
	}
	if word == 0 {
		return false
	}
	for i += word; i < len(b) && b[i] == ' '; i++ {
	}
	return i == len(b) || lexer.BarAt(b, i) > 0 || len(b)-i < 3 && b[i] >= 0xE2 // a bar, or a wide bar cut short
}

// markPrefixSoFar is markPrefix for the line a marker line's probe holds,
// m.buf then b: the probe reads on as a marker line's only while
// mayMarkLine, which started it, would hold the line; else as a line
// without '<' (bareFromMark), or not at all. A probe that read on with
// neither held a line whose first byte ended a chunk (`d` of `done`)
// where the same line in one chunk was text, and a marker the end cuts
// short after it was text one way, dropped the other.
func (m *Machine) markPrefixSoFar(b []byte) bool {
	if len(m.buf)+len(b) > 16 {
		return true // markPrefix held the first 16 bytes
	}
	line := m.heldLine(b)
	return markPrefix(line[:lexer.CompleteUTF8(line)]) // a bar cut short is read whole
}

// bareFromMark turns a marker line's probe whose line, m.buf then seen,
// markPrefix refuses into one of a line without '<', when openerAt would
// have started one for that line (bare.go); else the line is no markup.
func (m *Machine) bareFromMark(seen []byte) lexer.BareVerdict {
	line := m.heldLine(seen)
	if !(bareFirst[line[0]] && m.mayBeBare(line) || m.mayToolLine(line)) {
		return lexer.BareFail
	}
	m.startBare(false)
	p := m.probe
	for _, c := range line { // read again as the line's start, as bareFrom does
		p.bare.rec.Step(c)
		if p.bare.rec.InName() {
			p.bare.nameByte(c)
		}
	}
	return lexer.BareMore
}

// heldLine returns the line a probe holds, m.buf then seen, in m.buf's
// room after its bytes (m.buf itself unchanged): a copy in an array of
// its own would be made on the heap, the checks it goes to calling
// Options.Declared.
func (m *Machine) heldLine(seen []byte) []byte {
	n := len(m.buf)
	m.buf = append(m.buf, seen...)
	line := m.buf
	m.buf = m.buf[:n]
	return line
}

// mayMarkLine reports whether the line that starts b may be a marker line
// without brackets, as far as b shows.
func (m *Machine) mayMarkLine(b []byte) bool {
	if m.ix.on&markDialects == 0 || m.opt.MaxCall < maxBare || !markPrefix(b[:min(len(b), 16)]) {
		return false
	}
	if m.probe == nil {
		m.probe = new(probe)
	}
	if i := bytes.IndexByte(b[:min(len(b), maxMarkLine+1)], '\n'); i >= 0 {
		return m.markLine(b[:i]) != nil
	}
	rec := &m.probe.bare.rec
	rec.ResetBarLost()
	for i, c := range b {
		if i == maxMarkLine || rec.Step(c) == lexer.BareFail {
			return false
		}
	}
	return true
}

// markLineEnd reads the line a probe holds, from start in m.buf (or, past
// its end, in b), then b, as a marker line at its newline: the end stands
// for the '>' the tag lost (bare.go's textBare).
func (m *Machine) markLineEnd(start int, b []byte) lexer.BareVerdict {
	var line [maxMarkLine]byte
	var s []byte
	if k := start - len(m.buf); k >= 0 {
		s = b[k:]
	} else if len(m.buf)-start+len(b) <= len(line) {
		n := copy(line[:], m.buf[start:])
		s = line[:n+copy(line[n:], b)]
	}
	if m.markLine(s) == nil {
		return lexer.BareFail
	}
	return lexer.BareDone
}

// markLine reads s, a whole line without its newline, as a marker line,
// or returns nil. The token is valid until the next read.
func (m *Machine) markLine(s []byte) *lexer.Token {
	full := s
	s = bytes.TrimRight(s, " \t\r") // the tag ends before the blanks that end its line (its raw bytes hold them)
	if len(s) == 0 || len(s) > maxMarkLine || !markLead[s[0]] || !markPrefix(s[:min(len(s), 16)]) {
		return nil
	}
	if m.probe == nil {
		m.probe = new(probe)
	}
	rec := &m.probe.bare.rec
	rec.ResetBarLost()
	for i, c := range s {
		switch rec.Step(c) {
		case lexer.BareFail:
			return nil
		case lexer.BareDone: // its '>' kept
			if i < len(s)-1 {
				return nil
			}
			return m.markTokenDone(full, rec)
		}
	}
	if rec.Step('>') != lexer.BareDone {
		return nil
	}
	return m.markTokenDone(full, rec)
}

func (m *Machine) markTokenDone(s []byte, rec *lexer.Bare) *lexer.Token {
	t := rec.Token(s)
	if t.Kind != lexer.Tag || !t.Has(lexer.DSML) || t.Marker == lexer.Unknown {
		return nil
	}
	for _, a := range t.Attrs {
		if len(a.Val) == 0 { // a word after the marker (`DSML | invoke now`): a sentence
			return nil
		}
	}
	return t
}

// lineStart reports whether buf[i] starts a line: only spaces or tabs
// stand between it and a newline or the start of the markup.
func lineStart(buf []byte, i int) bool {
	for n := 0; i > 0 && n < 8; n++ {
		switch buf[i-1] {
		case '\n':
			return true
		case ' ', '\t':
			i--
		default:
			return false
		}
	}
	return i == 0
}

// markSegment acts on loose text in a block of a DSML-style dialect,
// buf[start:end] (the end of m.buf), that is a whole marker line: it is
// the marker. It reports whether it was.
func (m *Machine) markSegment(start, end int) bool {
	if end != len(m.buf) || m.lv != lvBlock && m.lv != lvCall || m.blk.cands&markDialects == 0 || !lineStart(m.buf, start) {
		return false
	}
	t := m.markLine(m.buf[start:end])
	if t == nil {
		return false
	}
	m.markTag(t)
	return true
}

// markTag handles marker line t, the end of m.buf.
func (m *Machine) markTag(t *lexer.Token) {
	m.blk.eol = true
	if m.lv >= lvCall {
		m.call.repairs |= RMissingBracket
	}
	m.tagInMarkup(t)
	if m.lv >= lvCall {
		m.call.repairs |= RMissingBracket
	}
}

// markRoleAt returns the role in a call of the marker line buf[start:],
// text after an argument's closer, if it is one.
func (m *Machine) markRoleAt(start int) (role, bool) {
	if m.blk.cands&markDialects == 0 || !lineStart(m.buf, start) {
		return rNone, false
	}
	t := m.markLine(m.buf[start:])
	if t == nil {
		return rNone, false
	}
	return m.roleIn(t, lvCall), true
}

// markInValue takes text b of a value in a block whose markers were lines
// without brackets, up to and with its first newline, when the line that
// newline ends is a marker line; it reports false, taking nothing, when
// b holds no newline or a '>' comes first (textInValue).
func (m *Machine) markInValue(b []byte) (int, bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 || bytes.IndexByte(b[:i], '>') >= 0 {
		return 0, false
	}
	if !m.add(b[:i]) {
		return i, true
	}
	if m.markValueLine() && (m.lv != lvValue || m.pend.active) {
		return i, true // the newline goes to the new state
	}
	m.add(b[i : i+1]) // more of the value, or the first byte of the next one
	return i + 1, true
}

// markValueLine acts on the value's last line, the end of m.buf, when it
// is a marker line that ends the value or opens the next argument (a
// marker that would be the value's content stays text of the value).
func (m *Machine) markValueLine() bool {
	lo := max(m.val.start, len(m.buf)-maxMarkLine)
	k := bytes.LastIndexByte(m.buf[lo:], '\n')
	if k < 0 {
		return false
	}
	ls := lo + k + 1
	if ls == len(m.buf) || !markLead[m.buf[ls]] {
		return false
	}
	t := m.markLine(m.buf[ls:])
	if t == nil {
		return false
	}
	switch m.roleIn(t, lvValue) {
	case rParamClose, rValClose, rCallClose, rBlockClose, rParamOpen, rKeyOpen, rValOpen:
	default:
		return false
	}
	m.markTag(t)
	return m.lv != lvValue || m.pend.active || m.val.start > ls
}

// markAtEOF reads the last line of a value at the end of input as a
// marker line.
func (m *Machine) markAtEOF() {
	if m.lv == lvValue && m.blk.eol && !m.pend.active {
		m.markValueLine()
	}
}

// trimsNL reports whether one leading and one trailing newline of a value
// are markup: the dialect's (Spec.trimNL), or the line ends of the marker
// lines around a value in a block whose markers were lines.
func (m *Machine) trimsNL() bool { return m.call.spec.trimNL || m.blk.eol }

// lineHeldBack returns where the bytes of a value that no later input can
// change end, at most end, when its lines may be markers without brackets
// (a block of marker lines, a tool-name tag call that lost its '<',
// toolline.go): its last line, with the newline before it, may still
// become a closer; it is held back while short enough to be one.
func (m *Machine) lineHeldBack(a, end int) int {
	if !m.blk.eol && (m.call.spec.name != nameTag || m.call.repairs&RMissingBracket == 0) {
		return end
	}
	lo := max(a, end-maxMarkLine)
	if k := bytes.LastIndexByte(m.buf[lo:end], '\n'); k >= 0 {
		return lo + k
	}
	if lo == a {
		return a
	}
	return end
}
