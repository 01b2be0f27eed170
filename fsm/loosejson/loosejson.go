// Package loosejson converts the loose object notation that Gemma-family
// models write inside tool calls into valid, compact JSON, as it streams.
//
// Gemma 4 writes `call:get_weather{location:<|"|>Paris<|"|>,days:5}` and
// FunctionGemma writes `call:get_weather{location:<escape>Paris<escape>}`.
// The body after the function name is a loose object: bare keys, string
// values between a delimiter token (which makes every other byte, quotes and
// braces included, literal content), bare numbers, true/false/null, and
// nested objects and arrays. A Scanner reads one such object in chunks of
// any size, split anywhere (inside the delimiter, inside a multi-byte
// character), and writes the equivalent JSON into an internal buffer:
//
//	{location:<|"|>Paris, France<|"|>,days:5}  ->  {"location":"Paris, France","days":5}
//
// Every byte is looked at once. The scanner keeps its place in the grammar
// as a small state enum and a bit stack of open containers, in the manner of
// encoding/json's scanner and of package jsonscan; the partial match of the
// delimiter is a counter with a precomputed failure table
// (Knuth-Morris-Pratt), so a near-miss such as `<|"` followed by other text
// is emitted as content without re-reading input. Work per input byte is constant
// (amortised), memory is bounded by the output, and the output buffer is
// reused across Reset.
//
// Besides the canonical form the scanner accepts what models and engines
// are reported to produce: keys and strings in plain JSON or single quotes,
// '=' for ':', Python literals, trailing and missing commas, whitespace
// between tokens, bare unquoted words as string values (`unit:celsius`), a
// string whose opening delimiter was left out (`q:Tokyo<|"|>`), and a string
// whose closing delimiter was left out when the next member follows it
// (`a:<|"|>x,b:<|"|>y<|"|>`). At the end of the input Finish completes a
// value that was cut off.
package loosejson

import (
	"fmt"

	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/internal/scanbase"
)

// Limits.
const (
	MaxDepth = 64 // open objects and arrays, the top-level object included
	MaxDelim = 32 // bytes in a string delimiter
)

// Grammar states. The comments say what the scanner expects next.
const (
	stTop      uint8 = iota // whitespace, then the '{' of the top-level object
	stKeyFirst              // after '{': a key or '}'
	stKeyNext               // after ',' in an object: a key or '}' (trailing comma)
	stKey                   // inside a bare key: more key bytes, or its end
	stColon                 // after a key: ':' (or '=')
	stObjVal                // after ':': a value; ',' or a closer means an empty value
	stArrFirst              // after '[': a value or ']'
	stArrNext               // after ',' in an array: a value or ']' (trailing comma)
	stAfter                 // after a value in a container: ',' or a closer
	stOpen                  // inside the opening string delimiter: its next byte
	stDStr                  // inside a delimited string: content or the closing delimiter
	stQStr                  // inside a quoted string: content or the closing quote
	stEsc                   // after a backslash in a quoted string
	stHex                   // inside the hex digits of a \u escape
	stWord                  // inside a bare value (number, literal or word): more of it, or ',', '}', ']'
	stDone                  // the top-level object is complete
	stQDelim                // after a quoted value and a delimiter right after it: its closer, or a key's opener
)

var stateNames = [...]string{
	stTop:      "before the object",
	stKeyFirst: "after '{'",
	stKeyNext:  "after ',' in an object",
	stKey:      "in a key",
	stColon:    "after an object key",
	stObjVal:   "after ':'",
	stArrFirst: "after '['",
	stArrNext:  "after ',' in an array",
	stAfter:    "after a value",
	stOpen:     "in a string delimiter",
	stDStr:     "in a delimited string",
	stQStr:     "in a quoted string",
	stEsc:      "in a string escape",
	stHex:      "in a \\u escape",
	stWord:     "in a bare value",
	stDone:     "after the object",
	stQDelim:   "after a delimiter that follows a quoted value",
}

