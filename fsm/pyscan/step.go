package pyscan

import (
	"unicode/utf8"

	"github.com/toolsieve/toolsieve/internal/scanbase"
)

// Grammar states. The comments say what the scanner expects next.
const (
	stOpen       uint8 = iota // List mode start: whitespace, then '['
	stFirstCall               // before the first call: whitespace, a callee name, or ']' (List)
	stBetween                 // after a call: whitespace, ',', a callee name, or ']' (List)
	stName                    // in a callee name: more name, spaces or '('
	stNameSp                  // after a callee name and spaces: '('
	stKwFirst                 // after a call's '(': a keyword or ')'
	stKwNext                  // after ',' in a call: a keyword or ')'
	stKw                      // in a keyword: more keyword, spaces or '='
	stKwEq                    // after a keyword and spaces: '='
	stKeyFirst                // after '{': a key or '}'
	stKeyNext                 // after ',' in a dict: a key or '}'
	stColon                   // after a dict key: ':'
	stElemFirst               // after '[' or '(': a value or the closer
	stElemNext                // after ',' in a list or tuple: a value or the closer
	stValue                   // after '=' or ':': a value
	stAfter                   // after a value: ',' or the closer
	stPrefix                  // after a string prefix letter: another prefix letter or a quote
	stQ1                      // after an opening quote: content, or a second quote
	stQ2                      // after two quotes: a third (triple-quoted string) or whatever follows an empty string
	stStr                     // inside a string
	stEsc                     // after a backslash in a string
	stHex                     // in the hex digits of \x, \u or \U
	stOct                     // in the octal digits of \ooo
	stRawEsc                  // after a backslash in a raw string: any byte, kept
	stStrEnd                  // after a closing quote: an adjacent string literal continues the string
	stNumSign                 // after a number's sign: a digit or '.'
	stNumZero                 // after a number's leading '0'
	stNumLZ                   // in an int with a leading zero (`020`, written as a string)
	stNumInt                  // in a number's integer digits
	stNumDot                  // after the integer part's '.'
	stNumLDot                 // after a leading '.' (`.5`): a digit
	stNumFrac                 // in a number's fraction digits
	stNumE                    // after a number's 'e' or 'E': a sign or digit
	stNumESign                // after the exponent's sign: a digit
	stNumExp                  // in a number's exponent digits
	stLit                     // inside True, False, None, true, false or null
	stDictArgEnd              // after the '}' of a dict that is a call's only argument: ')' (after one ',' at most)
	stListEnd                 // List mode: the ']' was consumed
	stFinished                // Finish completed a call
	numStates
)

var stateNames = [numStates]string{
	stOpen:       "before '['",
	stFirstCall:  "before the first call",
	stBetween:    "between calls",
	stName:       "in a callee name",
	stNameSp:     "after a callee name",
	stKwFirst:    "after '(' of a call",
	stKwNext:     "after ',' in a call",
	stKw:         "in a keyword",
	stKwEq:       "after a keyword",
	stKeyFirst:   "after '{'",
	stKeyNext:    "after ',' in a dict",
	stColon:      "after a dict key",
	stElemFirst:  "after '[' or '('",
	stElemNext:   "after ',' in a list or tuple",
	stValue:      "at the start of a value",
	stAfter:      "after a value",
	stPrefix:     "after a string prefix",
	stQ1:         "in a string",
	stQ2:         "after two quotes",
	stStr:        "in a string",
	stEsc:        "in a string escape",
	stHex:        "in a hex escape",
	stOct:        "in an octal escape",
	stRawEsc:     "in a raw string escape",
	stStrEnd:     "after a string",
	stNumSign:    "in a number",
	stNumZero:    "in a number",
	stNumLZ:      "in a number",
	stNumInt:     "in a number",
	stNumDot:     "in a number",
	stNumLDot:    "in a number",
	stNumFrac:    "in a number",
	stNumE:       "in a number",
	stNumESign:   "in a number",
	stNumExp:     "in a number",
	stLit:        "in a literal",
	stDictArgEnd: "after a call's dict argument",
	stListEnd:    "after the list",
	stFinished:   "after Finish",
}

