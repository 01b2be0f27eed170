// Package jsonscan is a resumable, repairing JSON scanner.
//
// A Scanner consumes the bytes of one JSON value in chunks of any size (down
// to single bytes, split anywhere, including inside a multi-byte character or
// an escape sequence) and writes a repaired copy of it into an internal
// buffer. Every byte is looked at once: the scanner keeps its position in the
// grammar as a small state enum plus an explicit stack of open containers, in
// the manner of encoding/json's scanner, so the work per byte is constant and
// nothing already seen is re-read.
//
// Valid JSON is copied through byte for byte (minus leading whitespace).
// Broken JSON of the kinds language models write is repaired while scanning
// (Python literals, single-quoted strings, missing and trailing commas, raw
// control characters in strings, unquoted keys, invalid escapes, mismatched
// closers) and, at the end of the input, Finish completes a value that was
// cut off.
package jsonscan

import (
	"fmt"

	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/internal/scanbase"
)

// Grammar states. The comments say what the scanner expects next.
const (
	stTop      uint8 = iota // the start of the top-level value (leading whitespace allowed)
	stArrFirst              // after '[': a value or ']'
	stArrNext               // after ',' in an array: a value
	stObjVal                // after ':': a value
	stKeyFirst              // after '{': a key or '}'
	stKeyNext               // after ',' in an object: a key
	stColon                 // after a key: ':'
	stAfter                 // after a value inside a container: ',' or the closer
	stStr                   // inside a quoted string (key or value)
	stEsc                   // after a backslash inside a string
	stHex                   // inside the hex digits of a \u escape
	stUKey                  // inside an unquoted object key
	stNumMinus              // after a number's leading '-'
	stNumZero               // after a number's leading '0'
	stNumInt                // inside a number's integer digits
	stNumDot                // after a number's '.'
	stNumFrac               // inside a number's fraction digits
	stNumE                  // after a number's 'e' or 'E'
	stNumESign              // after the exponent's sign
	stNumExp                // inside a number's exponent digits
	stLit                   // inside a literal (true, false, null, True, False, None)
	stDone                  // the top-level value is complete
	stSP                    // inside a `▁` (U+2581) written where whitespace belongs (spRet: the state after it)
	stDoubled               // after a top-level object opened with a doubled brace: whitespace, then its doubled '}'
)

var stateNames = [...]string{
	stTop:      "at the start of a value",
	stArrFirst: "after '['",
	stArrNext:  "after ',' in an array",
	stObjVal:   "after ':'",
	stKeyFirst: "after '{'",
	stKeyNext:  "after ',' in an object",
	stColon:    "after an object key",
	stAfter:    "after a value",
	stStr:      "in a string",
	stEsc:      "in a string escape",
	stHex:      "in a \\u escape",
	stUKey:     "in an unquoted key",
	stNumMinus: "after '-'",
	stNumZero:  "in a number",
	stNumInt:   "in a number",
	stNumDot:   "in a number",
	stNumFrac:  "in a number",
	stNumE:     "in a number",
	stNumESign: "in a number",
	stNumExp:   "in a number",
	stLit:      "in a literal",
	stDone:     "after the value",
	stSP:       "in a U+2581",
	stDoubled:  "after the value",
}

// Results of one step of the state machine on one byte (stop: the byte is
// not part of the value, done or failed).
const (
	consumed = scanbase.Consumed
	again    = scanbase.Again
	stop     = scanbase.Stop
)

// SyntaxError is the error Err returns after Write met a byte that can
// neither continue the value nor be repaired.
type SyntaxError = scanbase.SyntaxError