// Results of one step of the state machine on one byte (stop: the byte is
// not part of the object, done or failed).
const (
	consumed = scanbase.Consumed
	again    = scanbase.Again
	stop     = scanbase.Stop
)

// Number states of a bare value that still reads as a JSON number. A bare
// value that stops being one becomes a string (numStr).
const (
	numStr   uint8 = iota // not a number: a quoted word
	numMinus              // after '-'
	numZero               // after a leading '0' (complete)
	numInt                // in the integer digits (complete)
	numDot                // after '.'
	numFrac               // in the fraction digits (complete)
	numE                  // after 'e' or 'E'
	numESign              // after the exponent's sign
	numExp                // in the exponent digits (complete)
)

// Progress of a delimited string value's content towards looking like the
// start of the next member (`…,key:` in an object, `…,` in an array), which
// is how a missing closing delimiter shows itself.
const (
	sfNone   uint8 = iota
	sfComma        // content ends with ',' and whitespace
	sfKey          // … and then key bytes
	sfKeyEnd       // … and then whitespace
	sfColon        // … and then ':' or '=' and whitespace
)

// SyntaxError is the error Err returns after Write met a byte that cannot
// continue the object.
type SyntaxError = scanbase.SyntaxError

// Scanner converts one loose object to JSON. Call Reset with the delimiter
// before use; the zero value scans with no delimiter (quoted strings only).
type Scanner struct {
	out     []byte // the JSON written so far
	scratch []byte // reused by the missing-delimiter repair

	delim string          // the string delimiter; "" for none
	kmp   [MaxDelim]uint8 // failure function of delim

	state uint8
	isKey bool  // the current string is an object key
	quote byte  // the quote of the current quoted string: '"' or '\''
	k     uint8 // delimiter bytes matched (stOpen, stDStr, stWord)
	hex   uint8 // hex digits read (stHex)
	num   uint8 // number state of the current bare value
	sf    uint8 // sfNone…sfColon for the current delimited value

	suspect uint8 // after a delimited value that may have lost its closing delimiter: '{' or '[', else 0

	depth  int    // open containers
	arrays uint64 // bit i set: container i is an array

	started, failed, finished, truncated bool
	// qval: the last value was a quoted string that just ended; mismatched:
	// a string opened with a quote was closed by the delimiter (Mismatched).
	qval, mismatched bool

	n          int // bytes consumed since Reset
	memberMark int // len(out) before the current member or element (before its ',')
	escMark    int // len(out) before the current escape's backslash
	valMark    int // len(out) at the start of the current bare value
	wordEnd    int // len(out) after the last non-space byte of the current bare value
	numValid   int // len(out) at the end of the longest complete number prefix, or -1
	sfMark     int // len(out) at the ',' that started the current sf run
	sfKey0     int // the key bytes of the sf run are out[sfKey0:sfKey1]
	sfKey1     int
	closeEnd   int // len(out) after the closing quote of a suspect value

	err *SyntaxError
}

// Reset prepares the scanner for a new object whose strings are delimited by
// delim (`<|"|>` for Gemma 4, `<escape>` for FunctionGemma), keeping its
// buffers. Strings in plain double or single quotes are accepted as well; where
// delim begins with a quote, the delimiter wins. An empty delim accepts
// quoted strings only. Reset panics if delim is longer than MaxDelim.
func (s *Scanner) Reset(delim string) {
	if len(delim) > MaxDelim {
		panic("loosejson: delimiter longer than MaxDelim")
	}
	*s = Scanner{out: s.out[:0], scratch: s.scratch[:0], delim: delim}
	for i, k := 1, 0; i < len(delim); i++ {
		for k > 0 && delim[i] != delim[k] {
			k = int(s.kmp[k-1])
		}
		if delim[i] == delim[k] {
			k++
		}
		s.kmp[i] = uint8(k)
	}
}

// Done reports whether the top-level object is complete (or was finished).
func (s *Scanner) Done() bool { return s.state == stDone }

