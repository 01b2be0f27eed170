package fsm

import "bytes"

// A short lower-case word alone on the line before a bare call opener
// (`court\n<invoke name=..>`) is a mangled wrapper. Such a line is held
// back until the next token shows whether a call follows.
type wordLine uint8

const (
	wlNone    wordLine = iota
	wlWord             // letters at a line start, line not finished
	wlLine             // a complete word line ("court\n")
	wlHeader           // the stream's start, a harmony header without <|start|> so far (harmonylead.go)
	wlBracket          // a ']' that may begin a sentinel token `]<]minimax[>[` (childtags.go)
)

const maxWordLine = 8

func isLowerWord(b []byte) bool {
	for _, c := range b {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return len(b) > 0 && len(b) <= maxWordLine
}

// holdWordLine looks at the end of text b: if it is a possible word line,
// it is moved to m.held and its start is returned; else len(b).
func (m *Machine) holdWordLine(b []byte) int {
	end := len(b)
	wl := wlWord
	if b[end-1] == '\n' {
		end--
		wl = wlLine
	}
	start := bytes.LastIndexByte(b[:end], '\n') + 1
	if start == 0 && !m.atLine || !isLowerWord(b[start:end]) {
		return len(b)
	}
	m.held = append(m.held[:0], b[start:]...)
	m.heldOff = m.textOff + int64(start)
	m.wl = wl
	return start
}

// textWordLine continues a held word line with more text.
func (m *Machine) textWordLine(b []byte) int {
	switch m.wl {
	case wlHeader:
		return m.textLead(b)
	case wlBracket:
		m.flushHeld()
		return 0
	}
	if m.wl == wlWord {
		i := 0
		for i < len(b) && 'a' <= b[i] && b[i] <= 'z' {
			i++
		}
		switch {
		case len(m.held)+i > maxWordLine:
		case i < len(b) && b[i] == '\n':
			m.held = append(m.held, b[:i+1]...)
			m.wl = wlLine
			return i + 1
		case i == len(b):
			m.held = append(m.held, b...)
			return len(b)
		}
	}
	m.flushHeld()
	return 0
}

// flushHeld gives a held word line back as text.
func (m *Machine) flushHeld() {
	if m.wl != wlNone {
		m.wl = wlNone
		m.emitText(m.held)
	}
}
