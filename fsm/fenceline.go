package fsm

import "github.com/toolsieve/toolsieve/lexer"

// A json fence written on one line: "```json {"name": .., "arguments":
// ..} ```" (CommonMark reads it as a code span; models that meant a json
// fence write it so, and the AI SDK's users see it). The info string
// `json` followed by blanks and a '{' on the same line starts the body
// there (fencetext.go, phase fGap), and the fence is marked oneLine: the
// same backticks later on that line close it, not only a fence line. A
// call read from that body takes the "```json " before it as its lead and
// the closing backticks as its wrapper's closer (leftover.go), as a fence
// on lines of its own does. The object must be the json fence's whole
// body like any fenced call: an object that is no call leaves the span as
// text, and so does any other info string, a word before the '{', or the
// span inside a sentence (backticks that do not start a line open a code
// span, never a fence).

// oneLine marks, in fenceText.line, a fence whose body began on its info
// line: it closes at the same backticks anywhere.
const oneLine = -1

// fenceLineEnds closes a oneLine fence at t, backticks of its own count
// met inside it, and reports whether it did.
func (m *Machine) fenceLineEnds(t *lexer.Token) bool {
	if m.fence.line != oneLine || t.Kind != lexer.Backticks || t.Count != int(m.ticks) {
		return false
	}
	m.code = codeNone
	m.fence.line = 0
	return true
}

// fenceLineLead reports whether held text is the lead of a call read from
// a oneLine fence's body: the backticks, the info string and blanks.
func (m *Machine) fenceLineLead(held []byte) bool {
	if m.code != codeFence || m.fence.line != oneLine || len(held) == 0 || held[0] != '`' {
		return false
	}
	n, done := leadPrefix(held) // leftover.go
	return n == len(held) && !done && isSpace(held[n-1])
}