// Scanner scans one JSON value and writes a repaired copy of it.
// The zero value is ready to use.
type Scanner struct {
	out   []byte // the repaired copy written so far
	stack []byte // open containers, '{' or '['

	state uint8
	quote byte  // the quote that opened the current string: '"' or '\''
	lit   uint8 // which literal (stLit)
	pos   uint8 // bytes of the literal matched, or hex digits of \u read

	isKey     bool // the current string is an object key
	hiPending bool // the last thing in the current string is a high surrogate escape
	started   bool
	failed    bool
	repaired  bool
	finished  bool
	truncated bool // set by Finish
	// sp: a `▁` (U+2581, SentencePiece's space) stood where whitespace
	// belongs; it was read as a space (spRet, spPos: the state after it,
	// the bytes of it read).
	sp           bool
	spRet, spPos uint8
	doubled      bool // the top-level object opened with `{{` (doubled.go)

	uval rune // value of the \u escape being read

	n          int // bytes consumed since Reset
	memberMark int // len(out) before the current member/element of the innermost container (before its ',')
	escMark    int // len(out) before the current escape's backslash
	hiMark     int // len(out) before the pending high surrogate escape
	numValid   int // len(out) at the end of the longest valid prefix of the current number, or -1

	err *SyntaxError
}

// Reset prepares the scanner for a new value, keeping its buffers.
func (s *Scanner) Reset() {
	*s = Scanner{out: s.out[:0], stack: s.stack[:0]}
}

// Take returns the output and gives the scanner the room of buf for the
// next value: a caller keeps the output without copying it.
func (s *Scanner) Take(buf []byte) []byte {
	out := s.out
	s.out = buf[:0]
	return out
}

// Done reports whether the top-level value is complete.
func (s *Scanner) Done() bool { return s.state == stDone }

// Started reports whether a non-whitespace byte of the value was consumed.
func (s *Scanner) Started() bool { return s.started }

// InStringBody reports whether the scanner is inside a string and not in
// an escape: bytes but quotes, backslashes and control bytes go on as they
// are.
func (s *Scanner) InStringBody() bool { return s.state == stStr && !s.failed && !s.finished }

// InEscape reports whether the scanner is just after a backslash inside a
// string: the next byte completes the escape.
func (s *Scanner) InEscape() bool { return s.state == stEsc && !s.failed && !s.finished }

// InString reports whether the scanner is inside a quoted string (a key or
// a value): a marker arriving now is string content.
func (s *Scanner) InString() bool {
	switch s.state {
	case stStr, stEsc, stHex:
		return true
	}
	return false
}

// Depth returns the number of open arrays and objects.
func (s *Scanner) Depth() int { return len(s.stack) }

// Failed reports whether Write stopped at a byte it could not use. It is
// sticky until Reset.
func (s *Scanner) Failed() bool { return s.failed }

// Err returns nil, or a *SyntaxError naming the input offset (since Reset)
// of the byte that made Write fail.
func (s *Scanner) Err() error {
	if s.err == nil {
		return nil
	}
	return s.err
}

// Len returns the number of bytes consumed since Reset, leading whitespace
// included.
func (s *Scanner) Len() int { return s.n }

// Stable returns how much of the copy written so far no later input can
// change: Write takes back or rewrites only the tail of the current member
// (a trailing comma, a key without value, a number's invalid tail), an
// escape being read and a high surrogate waiting for its pair, and Finish
// no more than these.
func (s *Scanner) Stable() int {
	n := len(s.out)
	switch s.state {
	case stAfter, stDone, stDoubled:
	case stStr:
		if s.isKey {
			n = s.memberMark
		}
	case stEsc, stHex:
		n = s.escMark
		if s.isKey {
			n = s.memberMark
		}
	default: // a key, a number or literal, after an opener, ',' or ':'
		n = s.memberMark
	}
	if s.hiPending {
		n = min(n, s.hiMark)
	}
	return n
}

// Repaired reports whether Write has made syntax repairs so far.
func (s *Scanner) Repaired() bool { return s.repaired }

// Bytes returns the repaired copy written so far. It is not valid JSON until
// the value is done or finished. The slice aliases the scanner's buffer and
// is valid until the next Write, Finish or Reset.
func (s *Scanner) Bytes() []byte { return s.out }

