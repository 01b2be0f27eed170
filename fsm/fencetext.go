package fsm

// Fenced code blocks in text. Markup in code is text; the one exception is
// a JSON call written as the whole body of a fence labelled json, as some
// models write their calls (```json\n{"name": .., "arguments": ..}\n```).
// A call object elsewhere in a fence (after other code, in an unlabelled
// or a python fence) is an example, not a call.

// fencePhase is where in a fenced code block the text is.
type fencePhase uint8

const (
	fInfo fencePhase = iota // the info string line after the opening backticks
	fGap                    // blanks after the info string's first word, on its line
	fLead                   // the body's start: only whitespace so far
	fBody                   // the body has begun
)

// fenceText follows a fenced code block's info line and the start of its
// body, byte by byte.
type fenceText struct {
	phase fencePhase
	info  [maxFenceInfo]byte // the info string's first bytes, lower case
	n     uint8              // of them (a byte: an idle machine stays small)
	long  bool               // the info string is longer than info
	// line: the backticks of a fence line met in the fence, whose line
	// decides what it is (fencenest.go); 0: none. depth: the fences
	// opened inside this one and not closed yet.
	depth uint8
	line  int32
}

// open starts a fence's text.
func (f *fenceText) open() { *f = fenceText{} }

// json reports an info string that labels JSON.
func (f *fenceText) json() bool {
	switch string(f.info[:f.n]) {
	case "json", "jsonc", "json5":
		return !f.long
	}
	return false
}

// mayOpen reports whether a call may start at the next byte.
func (f *fenceText) mayOpen() bool { return f.phase == fLead && f.json() }

// text returns how many bytes at the start of b are text that cannot
// start a call, moving the phase on; it stops (possibly at 0) at the first
// byte of the body of a json fence.
func (f *fenceText) text(b []byte) int {
	for i, c := range b {
		switch f.phase {
		case fInfo:
			switch {
			case c == '\n':
				f.phase = fLead
			case c == ' ' || c == '\t' || c == '\r':
				if f.n > 0 {
					f.phase = fGap
				}
			case f.n < maxFenceInfo:
				f.info[f.n] = lower(c)
				f.n++
			default:
				f.long = true
			}
		case fGap:
			switch {
			case c == '\n':
				f.phase = fLead
			case c == '{' && f.json():
				f.phase, f.line = fLead, oneLine // fenceline.go
				return i
			case c != ' ' && c != '\t' && c != '\r':
				f.long = true // words after the language: not a plain label
				f.phase = fInfo
			}
		case fLead:
			if isSpace(c) {
				continue
			}
			if f.json() || f.toolCode() { // toolcode.go
				return i
			}
			f.phase = fBody
			return len(b)
		default:
			return len(b)
		}
	}
	return len(b)
}

// token notes a token inside the fence: after the info line, the body has
// begun.
func (f *fenceText) token() {
	if f.phase == fLead {
		f.phase = fBody
	}
}