// Started reports whether the opening '{' was consumed.
func (s *Scanner) Started() bool { return s.started }

// InString reports whether the scanner is inside a delimited or quoted
// string (a key or a value): a marker arriving now is string content. A
// bare value (`unit:celsius`) is not a string; it would end at the next
// ',', '}' or ']'.
func (s *Scanner) InString() bool {
	switch s.state {
	case stDStr, stQStr, stEsc, stHex:
		return true
	}
	return false
}

// Mismatched reports whether a string value was opened with a quote and
// closed with the delimiter (`k:'v<|"|>`, `k:'v'<|"|>`): the scanner read
// the delimiter as the string's closer, which is a repair.
func (s *Scanner) Mismatched() bool { return s.mismatched }

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

// Bytes returns the JSON written so far. It is not valid JSON until the
// object is done or finished. The slice aliases the scanner's buffer and is
// valid until the next Write, Finish or Reset.
func (s *Scanner) Bytes() []byte { return s.out }

// Take returns Bytes and gives the scanner the room of buf for the next
// object: a caller keeps the output without copying it.
func (s *Scanner) Take(buf []byte) []byte {
	out := s.out
	s.out = buf[:0]
	return out
}

// Stable returns the length of the prefix of Bytes that neither later input
// nor Finish will change. Bytes past it may still be rewritten: a bare value
// becomes a number, literal or string only when it ends, a delimited value
// that looks cut (`…,key:`) may be split by the missing-delimiter repair,
// and Finish drops a cut-off key or value. A caller streaming the JSON as
// deltas can send Bytes()[:Stable()].
func (s *Scanner) Stable() int {
	switch s.state {
	case stTop:
		return 0
	case stKey, stColon, stObjVal, stOpen, stWord:
		return s.memberMark
	case stAfter:
		if s.suspect != 0 {
			return s.sfMark
		}
	case stDStr, stQStr, stEsc, stHex:
		switch {
		case s.isKey:
			return s.memberMark
		case s.state == stEsc || s.state == stHex:
			return s.escMark
		case s.state == stDStr && s.sf != sfNone:
			return s.sfMark
		}
	}
	return len(s.out)
}

