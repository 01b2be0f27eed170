package fsm

// Fences inside fences. Models nest code fences in Markdown they write (a
// ```python block that shows a ```json block, closed by a bare ``` and then
// the outer fence's own): CommonMark would close the outer fence at the
// inner one's closer and leave what follows outside any fence, but the
// writer, and a human reading it, take the inner fence as content of the
// outer one. So inside a fence, a fence line with an info string
// (```json) opens a fence inside it, and a bare fence line (``` and only
// spaces to the end of its line) closes the innermost one: the outer fence
// closes at the bare line that matches its own. Only the outermost fence
// may be the JSON call fence (fencetext.go): a call object in a fence
// inside another fence is an example.

// fenceLine reads the rest of a fence line met inside a fence (its
// backticks were the last token) and returns how many bytes of b it took:
// spaces, then the line end, which settles the line as a bare closer; or 0
// at the first other byte, which makes it an opener of a fence inside.
func (m *Machine) fenceLine(b []byte) int {
	f := &m.fence
	for i, c := range b {
		switch c {
		case ' ', '\t', '\r':
			continue
		case '\n':
			m.fenceLineSettles()
			return i + 1
		}
		f.nested()
		return i
	}
	return len(b)
}

// fenceLineSettles settles a pending fence line as a bare closer.
func (m *Machine) fenceLineSettles() {
	f := &m.fence
	switch {
	case f.depth > 0:
		f.depth--
	case f.line >= m.ticks:
		m.code = codeNone
	}
	f.line = 0
}

// nested settles a pending fence line that held more than spaces as the
// opener of a fence inside this one.
func (f *fenceText) nested() {
	if f.line <= 0 {
		return
	}
	f.line = 0
	if f.depth < 255 {
		f.depth++
	}
	f.phase = fBody
}