// Write consumes bytes of p until the top-level value is complete or a byte
// arrives that cannot continue it. It returns how many bytes it consumed and
// whether the value is complete. Leading whitespace is consumed. Bytes after
// a complete value are not consumed (n < len(p)). When a byte can neither
// continue the value nor be repaired, Write stops before it, returns n
// pointing at it, and Failed becomes true (sticky; further Writes consume
// nothing). A top-level number is complete only when a following non-number
// byte arrives (not consumed) or at Finish.
func (s *Scanner) Write(p []byte) (n int, done bool) {
	if s.failed || s.finished || s.state == stDone {
		return 0, s.state == stDone
	}
	if n := 2*len(p) + 16; cap(s.out)-len(s.out) < n {
		s.out = scanbase.Grow(s.out, n) // by doubling
	}
	i := 0
	for i < len(p) {
		if s.state == stSP || p[i] == spLead && (s.state <= stAfter || s.sp && s.state == stStr) {
			switch s.spaceByte(p[i]) {
			case consumed:
				i++
			case stop:
				s.failed = true
				s.err = &SyntaxError{Scanner: "jsonscan", Offset: s.n + i, Byte: p[i], Where: stateNames[stSP]}
			}
			if s.failed {
				break
			}
			continue // again: p[i] goes on the string
		}
		// Fast paths: copy runs of bytes that do not change the state.
		switch s.state {
		case stStr:
			j := i
			if s.quote == '"' && !s.sp {
				j = jsonspan.SkipPlain(p, j) // eight bytes at a time
			}
			for j < len(p) {
				c := p[j]
				if jsonspan.EndsPlain(c) || c == s.quote || c == spLead && s.sp {
					break
				}
				j++
			}
			if j > i {
				s.emit(p[i:j])
				s.hiPending = false
				i = j
				continue
			}
		case stNumInt, stNumFrac, stNumExp:
			j := i
			for j < len(p) && p[j] >= '0' && p[j] <= '9' {
				j++
			}
			if j > i {
				s.emit(p[i:j])
				s.numValid = len(s.out)
				i = j
				continue
			}
		case stArrFirst, stArrNext, stObjVal, stKeyFirst, stKeyNext, stColon, stAfter:
			j := i
			for j < len(p) && scanbase.IsSpace(p[j]) {
				j++
			}
			if j > i {
				s.emit(p[i:j])
				i = j
				continue
			}
		}
		c := p[i]
		r := s.step(c)
		for r == again {
			r = s.step(c)
		}
		if r == stop {
			if s.failed {
				s.err = &SyntaxError{Scanner: "jsonscan", Offset: s.n + i, Byte: c, Where: stateNames[s.state]}
			}
			break
		}
		i++
		if s.state == stDone {
			break
		}
	}
	s.n += i
	return i, s.state == stDone
}

// WriteBody is Write for b that the caller knows goes on the body of the
// string in progress: no quote or control byte, backslashes only in whole
// simple escapes (\n, \", ...), but that b[0] may end an escape begun
// before it and b may end with the backslash that begins one. What Write
// copies run by run and escape by escape is then one copy.
func (s *Scanner) WriteBody(b []byte) {
	i, j := 0, len(b)
	if s.state == stEsc {
		i = 1
	}
	for j > i && b[j-1] == '\\' {
		j--
	}
	if (len(b)-j)%2 == 1 { // an odd run of backslashes ends b: its last begins an escape
		j = len(b) - 1
	} else {
		j = len(b)
	}
	if s.state != stStr && s.state != stEsc || s.failed || s.finished || i >= j || s.sp {
		s.Write(b)
		return
	}
	s.Write(b[:i]) // ends the escape
	s.emit(b[i:j])
	s.hiPending = false
	s.n += j - i
	s.Write(b[j:]) // begins the next one
}