// Write consumes bytes of p until the top-level object is complete or a byte
// arrives that cannot continue it, and returns how many it consumed and
// whether the object is complete. Leading whitespace is consumed; the bytes
// after the closing '}' are not. When a byte cannot continue the object,
// Write stops before it (n points at it) and Failed becomes true; the
// failure is sticky and later Writes consume nothing.
func (s *Scanner) Write(p []byte) (n int, done bool) {
	if s.failed || s.finished || s.state == stDone {
		return 0, s.state == stDone
	}
	if n := 2*len(p) + 16; cap(s.out)-len(s.out) < n {
		s.out = scanbase.Grow(s.out, n) // by doubling
	}
	i := 0
	for i < len(p) {
		// Fast paths: copy or skip runs of bytes that do not change the
		// state. They must write exactly what step would.
		if j := s.run(p, i); j > i {
			i = j
			continue
		}
		c := p[i]
		r := s.step(c)
		for r == again {
			r = s.step(c)
		}
		if r == stop {
			if s.failed {
				s.err = &SyntaxError{Scanner: "loosejson", Offset: s.n + i, Byte: c, Where: stateNames[s.state]}
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

// run handles a run of plain bytes from p[i:] in bulk and returns where the
// run ends (i when there is none).
func (s *Scanner) run(p []byte, i int) int {
	j := i
	switch s.state {
	case stDStr:
		if s.k != 0 || !s.isKey && s.sf != sfNone {
			return i
		}
		d0 := s.delim[0]
		for j < len(p) {
			c := p[j]
			if jsonspan.EndsPlain(c) || c == d0 || c == ',' && !s.isKey {
				break
			}
			j++
		}
		s.out = append(s.out, p[i:j]...)
	case stQStr:
		d0 := byte(0)
		if s.delim != "" && !s.isKey {
			d0 = s.delim[0]
		}
		for j < len(p) {
			c := p[j]
			if jsonspan.EndsPlain(c) || c == s.quote || c == d0 && d0 != 0 || s.k > 0 {
				break
			}
			j++
		}
		s.out = append(s.out, p[i:j]...)
	case stWord:
		if s.k != 0 {
			return i
		}
		switch s.num {
		case numStr:
			for j < len(p) {
				c := p[j]
				if c <= ' ' || c == '"' || c == '\\' || c == ',' || c == '}' || c == ']' || s.delim != "" && c == s.delim[0] {
					break
				}
				j++
			}
		case numInt, numFrac, numExp:
			if len(s.out) != s.wordEnd {
				return i
			}
			for j < len(p) && p[j] >= '0' && p[j] <= '9' {
				j++
			}
		default:
			return i
		}
		if j == i {
			return i
		}
		s.out = append(s.out, p[i:j]...)
		s.wordEnd = len(s.out)
		if s.num != numStr {
			s.numValid = s.wordEnd
		}
	case stKey:
		for j < len(p) && isKeyByte(p[j]) {
			j++
		}
		s.out = append(s.out, p[i:j]...)
	case stAfter:
		if s.suspect != 0 {
			return i
		}
		fallthrough
	case stTop, stKeyFirst, stKeyNext, stColon, stObjVal, stArrFirst, stArrNext:
		for j < len(p) && scanbase.IsSpace(p[j]) {
			j++
		}
	}
	return j
}

// Finish completes the object as it stands, at the end of the input (or
// when the caller decides it is over), and returns valid JSON. It closes an
// open string (dropping a partial escape or a cut-off closing delimiter)
// and the open arrays and objects, and drops what cannot be completed with
// confidence: a cut-off key, a key without its value, a value cut inside its
// opening delimiter, a number that is only '-', and a bare word that is a
// proper prefix of a literal (`tru`). A cut number keeps its longest
// complete prefix (`1.` -> 1); another bare word is kept as a string.
//
// truncated reports whether completion was needed (the object was not
// Done). Finish returns nil if nothing was started. It is idempotent; after
// it Write consumes nothing. The slice aliases the scanner's buffer and is
// valid until the next Reset.
func (s *Scanner) Finish() (out []byte, truncated bool) {
	if s.finished || !s.started {
		s.finished = true
		if !s.started {
			return nil, false
		}
		return s.out, s.truncated
	}
	s.finished = true
	if s.state == stDone {
		return s.out, false
	}
	switch s.state {
	case stAfter:
		if s.suspect != 0 {
			s.out = s.out[:s.closeEnd]
			s.suspect = 0
		}
	case stKey, stColon, stObjVal, stOpen:
		s.out = s.out[:s.memberMark]
	case stDStr, stQStr, stEsc, stHex:
		if s.isKey {
			s.out = s.out[:s.memberMark]
			break
		}
		if s.state == stEsc || s.state == stHex {
			s.out = s.out[:s.escMark]
		}
		s.out = append(s.out, '"') // pending delimiter bytes were never written
	case stWord:
		s.out = s.out[:s.wordEnd]
		switch {
		case s.num != numStr && s.numValid < 0:
			s.out = s.out[:s.memberMark]
		case s.num != numStr:
			s.out = s.out[:s.numValid]
		case literalPrefix(s.out[s.valMark+1:]):
			s.out = s.out[:s.memberMark]
		default:
			s.endWord(false)
		}
	}
	for i := s.depth - 1; i >= 0; i-- {
		if s.arrays>>i&1 != 0 {
			s.out = append(s.out, ']')
		} else {
			s.out = append(s.out, '}')
		}
	}
	s.depth = 0
	s.state = stDone
	s.truncated = true
	return s.out, true
}

// String describes the scanner's position, for debugging.
func (s *Scanner) String() string {
	return fmt.Sprintf("loosejson.Scanner{len=%d depth=%d state=%q failed=%v}", s.n, s.depth, stateNames[s.state], s.failed)
}
