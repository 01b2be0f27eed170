// Package pyscan is a resumable scanner for pythonic tool calls.
//
// Some models (Llama 3.2 and 4, LFM2, OLMo 3) write tool calls as Python
// call expressions with keyword arguments:
//
//	[get_weather(city='San Francisco', metric="celsius"), ping()]
//
// A Scanner reads such text in chunks of any size (down to single bytes,
// split anywhere, including inside a multi-byte character or an escape
// sequence) and turns each call into its callee name and a compact JSON
// object of its arguments, e.g. {"city":"San Francisco","metric":"celsius"}.
// The wrapper markers around the calls are the caller's business; the
// scanner sees only the bytes between them.
//
// In the manner of encoding/json's scanner and of package jsonscan, the
// position in the grammar is a small state enum plus an explicit, bounded
// stack of open containers: every byte is looked at once, the work per byte
// is constant, nothing already seen is re-read and nothing recurses on the
// input. Text that is not a call (prose, a Markdown link, a bare list, a
// positional argument, a nested call, a variable) makes Write stop at the
// first byte that proves it, so the caller can give the bytes back as text.
// One positional argument is read: a dict that is the call's only argument,
// `get_weather({"city": "SF"})`, is its arguments object (models write the
// JSON arguments of a call in a pythonic wrapper so).
//
// Values become JSON as json.dumps would write them: str literals in any
// quoting (r, b, u, rb prefixes; adjacent literals concatenate), ints and
// floats (underscores dropped, `.5` -> 0.5, `5.` -> 5.0, a leading '+'
// dropped), True/False/None (and true/false/null), lists and tuples as
// arrays, dicts as objects with string, number or literal keys written as
// strings. A parenthesized single value without a comma, `(x)`, is a group
// and yields x, as in Python. An int with a leading zero (`020`, a syntax
// error in Python) becomes the string "020", keeping a code's digits.
package pyscan

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/toolsieve/toolsieve/internal/scanbase"
)

// Mode says how calls are laid out.
type Mode uint8

const (
	// List is `[call, call, ...]`: the value is done at the closing ']'.
	List Mode = iota
	// Lines is calls separated by newlines, whitespace or commas, with no
	// brackets. It is never done by itself: the caller ends it at its closer.
	Lines
)

// Status is what Write reports.
type Status uint8

const (
	// More means all of p was consumed and nothing is complete yet.
	More Status = iota
	// CallDone means a call's closing ')' was consumed: Name and Args hold
	// the call until the next Write or Reset.
	CallDone
	// ListDone means the closing ']' of a List was consumed; nothing more
	// belongs to the value.
	ListDone
	// Failed means Write stopped before a byte that cannot continue the
	// calls. It is sticky until Reset; Err says where.
	Failed
)

func (st Status) String() string {
	switch st {
	case More:
		return "More"
	case CallDone:
		return "CallDone"
	case ListDone:
		return "ListDone"
	case Failed:
		return "Failed"
	}
	return "Status(" + strconv.Itoa(int(st)) + ")"
}

const (
	maxName  = 128 // longest callee name, in bytes
	maxDepth = 64  // most containers open inside one call's arguments
)

// SyntaxError is the error Err returns after Write met a byte that cannot
// continue the calls.
type SyntaxError = scanbase.SyntaxError

// frame is one open container inside a call.
type frame struct {
	kind  byte // 'c' the call's arguments, '{' dict, '[' list, '(' tuple or group, 'd' a dict that is the call's only argument ('D' once closed)
	comma bool // a ',' was seen at this level: a '(' is a tuple, not a group
	mark  int  // len(out) before the container's opening byte
}