// emit appends b to the output. When it fits, only the length changes:
// no pointer is written (a write barrier while the collector runs). The
// output doubles up to 1 MiB, then grows by a quarter (append grows large
// slices by a quarter from the start, five times the size in all).
func (s *Scanner) emit(b []byte) {
	n := len(s.out)
	if c := cap(s.out); n+len(b) > c {
		step := c
		if c >= 1<<20 {
			step = c / 4
		}
		out := make([]byte, n, max(n+len(b), c+step, 256))
		copy(out, s.out)
		s.out = out
	}
	s.out = s.out[:n+len(b)]
	copy(s.out[n:], b)
}

func (s *Scanner) fail() uint8 {
	s.failed = true
	return stop
}

func isIdent(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// isValueStart reports whether beginValue accepts c.
func isValueStart(c byte) bool {
	switch c {
	case '{', '[', '"', '\'', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	_, ok := scanbase.LitFor(c)
	return ok
}

func (s *Scanner) top() byte {
	if len(s.stack) == 0 {
		return 0
	}
	return s.stack[len(s.stack)-1]
}

// valueDone moves past a complete value.
func (s *Scanner) valueDone() {
	if len(s.stack) == 0 {
		s.state = s.topDone()
	} else {
		s.state = stAfter
	}
}

// beginValue starts a value at c (not whitespace).
func (s *Scanner) beginValue(c byte) uint8 {
	switch c {
	case '{', '[':
		s.stack = append(s.stack, c)
		s.out = append(s.out, c)
		s.memberMark = len(s.out)
		if c == '{' {
			s.state = stKeyFirst
		} else {
			s.state = stArrFirst
		}
	case '"', '\'':
		s.out = append(s.out, '"')
		s.quote = c
		s.isKey = false
		s.hiPending = false
		s.state = stStr
		if c == '\'' {
			s.repaired = true
		}
	case '-':
		s.out = append(s.out, c)
		s.numValid = -1
		s.state = stNumMinus
	case '0':
		s.out = append(s.out, c)
		s.numValid = len(s.out)
		s.state = stNumZero
	case '1', '2', '3', '4', '5', '6', '7', '8', '9':
		s.out = append(s.out, c)
		s.numValid = len(s.out)
		s.state = stNumInt
	default:
		l, ok := scanbase.LitFor(c)
		if !ok {
			return s.fail()
		}
		if l >= scanbase.LitPyTrue {
			s.repaired = true
		}
		s.lit = l
		s.pos = 1
		s.out = append(s.out, scanbase.LitDst[l][0])
		s.state = stLit
	}
	s.started = true
	return consumed
}

// beginKey starts an object key at c (not whitespace).
func (s *Scanner) beginKey(c byte) uint8 {
	switch {
	case c == '"' || c == '\'':
		s.out = append(s.out, '"')
		s.quote = c
		s.isKey = true
		s.hiPending = false
		s.state = stStr
		if c == '\'' {
			s.repaired = true
		}
	case isIdent(c):
		s.out = append(s.out, '"', c)
		s.repaired = true
		s.state = stUKey
	default:
		return s.fail()
	}
	return consumed
}

// endString closes the current string (its closing quote was seen).
func (s *Scanner) endString() {
	s.out = append(s.out, '"')
	if s.isKey {
		s.state = stColon
	} else {
		s.valueDone()
	}
}

// endNumber ends the current number at a byte that cannot continue it. When
// the number ends in an incomplete tail ('.', 'e', 'e+'), the tail is cut.
func (s *Scanner) endNumber() uint8 {
	if s.numValid < 0 {
		// A lone '-' followed by something else.
		return s.fail()
	}
	if s.numValid != len(s.out) {
		s.out = s.out[:s.numValid]
		s.repaired = true
	}
	s.valueDone()
	return again
}

// strByte writes c, a byte inside a string that is not an escape start.
func (s *Scanner) strByte(c byte) {
	s.hiPending = false
	if c < 0x20 {
		s.repaired = true
	}
	s.out = scanbase.AppendStrByte(s.out, c) // '"' only in single-quoted strings
}

// step runs the state machine on one byte.
func (s *Scanner) step(c byte) uint8 {
	switch s.state {
	case stTop:
		if scanbase.IsSpace(c) {
			return consumed
		}
		return s.beginValue(c)

	case stArrFirst, stKeyFirst:
		if scanbase.IsSpace(c) {
			s.out = append(s.out, c)
			return consumed
		}
		if c == ']' || c == '}' {
			s.state = stAfter
			return again
		}
		if s.state == stArrFirst {
			return s.beginValue(c)
		}
		if s.doubledBrace(c) {
			return consumed
		}
		return s.beginKey(c)

	case stArrNext, stKeyNext:
		if scanbase.IsSpace(c) {
			s.out = append(s.out, c)
			return consumed
		}
		if c == ']' || c == '}' {
			// Trailing comma: cut it (and the whitespace after it).
			s.out = s.out[:s.memberMark]
			s.repaired = true
			s.state = stAfter
			return again
		}
		if s.state == stArrNext {
			return s.beginValue(c)
		}
		return s.beginKey(c)

	case stObjVal:
		if scanbase.IsSpace(c) {
			s.out = append(s.out, c)
			return consumed
		}
		if c == '}' || c == ']' {
			// A key without a value: drop the member.
			s.out = s.out[:s.memberMark]
			s.repaired = true
			s.state = stAfter
			return again
		}
		return s.beginValue(c)

	case stColon:
		if scanbase.IsSpace(c) {
			s.out = append(s.out, c)
			return consumed
		}
		if c == ':' {
			s.out = append(s.out, c)
			s.state = stObjVal
			return consumed
		}
		return s.fail()

	case stAfter:
		if scanbase.IsSpace(c) {
			s.out = append(s.out, c)
			return consumed
		}
		t := s.top()
		switch c {
		case ',':
			s.memberMark = len(s.out)
			s.out = append(s.out, c)
			if t == '{' {
				s.state = stKeyNext
			} else {
				s.state = stArrNext
			}
			return consumed
		case '}', ']':
			open := byte('{')
			if c == ']' {
				open = '['
			}
			if t == open {
				s.out = append(s.out, c)
				s.stack = s.stack[:len(s.stack)-1]
				s.valueDone()
				return consumed
			}
			// Mismatched closer: when it closes the enclosing container,
			// close the innermost one first (`{"a":[1}` -> `{"a":[1]}`).
			if len(s.stack) >= 2 && s.stack[len(s.stack)-2] == open {
				s.out = append(s.out, scanbase.CloserOf(t))
				s.stack = s.stack[:len(s.stack)-1]
				s.repaired = true
				return again
			}
			return s.fail()
		}
		// Missing comma between members or elements.
		if t == '[' && isValueStart(c) || t == '{' && (c == '"' || c == '\'' || isIdent(c)) {
			s.memberMark = len(s.out)
			s.out = append(s.out, ',')
			s.repaired = true
			if t == '{' {
				s.state = stKeyNext
			} else {
				s.state = stArrNext
			}
			return again
		}
		return s.fail()

	case stStr:
		switch c {
		case s.quote:
			s.endString()
		case '\\':
			s.escMark = len(s.out)
			s.state = stEsc
		default:
			s.strByte(c)
		}
		return consumed

	case stEsc:
		switch c {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			s.emit([]byte{'\\', c})
			s.hiPending = false
			s.state = stStr
		case 'u':
			s.out = append(s.out, '\\', 'u')
			s.pos = 0
			s.uval = 0
			s.state = stHex
		case '\'':
			// `\'` is not a JSON escape: write the apostrophe.
			s.out = append(s.out, '\'')
			s.hiPending = false
			s.repaired = true
			s.state = stStr
		default:
			// An invalid escape such as `\x` or `\d`: keep the backslash
			// as a character and look at c as a plain string byte.
			s.out = append(s.out, '\\', '\\')
			s.hiPending = false
			s.repaired = true
			s.state = stStr
			return again
		}
		return consumed

	case stHex:
		if v, ok := scanbase.HexVal(c); ok {
			s.out = append(s.out, c)
			s.uval = s.uval<<4 | v
			s.pos++
			if s.pos == 4 {
				s.state = stStr
				if s.uval >= 0xD800 && s.uval < 0xDC00 {
					s.hiPending = true
					s.hiMark = s.escMark
				} else {
					s.hiPending = false
				}
			}
			return consumed
		}
		// `\u12G`: the backslash was meant as a character. Insert a second
		// backslash at the escape (at most 5 bytes move) and go on.
		s.out = append(s.out, 0)
		copy(s.out[s.escMark+1:], s.out[s.escMark:len(s.out)-1])
		s.out[s.escMark] = '\\'
		s.hiPending = false
		s.repaired = true
		s.state = stStr
		return again

	case stUKey:
		if isIdent(c) {
			s.out = append(s.out, c)
			return consumed
		}
		s.out = append(s.out, '"')
		s.state = stColon
		return again

	case stNumMinus:
		switch {
		case c == '0':
			s.out = append(s.out, c)
			s.numValid = len(s.out)
			s.state = stNumZero
		case c >= '1' && c <= '9':
			s.out = append(s.out, c)
			s.numValid = len(s.out)
			s.state = stNumInt
		default:
			return s.fail()
		}
		return consumed

	case stNumZero, stNumInt:
		switch {
		case c >= '0' && c <= '9' && s.state == stNumInt:
			s.out = append(s.out, c)
			s.numValid = len(s.out)
		case c == '.':
			s.out = append(s.out, c)
			s.state = stNumDot
		case c == 'e' || c == 'E':
			s.out = append(s.out, c)
			s.state = stNumE
		default:
			return s.endNumber()
		}
		return consumed

	case stNumDot:
		switch {
		case c >= '0' && c <= '9':
			s.out = append(s.out, c)
			s.numValid = len(s.out)
			s.state = stNumFrac
		case c == 'e' || c == 'E':
			// `1.e5` -> `1e5`
			s.out = append(s.out[:s.numValid], c)
			s.repaired = true
			s.state = stNumE
		default:
			return s.endNumber()
		}
		return consumed

	case stNumFrac:
		switch {
		case c >= '0' && c <= '9':
			s.out = append(s.out, c)
			s.numValid = len(s.out)
		case c == 'e' || c == 'E':
			s.out = append(s.out, c)
			s.state = stNumE
		default:
			return s.endNumber()
		}
		return consumed

	case stNumE:
		switch {
		case c == '+' || c == '-':
			s.out = append(s.out, c)
			s.state = stNumESign
		case c >= '0' && c <= '9':
			s.out = append(s.out, c)
			s.numValid = len(s.out)
			s.state = stNumExp
		default:
			return s.endNumber()
		}
		return consumed

	case stNumESign, stNumExp:
		if c >= '0' && c <= '9' {
			s.out = append(s.out, c)
			s.numValid = len(s.out)
			s.state = stNumExp
			return consumed
		}
		return s.endNumber()

	case stLit:
		if c != scanbase.LitSrc[s.lit][s.pos] {
			return s.fail()
		}
		s.out = append(s.out, scanbase.LitDst[s.lit][s.pos])
		s.pos++
		if int(s.pos) == len(scanbase.LitSrc[s.lit]) {
			s.valueDone()
		}
		return consumed
	case stDoubled:
		return s.doubledCloser(c)
	}
	// stDone
	return stop
}

// Finish completes the value as it stands (call at end of input, or when
// the caller decides the value is over): it closes an open string, array and
// object, finishes a cut literal (`tru` -> true, `Non` -> null), drops a
// dangling key (`{"a":1,"b"` -> {"a":1}), a key without value (`{"a":` ->
// {}), a trailing comma, a partial escape (`"x\`, `"x\u12`), half a
// surrogate pair (`"\ud83d` with nothing after it), a cut number's
// incomplete tail (`1.` -> 1, `1e` -> 1) and a number that is only `-` (the
// member or element is dropped; at the top level the value becomes null).
//
// It returns valid JSON and the flags: truncated is true when completion was
// needed (the value was not Done, and was not a top-level number that was
// already complete), repaired is true when Write made syntax repairs. If
// nothing at all was started it returns nil. Finish is idempotent; after it,
// Write consumes nothing. The returned slice aliases the scanner's buffer and
// is valid until the next Reset.
func (s *Scanner) Finish() (out []byte, truncated, repaired bool) {
	if s.finished {
		if !s.started {
			return nil, false, s.repaired
		}
		return s.out, s.truncated, s.repaired
	}
	s.finished = true
	if !s.started {
		return nil, false, s.repaired
	}
	if s.state == stSP { // cut inside a `▁`: what came before it stands
		s.state = s.spRet
	}
	if s.state == stDoubled { // the inner object is complete (doubled.go)
		s.state = stDone
	}
	trunc := false
	switch s.state {
	case stDone:
		return s.out, false, s.repaired

	case stStr, stEsc, stHex:
		trunc = true
		if s.isKey {
			s.out = s.out[:s.memberMark]
			break
		}
		if s.state != stStr {
			s.out = s.out[:s.escMark]
		}
		if s.hiPending {
			s.out = s.out[:s.hiMark]
		}
		s.out = append(s.out, '"')

	case stUKey, stColon, stObjVal, stKeyNext, stArrNext:
		trunc = true
		s.out = s.out[:s.memberMark]

	case stKeyFirst, stArrFirst, stAfter:
		trunc = true

	case stNumMinus, stNumZero, stNumInt, stNumDot, stNumFrac, stNumE, stNumESign, stNumExp:
		switch {
		case s.numValid < 0:
			trunc = true
			if len(s.stack) == 0 {
				s.out = append(s.out[:0], "null"...)
			} else {
				s.out = s.out[:s.memberMark]
			}
		case s.numValid != len(s.out):
			trunc = true
			s.out = s.out[:s.numValid]
		}
		if len(s.stack) > 0 {
			trunc = true
		}

	case stLit:
		trunc = true
		s.out = append(s.out, scanbase.LitDst[s.lit][s.pos:]...)
	}
	for i := len(s.stack) - 1; i >= 0; i-- {
		s.out = append(s.out, scanbase.CloserOf(s.stack[i]))
	}
	s.stack = s.stack[:0]
	s.state = stDone
	s.truncated = trunc
	return s.out, trunc, s.repaired
}

// Repair is a one-shot helper for a whole document: it scans b, finishes it,
// and if what follows the first value is only whitespace and more JSON values
// back to back (`{"a":1}{"a":1}`), keeps the first and reports repaired.
// Anything else that follows the first value, or a byte the scanner had to
// stop at, is dropped the same way (and reported as repaired). ok is false
// when b does not start with a JSON value at all (after whitespace).
func Repair(b []byte) (out []byte, truncated, repaired bool, ok bool) {
	var s Scanner
	n, _ := s.Write(b)
	if !s.started {
		return nil, false, false, false
	}
	out, truncated, repaired = s.Finish()
	for _, c := range b[n:] {
		if !scanbase.IsSpace(c) {
			repaired = true
			break
		}
	}
	return out, truncated, repaired, true
}

// String describes the scanner's position, for debugging.
func (s *Scanner) String() string {
	return fmt.Sprintf("jsonscan.Scanner{len=%d depth=%d state=%q failed=%v}", s.n, len(s.stack), stateNames[s.state], s.failed)
}
