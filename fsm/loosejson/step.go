package loosejson

import "github.com/toolsieve/toolsieve/internal/scanbase"

// This file holds the state machine proper: step, which reads one byte, and
// the helpers that start and end keys, strings, bare values and containers.

// fail makes the failure sticky; Write records where it happened.
func (s *Scanner) fail() uint8 {
	s.failed = true
	return stop
}

// isKeyStart reports whether c may start a bare key: a letter, digit, '_',
// '$' or a byte of a multi-byte character.
func isKeyStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c >= 0x80
}

// isKeyByte reports whether c may continue a bare key.
func isKeyByte(c byte) bool {
	return isKeyStart(c) || c == '.' || c == '-'
}

// top returns the innermost open container, '{' or '[', or 0.
func (s *Scanner) top() byte {
	if s.depth == 0 {
		return 0
	}
	if s.arrays>>(s.depth-1)&1 != 0 {
		return '['
	}
	return '{'
}

// push opens a container; it fails past MaxDepth.
func (s *Scanner) push(c byte) uint8 {
	if s.depth == MaxDepth {
		return s.fail()
	}
	if c == '[' {
		s.arrays |= 1 << s.depth
		s.state = stArrFirst
	} else {
		s.arrays &^= 1 << s.depth
		s.state = stKeyFirst
	}
	s.depth++
	s.out = append(s.out, c)
	return consumed
}

// valueDone moves past a complete value.
func (s *Scanner) valueDone() {
	if s.depth == 0 {
		s.state = stDone
	} else {
		s.state = stAfter
	}
}

// content appends c, a content byte of the current delimited string or bare
// value (also a byte given back by a failed delimiter match).
func (s *Scanner) content(c byte) {
	if s.state == stWord {
		s.wordByte(c)
		return
	}
	if !s.isKey {
		s.track(c)
	}
	s.out = scanbase.AppendStrByte(s.out, c)
}

// track advances the sf state of a delimited value by its next content
// byte c, before c is written.
func (s *Scanner) track(c byte) {
	at := len(s.out)
	switch {
	case c == ',':
		s.sf, s.sfMark = sfComma, at
	case scanbase.IsSpace(c) && (s.sf == sfComma || s.sf == sfKeyEnd || s.sf == sfColon):
	case s.sf == sfComma && isKeyStart(c):
		s.sf, s.sfKey0, s.sfKey1 = sfKey, at, at+1
	case s.sf == sfKey && isKeyByte(c):
		s.sfKey1 = at + 1
	case s.sf == sfKey && scanbase.IsSpace(c):
		s.sf = sfKeyEnd
	case (s.sf == sfKey || s.sf == sfKeyEnd) && (c == ':' || c == '='):
		s.sf = sfColon
	default:
		s.sf = sfNone
	}
}

// match advances the delimiter match by c. Bytes that turn out not to
// start the delimiter are given back as content. It reports whether the
// delimiter is now complete and whether c was taken into the match.
func (s *Scanner) match(c byte) (complete, taken bool) {
	d := s.delim
	k := int(s.k)
	for k > 0 && d[k] != c {
		f := int(s.kmp[k-1])
		for i := 0; i < k-f; i++ {
			s.content(d[i])
		}
		k = f
	}
	if d[k] != c {
		s.k = 0
		return false, false
	}
	k++
	if k == len(d) {
		s.k = 0
		return true, true
	}
	s.k = uint8(k)
	return false, true
}

// wordByte appends c to the current bare value. A value that still reads
// as a number is written raw; the first byte that cannot continue a number
// turns it into a quoted string. Whitespace is written but stays outside
// wordEnd, so trailing whitespace can be trimmed.
func (s *Scanner) wordByte(c byte) {
	if s.num != numStr {
		if len(s.out) == s.wordEnd {
			if ns := numNext(s.num, c); ns != numStr {
				s.out = append(s.out, c)
				s.num = ns
				s.wordEnd = len(s.out)
				if ns == numZero || ns == numInt || ns == numFrac || ns == numExp {
					s.numValid = s.wordEnd
				}
				return
			}
		}
		if scanbase.IsSpace(c) {
			s.out = scanbase.AppendStrByte(s.out, c)
			return
		}
		s.toString()
	}
	s.out = scanbase.AppendStrByte(s.out, c)
	if !scanbase.IsSpace(c) {
		s.wordEnd = len(s.out)
	}
}

// toString turns the number being read into a quoted word by inserting a
// quote before it. Each byte moves once, so the cost stays linear.
func (s *Scanner) toString() {
	s.out = append(s.out, 0)
	copy(s.out[s.valMark+1:], s.out[s.valMark:len(s.out)-1])
	s.out[s.valMark] = '"'
	s.wordEnd++
	s.num = numStr
}