// Scanner scans pythonic calls. The zero value is ready for List mode; Reset
// selects the mode and keeps the buffers for reuse.
type Scanner struct {
	out    []byte // JSON arguments of the current call
	holes  []int  // offsets in out of '[' bytes written for a '(' that was only a group; cut when the call ends
	frames [maxDepth + 1]frame
	depth  int // open frames, the call's own included
	name   [maxName]byte
	nlen   uint8 // bytes of name in use

	mode  Mode
	state uint8
	quote byte  // the quote of the current string: '\'' or '"'
	qrun  uint8 // quotes in a row seen in a triple-quoted string, not written yet
	lit   uint8 // which literal (stLit)
	pos   uint8 // bytes of the literal matched, prefix letters, or escape digits read
	pfx   byte  // the first string prefix letter, lower case
	esc   byte  // the escape being read: 'x', 'u', 'U', or '0' for octal
	digs  [8]byte
	uval  rune // value of the escape being read

	triple   bool // the current string is triple-quoted
	raw      bool // the current string is raw (r prefix)
	isKey    bool // the current string, number or literal is a dict key
	cont     bool // a string prefix follows an adjacent string (implicit concatenation)
	under    bool // the last byte of the number was '_'
	started  bool
	failed   bool
	finished bool

	calls      int
	n          int // bytes consumed since Reset
	memberMark int // len(out) before the current member of the innermost container (before its ',')
	numStart   int // len(out) at the start of the current number (after a key's quote)
	eMark      int // len(out) before the current number's exponent

	err *SyntaxError
}

// Reset prepares the scanner for new input in the given mode, keeping its
// buffers.
func (s *Scanner) Reset(mode Mode) {
	*s = Scanner{out: s.out[:0], holes: s.holes[:0], mode: mode}
	if mode != List {
		s.state = stFirstCall
	}
}

// Write consumes bytes of p. It stops after the byte that completes a call
// (CallDone; n may be less than len(p) and the caller writes p[n:] next),
// after a List's closing ']' (ListDone), or before a byte that cannot
// continue (Failed, with n pointing at that byte). Otherwise it consumes all
// of p and returns More. After ListDone, Failed or Finish it consumes
// nothing.
func (s *Scanner) Write(p []byte) (n int, st Status) {
	switch {
	case s.failed:
		return 0, Failed
	case s.state == stListEnd:
		return 0, ListDone
	case s.finished:
		return 0, More
	}
	if n := 2*len(p) + 16; cap(s.out)-len(s.out) < n {
		s.out = scanbase.Grow(s.out, n) // by doubling
	}
	i := 0
	for i < len(p) {
		// Fast paths: runs of bytes that only copy or skip.
		switch s.state {
		case stStr:
			if s.qrun == 0 {
				j := i
				for j < len(p) {
					c := p[j]
					if c < 0x20 || c == '"' || c == '\\' || c == s.quote {
						break
					}
					j++
				}
				if j > i {
					s.out = append(s.out, p[i:j]...)
					i = j
					continue
				}
			}
		case stNumInt, stNumFrac, stNumExp, stNumLZ:
			j := i
			for j < len(p) && p[j] >= '0' && p[j] <= '9' {
				j++
			}
			if j > i {
				s.out = append(s.out, p[i:j]...)
				s.under = false
				i = j
				continue
			}
		default:
			if skipsSpace[s.state] {
				j := i
				for j < len(p) && scanbase.IsSpace(p[j]) {
					j++
				}
				if j > i {
					i = j
					continue
				}
			}
		}
		c := p[i]
		r := s.step(c)
		for r == again {
			r = s.step(c)
		}
		switch r {
		case stop:
			s.err = &SyntaxError{Scanner: "pyscan", Offset: s.n + i, Byte: c, Where: stateNames[s.state]}
			s.n += i
			return i, Failed
		case endCall:
			i++
			s.n += i
			return i, CallDone
		case endList:
			i++
			s.n += i
			return i, ListDone
		}
		i++
	}
	s.n += i
	return i, More
}

// Name returns the callee name of the last completed (or finished) call.
// The slice aliases the scanner and is valid until the next Write or Reset.
func (s *Scanner) Name() []byte { return s.name[:s.nlen] }

// Take returns Args and gives the scanner the room of buf for the next
// call: a caller keeps the arguments without copying them.
func (s *Scanner) Take(buf []byte) []byte {
	out := s.out
	s.out = buf[:0]
	return out
}

// Args returns the arguments of the last completed (or finished) call as a
// compact JSON object. The slice aliases the scanner's buffer and is valid
// until the next Write or Reset.
func (s *Scanner) Args() []byte { return s.out }

// Started reports whether a non-whitespace byte was consumed.
func (s *Scanner) Started() bool { return s.started }

// InString reports whether the scanner is inside a string literal: a marker
// arriving now is string content.
func (s *Scanner) InString() bool {
	switch s.state {
	case stQ1, stStr, stEsc, stHex, stOct, stRawEsc:
		return true
	}
	return false
}

