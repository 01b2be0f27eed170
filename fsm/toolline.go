package fsm

import (
	"bytes"
	"slices"
	"sort"
	"strings"

	"github.com/toolsieve/toolsieve/lexer"
)

// Tool-name tags (tool_tag: Roo Code's and Cline's `<read_file>`) lose
// their '<' and `</` the way other markup does, each tag on a line of its
// own, the closer spelt like the opener:
//
//	read_file>
//	args>
//	<file>
//	<path>main.go</path>
//	</file>
//	args>
//	read_file>
//
// Where tools are declared, a line that is a declared tool's name and '>'
// (nothing else on it, not in code, not after an illustration) opens that
// tool's call; in it, a line `NAME>` opens the child NAME, and in a
// child's value a line `NAME>` or `/NAME>` for the open child closes it;
// at the call's level a line that is the tool's name again, or `/NAME>`,
// closes the call. The rest is read as for the call with its brackets: a
// child's content that holds markup is its text. The call carries
// missing_bracket. A line `read_file>` when read_file is not declared,
// `read_file> is the prompt`, a quote (`> text`) or a shell line
// (`$ cmd > out`) stays text.

// toolLines reports whether tool-name tag lines are looked for.
func (m *Machine) toolLines() bool {
	return m.opt.Declared != nil && m.ix.on&declTag != 0
}

// mayToolLine reports whether the line that starts b may be a tool-name
// tag line, as far as b shows: a name (that may go on), or a declared
// tool's name and '>'.
func (m *Machine) mayToolLine(b []byte) bool {
	if !isWordByte(b[0]) || !m.toolLines() {
		return false
	}
	j := 1
	for j < len(b) && j <= maxBareWord && (isIdentByte(b[j]) || b[j] == '-') {
		j++
	}
	switch {
	case j > maxBareWord:
		return false
	case j == len(b): // the name may go on
		return m.tail == nil || m.tail.names.mayBe(b)
	}
	return b[j] == '>' && m.opt.Declared(b[:j])
}

// toolLineSoFar is mayToolLine for the line a probe of a line without
// '<' holds, m.buf then seen: the probe reads on with a name that is no
// block opener's only while it may be a declared tool's, as openerAt
// starts one for the whole line.
func (m *Machine) toolLineSoFar(seen []byte) bool {
	if len(m.buf)+len(seen) > maxBareWord+1 {
		return false // longer than a name and its '>'
	}
	return m.mayToolLine(m.heldLine(seen)) // markline.go
}

// declNames are the declared tools' names, lower case and sorted, for
// mayToolLine: a line's first word that a chunk's end cuts (`rea|d_file>`)
// holds the line back only when it may still become one of them. Without
// them (nil) every word may.
type declNames struct {
	first [256]bool // the names' first bytes, lower case
	names []string
}

// DeclareNames gives the machine the declared tools' names (see
// declNames). They are kept beside the recorded text (textTail), outside
// the Machine, which an idle parser keeps small; without it the names are
// not needed.
func (m *Machine) DeclareNames(names []string) {
	if m.tail == nil || len(names) == 0 {
		return
	}
	d := &declNames{names: make([]string, len(names))}
	for i, n := range names {
		d.names[i] = strings.ToLower(n)
		if n != "" {
			d.first[d.names[i][0]] = true
		}
	}
	slices.Sort(d.names)
	m.tail.names = d
}

// mayBe reports whether w, in any case, begins a declared name.
func (d *declNames) mayBe(w []byte) bool {
	if d == nil {
		return true
	}
	if !d.first[lower(w[0])] || len(w) > maxBareWord {
		return false
	}
	var low [maxBareWord]byte
	for i, c := range w {
		low[i] = lower(c)
	}
	lw := low[:len(w)]
	i := sort.Search(len(d.names), func(k int) bool { return d.names[k] >= string(lw) })
	return i < len(d.names) && len(d.names[i]) >= len(lw) && d.names[i][:len(lw)] == string(lw)
}