// skipsSpace marks the states in which whitespace is skipped and changes
// nothing, for Write's fast path.
var skipsSpace = [numStates]bool{
	stOpen: true, stFirstCall: true, stBetween: true,
	stKwFirst: true, stKwNext: true, stKwEq: true,
	stKeyFirst: true, stKeyNext: true, stColon: true,
	stElemFirst: true, stElemNext: true, stValue: true, stAfter: true,
	stStrEnd: true, stDictArgEnd: true,
}

// Results of one step of the state machine on one byte: scanbase's
// (stop: the byte cannot continue, failed), and two of pyscan's own.
const (
	consumed = scanbase.Consumed
	again    = scanbase.Again
	stop     = scanbase.Stop
	endCall  = scanbase.Stop + 1 // the byte was used and completed a call
	endList  = scanbase.Stop + 2 // the byte was used and completed the list
)

func (s *Scanner) fail() uint8 {
	s.failed = true
	return stop
}

func isLetter(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isIdent reports whether c may continue a keyword.
func isIdent(c byte) bool { return isLetter(c) || isDigit(c) }

// isNameByte reports whether c may continue a callee name.
func isNameByte(c byte) bool { return isIdent(c) || c == '.' || c == '-' }

// isPrefix reports whether c is a string prefix letter (r, b, u).
func isPrefix(c byte) bool {
	switch c | 0x20 {
	case 'r', 'b', 'u':
		return true
	}
	return false
}

// strRune writes the character an escape stands for. Surrogates are kept as
// \u escapes so that a Python pair like '\ud83d\ude00' decodes to one
// character in JSON.
func (s *Scanner) strRune(r rune) {
	switch {
	case r < 0x80:
		s.out = scanbase.AppendStrByte(s.out, byte(r))
	case r >= 0xD800 && r < 0xE000:
		s.out = scanbase.AppendUEscape(s.out, r)
	default:
		s.out = utf8.AppendRune(s.out, r)
	}
}

// escLiteral writes an escape that is not one (`\x4`, `\U00110000`) as the
// characters it was written with.
func (s *Scanner) escLiteral() {
	s.out = append(s.out, '\\', '\\', s.esc)
	s.out = append(s.out, s.digs[:s.pos]...)
}

// beginMember starts a member or element of the innermost container; next
// says a ',' came before it. Commas are written only here, so a trailing
// comma never reaches the output.
func (s *Scanner) beginMember(next bool) {
	s.memberMark = len(s.out)
	if next {
		s.out = append(s.out, ',')
	}
}

// open opens a list, tuple or dict.
func (s *Scanner) open(c byte) uint8 {
	if s.depth == len(s.frames) {
		return s.fail()
	}
	s.frames[s.depth] = frame{kind: c, mark: len(s.out)}
	s.depth++
	if c == '{' {
		s.out = append(s.out, '{')
		s.state = stKeyFirst
	} else {
		s.out = append(s.out, '[')
		s.state = stElemFirst
	}
	return consumed
}

// closeTop writes the innermost container's closer and pops it. A '(' with
// one element and no comma is a group, not a tuple: its '[' becomes a hole.
func (s *Scanner) closeTop() {
	f := &s.frames[s.depth-1]
	switch f.kind {
	case 'c', '{', 'd':
		s.out = append(s.out, '}')
	case '[':
		s.out = append(s.out, ']')
	case '(':
		if !f.comma && len(s.out) > f.mark+1 {
			s.holes = append(s.holes, f.mark)
		} else {
			s.out = append(s.out, ']')
		}
	}
	s.depth--
}

// close handles a closing bracket c in a container state.
func (s *Scanner) close(c byte) uint8 {
	var want byte
	f := &s.frames[s.depth-1]
	switch f.kind {
	case 'c', '(':
		want = ')'
	case '[':
		want = ']'
	case '{', 'd':
		want = '}'
	}
	if c != want {
		return s.fail()
	}
	if f.kind == 'd' { // the call's dict argument: its object is complete, the call's ')' comes next
		s.out = append(s.out, '}')
		f.kind, f.comma = 'D', false
		s.state = stDictArgEnd
		return consumed
	}
	s.closeTop()
	if s.depth == 0 {
		s.compact()
		s.calls++
		s.state = stBetween
		return endCall
	}
	s.state = stAfter
	return consumed
}

// comma handles a ',' after a value.
func (s *Scanner) comma() {
	f := &s.frames[s.depth-1]
	f.comma = true
	switch f.kind {
	case 'c':
		s.state = stKwNext
	case '{', 'd':
		s.state = stKeyNext
	default:
		s.state = stElemNext
	}
}

// beginValue starts a value at c (not whitespace).
func (s *Scanner) beginValue(c byte) uint8 {
	switch {
	case c == '\'' || c == '"':
		s.isKey = false
		s.raw = false
		s.out = append(s.out, '"')
		s.startQuote(c)
		return consumed
	case c == '[' || c == '(' || c == '{':
		return s.open(c)
	case isDigit(c) || c == '-' || c == '+' || c == '.':
		s.beginNumber(c, false)
		return consumed
	}
	return s.beginWord(c, false)
}

// beginKey starts a dict key at c (not whitespace): a string, a number or a
// literal, all written as JSON strings.
func (s *Scanner) beginKey(c byte) uint8 {
	switch {
	case c == '\'' || c == '"':
		s.isKey = true
		s.raw = false
		s.out = append(s.out, '"')
		s.startQuote(c)
		return consumed
	case isDigit(c) || c == '-' || c == '+' || c == '.':
		s.beginNumber(c, true)
		return consumed
	}
	return s.beginWord(c, true)
}

// beginWord starts a literal or a prefixed string at letter c. Any other
// word (a variable, a nested call) fails.
func (s *Scanner) beginWord(c byte, key bool) uint8 {
	s.isKey = key
	if l, ok := scanbase.LitFor(c); ok {
		s.lit = l
		s.pos = 1
		s.state = stLit
		return consumed
	}
	if isPrefix(c) {
		s.pfx = c | 0x20
		s.pos = 1
		s.raw = s.pfx == 'r'
		s.cont = false
		s.state = stPrefix
		return consumed
	}
	return s.fail()
}

// startQuote starts the content of a string at its opening quote q; the
// JSON opening quote is already written.
func (s *Scanner) startQuote(q byte) {
	s.quote = q
	s.triple = false
	s.qrun = 0
	s.state = stQ1
}

// endString writes the closing quote of a string.
func (s *Scanner) endString() {
	s.out = append(s.out, '"')
	s.state = stStrEnd
}

// flushQuotes writes the quotes held back in a triple-quoted string when
// they turn out to be content.
func (s *Scanner) flushQuotes() {
	for ; s.qrun > 0; s.qrun-- {
		s.out = scanbase.AppendStrByte(s.out, s.quote)
	}
}

// beginNumber starts a number at c: a digit, sign or '.'.
func (s *Scanner) beginNumber(c byte, key bool) {
	s.isKey = key
	s.under = false
	if key {
		s.out = append(s.out, '"')
	}
	s.numStart = len(s.out)
	switch {
	case c == '-':
		s.out = append(s.out, '-')
		s.state = stNumSign
	case c == '+':
		s.state = stNumSign
	case c == '.':
		s.out = append(s.out, '0', '.')
		s.state = stNumLDot
	case c == '0':
		s.out = append(s.out, '0')
		s.state = stNumZero
	default:
		s.out = append(s.out, c)
		s.state = stNumInt
	}
}

// endValue moves past a complete scalar: a key goes on to ':'.
func (s *Scanner) endValue() uint8 {
	if s.isKey {
		s.state = stColon
	} else {
		s.state = stAfter
	}
	return again
}

// endNumber ends a number at c, a byte that cannot continue it.
func (s *Scanner) endNumber() uint8 {
	if s.isKey {
		s.out = append(s.out, '"')
	}
	return s.endValue()
}

// digits handles the bytes that all digit-run states share: a digit is
// written, a '_' between digits is dropped. It reports whether c was one.
func (s *Scanner) digits(c byte) (uint8, bool) {
	switch {
	case isDigit(c):
		s.out = append(s.out, c)
		s.under = false
		return consumed, true
	case c == '_':
		if s.under {
			return s.fail(), true
		}
		s.under = true
		return consumed, true
	case s.under:
		// `1_` followed by anything but a digit.
		return s.fail(), true
	}
	return 0, false
}

// step runs the state machine on one byte.
func (s *Scanner) step(c byte) uint8 {
	switch s.state {
	case stOpen:
		if scanbase.IsSpace(c) {
			return consumed
		}
		if c != '[' {
			return s.fail()
		}
		s.started = true
		s.state = stFirstCall
		return consumed

	case stFirstCall, stBetween:
		switch {
		case scanbase.IsSpace(c):
		case c == ',' && s.state == stBetween:
		case c == ']' && s.mode == List:
			s.state = stListEnd
			return endList
		case isLetter(c):
			s.name[0] = c
			s.nlen = 1
			s.started = true
			s.state = stName
		default:
			return s.fail()
		}
		return consumed

	case stName, stNameSp:
		switch {
		case isNameByte(c) && s.state == stName:
			if int(s.nlen) == maxName {
				return s.fail()
			}
			s.name[s.nlen] = c
			s.nlen++
		case c == ' ' || c == '\t':
			s.state = stNameSp
		case c == '(':
			s.out = append(s.out[:0], '{')
			s.holes = s.holes[:0]
			s.frames[0] = frame{kind: 'c'}
			s.depth = 1
			s.memberMark = len(s.out)
			s.state = stKwFirst
		default:
			return s.fail()
		}
		return consumed

	case stKwFirst, stKwNext:
		if scanbase.IsSpace(c) {
			return consumed
		}
		if c == ')' {
			return s.close(c)
		}
		if c == '{' && s.state == stKwFirst {
			// f({"k": v}): a dict as the only argument is the arguments.
			s.frames[0].kind = 'd'
			s.state = stKeyFirst
			return consumed
		}
		if !isLetter(c) {
			// A positional value, `**kw`, `*args`.
			return s.fail()
		}
		s.beginMember(s.state == stKwNext)
		s.out = append(s.out, '"', c)
		s.state = stKw
		return consumed

	case stKw:
		switch {
		case isIdent(c):
			s.out = append(s.out, c)
		case c == '=':
			s.out = append(s.out, '"', ':')
			s.state = stValue
		case scanbase.IsSpace(c):
			s.out = append(s.out, '"')
			s.state = stKwEq
		default:
			// `f(x)`, `f(x, y)`, `f(g(1))`, `f(a.b=1)`.
			return s.fail()
		}
		return consumed

	case stKwEq:
		if scanbase.IsSpace(c) {
			return consumed
		}
		if c != '=' {
			return s.fail()
		}
		s.out = append(s.out, ':')
		s.state = stValue
		return consumed

	case stKeyFirst, stKeyNext:
		if scanbase.IsSpace(c) {
			return consumed
		}
		if c == '}' {
			return s.close(c)
		}
		s.beginMember(s.state == stKeyNext)
		return s.beginKey(c)

	case stColon:
		if scanbase.IsSpace(c) {
			return consumed
		}
		if c != ':' {
			return s.fail()
		}
		s.out = append(s.out, ':')
		s.state = stValue
		return consumed

	case stElemFirst, stElemNext:
		if scanbase.IsSpace(c) {
			return consumed
		}
		if c == ']' || c == ')' {
			return s.close(c)
		}
		s.beginMember(s.state == stElemNext)
		return s.beginValue(c)

	case stValue:
		if scanbase.IsSpace(c) {
			return consumed
		}
		return s.beginValue(c)

	case stDictArgEnd:
		f := &s.frames[0]
		switch {
		case scanbase.IsSpace(c):
			return consumed
		case c == ',' && !f.comma:
			f.comma = true
			return consumed
		case c == ')':
			s.depth = 0
			s.compact()
			s.calls++
			s.state = stBetween
			return endCall
		}
		return s.fail()

	case stAfter:
		switch c {
		case ' ', '\n', '\r', '\t':
			return consumed
		case ',':
			s.comma()
			return consumed
		case ')', ']', '}':
			return s.close(c)
		}
		return s.fail()

	case stPrefix:
		if c == '\'' || c == '"' {
			if !s.cont {
				s.out = append(s.out, '"')
			}
			s.cont = false
			s.startQuote(c)
			return consumed
		}
		// rb and br; u combines with nothing.
		if l := c | 0x20; s.pos == 1 && (s.pfx == 'r' && l == 'b' || s.pfx == 'b' && l == 'r') {
			s.pos = 2
			s.raw = true
			return consumed
		}
		return s.fail()

	case stQ1:
		if c == s.quote {
			s.state = stQ2
			return consumed
		}
		s.state = stStr
		return again

	case stQ2:
		if c == s.quote {
			s.triple = true
			s.state = stStr
			return consumed
		}
		// An empty string.
		s.endString()
		return again

	case stStr:
		if c == s.quote {
			if !s.triple {
				s.endString()
				return consumed
			}
			s.qrun++
			if s.qrun == 3 {
				s.qrun = 0
				s.endString()
			}
			return consumed
		}
		s.flushQuotes()
		if c == '\\' {
			if s.raw {
				s.out = append(s.out, '\\', '\\')
				s.state = stRawEsc
			} else {
				s.state = stEsc
			}
			return consumed
		}
		s.out = scanbase.AppendStrByte(s.out, c)
		return consumed

	case stRawEsc:
		// In a raw string the backslash stays and the byte after it, even a
		// quote, is content.
		s.out = scanbase.AppendStrByte(s.out, c)
		s.state = stStr
		return consumed

	case stEsc:
		return s.escape(c)

	case stHex:
		if v, ok := scanbase.HexVal(c); ok {
			s.digs[s.pos] = c
			s.pos++
			s.uval = s.uval<<4 | v
			need := uint8(2)
			switch s.esc {
			case 'u':
				need = 4
			case 'U':
				need = 8
			}
			if s.pos == need {
				if s.uval > utf8.MaxRune {
					s.escLiteral()
				} else {
					s.strRune(s.uval)
				}
				s.state = stStr
			}
			return consumed
		}
		// A truncated escape: keep what was written.
		s.escLiteral()
		s.state = stStr
		return again

	case stOct:
		if c >= '0' && c <= '7' {
			s.uval = s.uval<<3 | rune(c-'0')
			s.pos++
			if s.pos == 3 {
				s.strRune(s.uval)
				s.state = stStr
			}
			return consumed
		}
		s.strRune(s.uval)
		s.state = stStr
		return again

	case stStrEnd:
		switch {
		case scanbase.IsSpace(c):
			return consumed
		case c == '\'' || c == '"':
			// Adjacent literals concatenate: reopen the string.
			s.out = s.out[:len(s.out)-1]
			s.raw = false
			s.startQuote(c)
			return consumed
		case isPrefix(c):
			s.out = s.out[:len(s.out)-1]
			s.pfx = c | 0x20
			s.pos = 1
			s.raw = s.pfx == 'r'
			s.cont = true
			s.state = stPrefix
			return consumed
		}
		return s.endValue()

	case stNumSign:
		switch {
		case c == '0':
			s.out = append(s.out, c)
			s.state = stNumZero
		case isDigit(c):
			s.out = append(s.out, c)
			s.state = stNumInt
		case c == '.':
			s.out = append(s.out, '0', '.')
			s.state = stNumLDot
		default:
			return s.fail()
		}
		return consumed

	case stNumZero:
		switch {
		case isDigit(c):
			// `020`: not a Python int; kept as the string "020".
			if !s.isKey {
				s.out = append(s.out, 0)
				copy(s.out[s.numStart+1:], s.out[s.numStart:len(s.out)-1])
				s.out[s.numStart] = '"'
			}
			s.out = append(s.out, c)
			s.state = stNumLZ
		case c == '.':
			s.out = append(s.out, c)
			s.state = stNumDot
		case c == 'e' || c == 'E':
			s.eMark = len(s.out)
			s.out = append(s.out, 'e')
			s.state = stNumE
		default:
			return s.endNumber()
		}
		return consumed

	case stNumLZ:
		switch {
		case isDigit(c):
			s.out = append(s.out, c)
		case c == '.' || c == 'e' || c == 'E' || c == '_' || isIdent(c):
			return s.fail()
		default:
			s.out = append(s.out, '"')
			return s.endValue()
		}
		return consumed

	case stNumInt:
		if r, ok := s.digits(c); ok {
			return r
		}
		switch c {
		case '.':
			s.out = append(s.out, c)
			s.state = stNumDot
		case 'e', 'E':
			s.eMark = len(s.out)
			s.out = append(s.out, 'e')
			s.state = stNumE
		default:
			return s.endNumber()
		}
		return consumed

	case stNumDot:
		switch {
		case isDigit(c):
			s.out = append(s.out, c)
			s.state = stNumFrac
		case c == 'e' || c == 'E':
			// `5.e3` -> 5.0e3
			s.out = append(s.out, '0')
			s.eMark = len(s.out)
			s.out = append(s.out, 'e')
			s.state = stNumE
		case c == '_':
			return s.fail()
		default:
			// `5.` -> 5.0
			s.out = append(s.out, '0')
			return s.endNumber()
		}
		return consumed

	case stNumLDot:
		if !isDigit(c) {
			return s.fail()
		}
		s.out = append(s.out, c)
		s.state = stNumFrac
		return consumed

	case stNumFrac:
		if r, ok := s.digits(c); ok {
			return r
		}
		if c == 'e' || c == 'E' {
			s.eMark = len(s.out)
			s.out = append(s.out, 'e')
			s.state = stNumE
			return consumed
		}
		return s.endNumber()

	case stNumE:
		switch {
		case c == '+' || c == '-':
			s.out = append(s.out, c)
			s.state = stNumESign
		case isDigit(c):
			s.out = append(s.out, c)
			s.state = stNumExp
		default:
			return s.fail()
		}
		return consumed

	case stNumESign:
		if !isDigit(c) {
			return s.fail()
		}
		s.out = append(s.out, c)
		s.state = stNumExp
		return consumed

	case stNumExp:
		if r, ok := s.digits(c); ok {
			return r
		}
		return s.endNumber()

	case stLit:
		src := scanbase.LitSrc[s.lit]
		if c != src[s.pos] {
			return s.fail()
		}
		s.pos++
		if int(s.pos) < len(src) {
			return consumed
		}
		if s.isKey {
			s.out = append(s.out, '"')
			s.out = append(s.out, scanbase.LitDst[s.lit]...)
			s.out = append(s.out, '"')
			s.state = stColon
		} else {
			s.out = append(s.out, scanbase.LitDst[s.lit]...)
			s.state = stAfter
		}
		return consumed
	}
	// stListEnd, stFinished
	return stop
}

// escape handles the byte after a backslash in a non-raw string.
func (s *Scanner) escape(c byte) uint8 {
	s.state = stStr
	switch c {
	case 'n', 't', 'r', 'b', 'f', '\\', '"':
		s.out = append(s.out, '\\', c)
	case '\'':
		s.out = append(s.out, '\'')
	case 'a':
		s.out = scanbase.AppendStrByte(s.out, 7)
	case 'v':
		s.out = scanbase.AppendStrByte(s.out, 11)
	case '\n':
		// A line continuation: nothing.
	case 'x', 'u', 'U':
		s.esc = c
		s.pos = 0
		s.uval = 0
		s.state = stHex
	case '0', '1', '2', '3', '4', '5', '6', '7':
		s.esc = '0'
		s.pos = 1
		s.uval = rune(c - '0')
		s.state = stOct
	default:
		// An unknown escape (`\d`, `\N{...}`): keep the backslash as a
		// character and look at c as content.
		s.out = append(s.out, '\\', '\\')
		return again
	}
	return consumed
}