// InCall reports whether the scanner is between a callee name's first byte
// and its closing ')'.
func (s *Scanner) InCall() bool {
	return s.depth > 0 || s.state == stName || s.state == stNameSp
}

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

// Calls returns the number of calls completed since Reset.
func (s *Scanner) Calls() int { return s.calls }

// Len returns the number of bytes consumed since Reset.
func (s *Scanner) Len() int { return s.n }

// Finish ends the input. If a call is in progress and its name and '(' were
// seen, it completes the call and returns it with truncated set: an open
// string is closed (a partial escape or a pending triple-quote closer is
// dropped), a number's incomplete tail is cut (`1e` -> 1, `5.` -> 5.0), a
// member whose key or value was cut before anything usable (`a=`, `a=Tr`,
// `{'k'`, `a=-`) is dropped, and open containers are closed. ok is false
// when no call was in progress (including `[f` with no '(' yet) or the
// scanner failed. After Finish, Write consumes nothing; Name and Args hold
// the finished call. Finish is idempotent.
func (s *Scanner) Finish() (name, args []byte, truncated, ok bool) {
	if s.finished {
		if s.state != stFinished {
			return nil, nil, false, false
		}
		return s.Name(), s.out, true, true
	}
	s.finished = true
	if s.failed || s.depth == 0 {
		return nil, nil, false, false
	}
	drop := false
	switch s.state {
	case stKw, stKwEq, stColon, stValue, stLit, stNumSign, stNumLDot:
		drop = true
	case stPrefix:
		// After an adjacent string, restore its closing quote.
		if s.cont && !s.isKey {
			s.out = append(s.out, '"')
		} else {
			drop = true
		}
	case stQ1, stQ2, stStr, stEsc, stHex, stOct, stRawEsc:
		if s.isKey {
			drop = true
		} else {
			if s.state == stStr && s.qrun == 0 {
				s.trimCutRune()
			}
			s.out = append(s.out, '"')
		}
	case stStrEnd:
		drop = s.isKey
	case stNumZero, stNumInt, stNumFrac, stNumExp, stNumLZ, stNumDot, stNumE, stNumESign:
		switch {
		case s.isKey:
			drop = true
		case s.state == stNumDot:
			s.out = append(s.out, '0')
		case s.state == stNumE || s.state == stNumESign:
			s.out = s.out[:s.eMark]
		case s.state == stNumLZ:
			s.out = append(s.out, '"')
		}
	}
	if drop {
		s.out = s.out[:s.memberMark]
		k := 0
		for _, h := range s.holes {
			if h < s.memberMark {
				s.holes[k] = h
				k++
			}
		}
		s.holes = s.holes[:k]
	}
	for s.depth > 0 {
		s.closeTop()
	}
	s.compact()
	s.state = stFinished
	return s.Name(), s.out, true, true
}

// trimCutRune drops a multi-byte character cut off at the end of out, so
// that a finished string is valid UTF-8 where the input was.
func (s *Scanner) trimCutRune() {
	for k := 1; k <= 3 && k <= len(s.out); k++ {
		c := s.out[len(s.out)-k]
		if c < 0x80 {
			return
		}
		if c >= 0xC0 {
			need := 2
			if c >= 0xF0 {
				need = 4
			} else if c >= 0xE0 {
				need = 3
			}
			if need > k {
				s.out = s.out[:len(s.out)-k]
			}
			return
		}
	}
}

// compact removes the '[' bytes of groups from out. Holes are recorded only
// for `(x)` groups, so this is a single pass over the call, done once.
func (s *Scanner) compact() {
	if len(s.holes) == 0 {
		return
	}
	slices.Sort(s.holes)
	w := s.holes[0]
	for k, h := range s.holes {
		end := len(s.out)
		if k+1 < len(s.holes) {
			end = s.holes[k+1]
		}
		w += copy(s.out[w:], s.out[h+1:end])
	}
	s.out = s.out[:w]
	s.holes = s.holes[:0]
}

// String describes the scanner's position, for debugging.
func (s *Scanner) String() string {
	return fmt.Sprintf("pyscan.Scanner{len=%d depth=%d calls=%d state=%q failed=%v}",
		s.n, s.depth, s.calls, stateNames[s.state], s.failed)
}