// numNext returns the number state after c, or numStr when c cannot
// continue the number (which makes a leading-zero integer like 020 a string).
func numNext(st uint8, c byte) uint8 {
	digit := c >= '0' && c <= '9'
	switch st {
	case numMinus:
		if c == '0' {
			return numZero
		}
		if digit {
			return numInt
		}
	case numZero, numInt, numFrac:
		switch {
		case digit && st != numZero:
			return st
		case c == '.' && st != numFrac:
			return numDot
		case c == 'e' || c == 'E':
			return numE
		}
	case numDot:
		if digit {
			return numFrac
		}
	case numE:
		if c == '+' || c == '-' {
			return numESign
		}
		if digit {
			return numExp
		}
	case numESign, numExp:
		if digit {
			return numExp
		}
	}
	return numStr
}

// endWord ends the current bare value at a ',', '}' or ']' (or at a
// delimiter, with asString: the model left out the opening delimiter).
// Trailing whitespace is trimmed; a number keeps its longest complete prefix
// (`1.` is 1), a word spelling a literal becomes it, anything else a string.
func (s *Scanner) endWord(asString bool) {
	s.out = s.out[:s.wordEnd]
	if s.num != numStr {
		if !asString && s.numValid >= 0 {
			s.out = s.out[:s.numValid]
			return
		}
		s.toString()
	} else if !asString {
		if l, ok := literal(s.out[s.valMark+1:]); ok {
			s.out = append(s.out[:s.valMark], l...)
			return
		}
	}
	s.out = append(s.out, '"')
}

// literal returns the JSON for w if it spells a literal.
func literal(w []byte) (string, bool) {
	for i, l := range scanbase.LitSrc {
		if string(w) == l {
			return scanbase.LitDst[i], true
		}
	}
	return "", false
}

// literalPrefix reports whether w is a proper prefix of a literal.
func literalPrefix(w []byte) bool {
	for _, l := range scanbase.LitSrc {
		if len(w) < len(l) && l[:len(w)] == string(w) {
			return true
		}
	}
	return false
}

// beginKey starts an object key at c (not whitespace), after the ',' that
// a previous member needs.
func (s *Scanner) beginKey(c byte) uint8 {
	delim := s.delim != "" && c == s.delim[0]
	if !delim && c != '"' && c != '\'' && !isKeyStart(c) {
		return s.fail()
	}
	s.memberMark = len(s.out)
	if s.state == stKeyNext {
		s.out = append(s.out, ',')
	}
	s.out = append(s.out, '"')
	s.isKey = true
	switch {
	case delim:
		s.openDelim()
	case c == '"' || c == '\'':
		s.quote = c
		s.state = stQStr
	default:
		s.out = append(s.out, c)
		s.state = stKey
	}
	return consumed
}

// openDelim starts a delimited string whose first delimiter byte was read.
func (s *Scanner) openDelim() {
	s.sf = sfNone
	if len(s.delim) == 1 {
		s.k = 0
		s.state = stDStr
	} else {
		s.k = 1
		s.state = stOpen
	}
}

// beginValue starts a value at c (not whitespace), after the ',' that a
// previous array element needs.
func (s *Scanner) beginValue(c byte) uint8 {
	if c < 0x20 || c == ':' || (c == '{' || c == '[') && s.depth == MaxDepth {
		return s.fail()
	}
	if s.state != stObjVal {
		s.memberMark = len(s.out)
		if s.state == stArrNext {
			s.out = append(s.out, ',')
		}
	}
	s.isKey = false
	switch {
	case s.delim != "" && c == s.delim[0]:
		s.valMark = len(s.out)
		s.out = append(s.out, '"')
		s.openDelim()
	case c == '{' || c == '[':
		return s.push(c)
	case c == '"' || c == '\'':
		s.out = append(s.out, '"')
		s.quote = c
		s.state = stQStr
	case c == '-' || c >= '0' && c <= '9':
		s.valMark = len(s.out)
		s.out = append(s.out, c)
		s.wordEnd = len(s.out)
		s.numValid = -1
		s.num = numMinus
		if c != '-' {
			s.num = numNext(numMinus, c) // numZero or numInt
			s.numValid = s.wordEnd
		}
		s.k = 0
		s.state = stWord
	default:
		s.valMark = len(s.out)
		s.out = append(s.out, '"')
		s.num = numStr
		s.k = 0
		s.state = stWord
		s.wordByte(c)
	}
	return consumed
}

