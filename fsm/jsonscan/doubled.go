package jsonscan

import "github.com/toolsieve/toolsieve/internal/scanbase"

// A call object written with its braces doubled, as a template escapes
// them (`{{"name": "f", "arguments": {..}}}`, Qwen2.5 through SGLang): the
// object is the inner one, and the doubled '}' after it belongs to the
// value. Only the top-level object's first brace is read so; `{{{` and a
// doubled brace inside a value stay errors.

// doubledBrace reads c, met right after the top-level object's '{', as
// that brace's double; it reports whether it did.
func (s *Scanner) doubledBrace(c byte) bool {
	if c != '{' || len(s.stack) != 1 || s.doubled {
		return false
	}
	s.doubled, s.repaired = true, true
	return true
}

// topDone is the state after the top-level value: its doubled '}' may
// still follow.
func (s *Scanner) topDone() uint8 {
	if s.doubled {
		return stDoubled
	}
	return stDone
}

// doubledCloser reads c after a doubled object's inner object: whitespace,
// then its doubled '}'; anything else ends the value before it (the
// doubled '}' was left out).
func (s *Scanner) doubledCloser(c byte) uint8 {
	if scanbase.IsSpace(c) {
		return consumed
	}
	s.state = stDone
	if c == '}' {
		return consumed
	}
	return stop
}