// toolLine opens the call of tool-name tag t, read from a line without its
// '<' (bare.go), the whole of m.buf; it reports whether it did.
func (m *Machine) toolLine(t *lexer.Token) bool {
	if t.Marker != lexer.Unknown || len(t.Attrs) > 0 || len(t.Value) > 0 || len(t.NS) > 0 || !m.toolLines() ||
		!m.opt.Declared(t.Name) || m.illustrated() {
		return false
	}
	s := (declTag & m.ix.on).first()
	m.blk = block{cands: specSet(s), spec: s, implicit: true}
	m.lv = lvBlock
	m.strays = 0
	m.openCall(t, s, RMissingBracket)
	return m.lv == lvCall
}

// toolLineTag reads line s, without its newline, as `NAME>` or `/NAME>`:
// it returns NAME, and whether the slash was there, or nil.
func toolLineTag(s []byte) ([]byte, bool) {
	closing := len(s) > 0 && s[0] == '/'
	if closing {
		s = s[1:]
	}
	s = bytes.TrimRight(s, " \t\r")
	if len(s) < 2 || s[len(s)-1] != '>' || !isWordByte(s[0]) {
		return nil, false
	}
	name := s[:len(s)-1]
	for _, c := range name {
		if !isIdentByte(c) && c != '-' {
			return nil, false
		}
	}
	return name, closing
}

// toolSegment acts on loose text in a tool-name tag call, buf[start:end]
// (the end of m.buf), that is a tag line without its '<': the call's
// closer, or a child's opener. It reports whether it was one.
func (m *Machine) toolSegment(start, end int) bool {
	if end != len(m.buf) || m.lv != lvCall || m.call.spec.name != nameTag || m.call.slot != slotOwn || !lineStart(m.buf, start) {
		return false
	}
	name, closing := toolLineTag(m.buf[start:end])
	switch {
	case name == nil:
		return false
	case bytes.Equal(name, m.nameOf(m.call.name)):
		m.completeCall(end, RMissingBracket)
		return true
	case closing:
		return false
	}
	if m.probe == nil {
		m.probe = new(probe)
	}
	rec := &m.probe.bare.rec
	rec.Reset(false)
	for _, c := range m.buf[start:end] {
		rec.Step(c)
	}
	t := rec.Token(m.buf[start:end])
	if t.Kind != lexer.Tag || t.Marker != lexer.Unknown || !bytes.Equal(t.Name, name) {
		return false
	}
	m.call.repairs |= RMissingBracket
	m.tagInMarkup(t)
	return true
}

// toolValueCloser makes the line of a child's value that ends at the '>'
// that ends m.buf the child's closer when it is `NAME>` or `/NAME>` for
// the open child NAME. It reports whether it did.
func (m *Machine) toolValueCloser() bool {
	ls := m.toolCloserLine(len(m.buf))
	if ls < 0 {
		return false
	}
	m.expect(rParamClose, ls, RMissingBracket)
	return true
}

// toolCloserLine returns where the line that ends at buf[end-1], a '>',
// starts when it is the open child's closer without its '<' (see
// toolValueCloser), or -1.
func (m *Machine) toolCloserLine(end int) int {
	if m.lv != lvValue || m.call.spec.name != nameTag || m.call.slot != slotOwn || m.val.isKey {
		return -1
	}
	child := m.nameOf(m.val.tagName)
	if n := len(child) + 2; end-n > m.val.start && m.buf[end-n] == '/' && bytes.Equal(m.buf[end-n+1:end-1], child) {
		return end - n // `main.go/path>`: the closer without its '<', after the value on its line
	}
	lo := max(m.val.start, end-maxBareWord-3)
	k := bytes.LastIndexByte(m.buf[lo:end], '\n')
	if k < 0 {
		return -1
	}
	ls := lo + k + 1
	name, _ := toolLineTag(m.buf[ls:end])
	if name == nil || !bytes.Equal(name, child) {
		return -1
	}
	return ls
}

// toolCloserAt returns the role of buf[start:], text after a child's
// closer, when it is a tag line without its '<': the call's closer
// (rCallClose), or the next child's opener (rParamOpen).
func (m *Machine) toolCloserAt(start int) (role, bool) {
	if m.call.spec.name != nameTag || m.call.slot != slotOwn || !lineStart(m.buf, start) {
		return rNone, false
	}
	name, closing := toolLineTag(m.buf[start:])
	switch {
	case name == nil:
		return rNone, false
	case bytes.Equal(name, m.nameOf(m.call.name)):
		return rCallClose, true
	case !closing:
		return rParamOpen, true
	}
	return rNone, false
}