// isValueStart reports whether c may start an array element after a value
// with the ',' missing.
func isValueStart(c byte) bool {
	return c > ' ' && c != ',' && c != ']' && c != '}' && c != ':'
}

// endDStr closes a delimited string whose closing delimiter was read.
func (s *Scanner) endDStr() {
	s.out = append(s.out, '"')
	if s.isKey {
		s.state = stColon
		return
	}
	t := s.top()
	if t == '{' && s.sf == sfColon || t == '[' && s.sf == sfComma {
		s.suspect = t
		s.closeEnd = len(s.out)
	}
	s.valueDone()
}

// repair handles the byte c that follows a suspect delimited value and can
// neither follow a value nor be whitespace: the value lacked its closing
// delimiter, and the delimiter just read opened the next member's value.
// The value is cut before its trailing `,key:` (or `,`), which becomes the
// next member, and c is read again as content of the new string. The
// whitespace read since the delimiter is content too.
func (s *Scanner) repair() uint8 {
	var key []byte
	if s.suspect == '{' {
		key = s.out[s.sfKey0:s.sfKey1]
	}
	s.scratch = append(append(s.scratch[:0], key...), s.out[s.closeEnd:]...)
	s.out = append(s.out[:s.sfMark], '"', ',', '"')
	if s.suspect == '{' {
		s.out = append(s.out, s.scratch[:len(key)]...)
		s.out = append(s.out, '"', ':', '"')
	}
	s.out = append(s.out, s.scratch[len(key):]...)
	s.memberMark = s.sfMark + 1
	s.suspect = 0
	s.isKey = false
	s.k = 0
	s.sf = sfNone
	s.state = stDStr
	return again
}

// step runs the state machine on one byte.
func (s *Scanner) step(c byte) uint8 {
	switch s.state {
	case stTop:
		if scanbase.IsSpace(c) {
			return consumed
		}
		if c != '{' {
			return s.fail()
		}
		s.started = true
		return s.push(c)

	case stKeyFirst, stKeyNext:
		switch {
		case scanbase.IsSpace(c):
			return consumed
		case c == '}' || c == ']':
			s.state = stAfter
			return again
		case c == ',' && s.state == stKeyNext:
			return consumed // a doubled comma
		}
		return s.beginKey(c)

	case stArrFirst, stArrNext:
		switch {
		case scanbase.IsSpace(c):
			return consumed
		case c == ']' || c == '}':
			s.state = stAfter
			return again
		case c == ',' && s.state == stArrNext:
			return consumed
		}
		return s.beginValue(c)

	case stObjVal:
		switch {
		case scanbase.IsSpace(c):
			return consumed
		case c == ',' || c == '}' || c == ']':
			// A key without a value, which engines read as "".
			s.out = append(s.out, '"', '"')
			s.state = stAfter
			return again
		}
		return s.beginValue(c)

	case stKey:
		if isKeyByte(c) {
			s.out = append(s.out, c)
			return consumed
		}
		s.out = append(s.out, '"')
		s.state = stColon
		return again

	case stColon:
		if scanbase.IsSpace(c) {
			return consumed
		}
		if c == ':' || c == '=' {
			s.out = append(s.out, ':')
			s.state = stObjVal
			return consumed
		}
		return s.fail()

	case stAfter:
		if s.qval && (s.k > 0 || c == s.delim[0]) {
			return s.delimAfterQuote(c)
		}
		s.qval = false
		if s.suspect != 0 {
			if scanbase.IsSpace(c) {
				s.out = scanbase.AppendStrByte(s.out, c) // maybe content; cut if the value was not suspect
				return consumed
			}
			if c != ',' && c != '}' && c != ']' {
				return s.repair()
			}
			s.out = s.out[:s.closeEnd]
			s.suspect = 0
		}
		if scanbase.IsSpace(c) {
			return consumed
		}
		t := s.top()
		switch c {
		case ',':
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
				s.depth--
				s.valueDone()
				return consumed
			}
			// A mismatched closer that closes the enclosing container:
			// close the innermost one first (`{a:[1}` -> {"a":[1]}).
			if s.depth >= 2 && (s.arrays>>(s.depth-2)&1 != 0) == (open == '[') {
				s.out = append(s.out, scanbase.CloserOf(t))
				s.depth--
				return again
			}
			return s.fail()
		}
		// A missing comma between members or elements.
		if t == '{' && (isKeyStart(c) || c == '"' || c == '\'' || s.delim != "" && c == s.delim[0]) {
			s.state = stKeyNext
			return again
		}
		if t == '[' && isValueStart(c) {
			s.state = stArrNext
			return again
		}
		return s.fail()

	case stOpen:
		if c == s.delim[s.k] {
			s.k++
			if int(s.k) == len(s.delim) {
				s.k = 0
				s.state = stDStr
			}
			return consumed
		}
		if !s.isKey {
			// Not a delimiter after all: a bare word that starts with the
			// bytes matched so far. stWord gives them back as content.
			s.num = numStr
			s.wordEnd = len(s.out)
			s.state = stWord
			return again
		}
		// A bare key whose first bytes happen to be delimiter bytes.
		if !isKeyStart(s.delim[0]) {
			return s.fail()
		}
		for i := 1; i < int(s.k); i++ {
			if !isKeyByte(s.delim[i]) {
				return s.fail()
			}
		}
		s.out = append(s.out, s.delim[:s.k]...)
		s.k = 0
		s.state = stKey
		return again

	case stDStr:
		if s.k > 0 || c == s.delim[0] {
			complete, taken := s.match(c)
			if complete {
				s.endDStr()
			}
			if taken {
				return consumed
			}
		}
		s.content(c)
		return consumed

	case stWord:
		if s.delim != "" && (s.k > 0 || c == s.delim[0]) {
			complete, taken := s.match(c)
			if complete {
				// A closing delimiter whose opening one was left out.
				s.endWord(true)
				s.valueDone()
			}
			if taken {
				return consumed
			}
		}
		if c == ',' || c == '}' || c == ']' {
			s.endWord(false)
			s.valueDone()
			return again
		}
		s.wordByte(c)
		return consumed

	case stQStr:
		if !s.isKey && s.delim != "" && (s.k > 0 || c == s.delim[0]) {
			complete, taken := s.match(c)
			if complete { // `k:'v<|"|>`: opened with a quote, closed with the delimiter
				s.out = append(s.out, '"')
				s.mismatched = true
				s.valueDone()
			}
			if taken {
				return consumed
			}
		}
		switch c {
		case s.quote:
			s.out = append(s.out, '"')
			if s.isKey {
				s.state = stColon
			} else {
				s.valueDone()
				s.qval = s.delim != ""
			}
		case '\\':
			s.escMark = len(s.out)
			s.state = stEsc
		default:
			s.out = scanbase.AppendStrByte(s.out, c)
		}
		return consumed

	case stEsc:
		switch c {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			s.out = append(s.out, '\\', c)
			s.state = stQStr
		case 'u':
			s.out = append(s.out, '\\', 'u')
			s.hex = 0
			s.state = stHex
		case '\'':
			s.out = append(s.out, '\'')
			s.state = stQStr
		default:
			// Not a JSON escape (`\d`): keep the backslash as a character.
			s.out = append(s.out, '\\', '\\')
			s.state = stQStr
			return again
		}
		return consumed

	case stHex:
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' {
			s.out = append(s.out, c)
			s.hex++
			if s.hex == 4 {
				s.state = stQStr
			}
			return consumed
		}
		// `\u12G`: the backslash was a character. Double it (at most 5
		// bytes move) and read c as content.
		s.out = append(s.out, 0)
		copy(s.out[s.escMark+1:], s.out[s.escMark:len(s.out)-1])
		s.out[s.escMark] = '\\'
		s.state = stQStr
		return again

	case stQDelim:
		return s.afterQuoteDelim(c)
	}
	// stDone
	return stop
}

// delimAfterQuote reads byte c of a delimiter that follows a quoted value
// right after its closing quote (`k:'v'<|"|>`): whether it closes that
// value (its opener was the quote) or opens the next member's key (its
// comma left out), the byte after it shows (afterQuoteDelim).
func (s *Scanner) delimAfterQuote(c byte) uint8 {
	if c != s.delim[s.k] {
		return s.fail() // no delimiter: nothing else may follow a value so
	}
	s.k++
	if int(s.k) == len(s.delim) {
		s.k = 0
		s.qval = false
		s.state = stQDelim
	}
	return consumed
}

// afterQuoteDelim decides the delimiter after a quoted value at the byte c
// after it: before ',', '}' or ']' it closed the value, which was opened
// with a quote (a mismatch, repaired); otherwise it opened the next key
// (or array element), the comma before it left out.
func (s *Scanner) afterQuoteDelim(c byte) uint8 {
	s.state = stAfter
	if c == ',' || c == '}' || c == ']' {
		s.mismatched = true
		return again
	}
	s.memberMark = len(s.out)
	s.out = append(s.out, ',')
	s.isKey = s.top() == '{'
	s.valMark = len(s.out)
	s.out = append(s.out, '"')
	s.sf = sfNone
	s.k = 0
	s.state = stDStr
	return again
}
