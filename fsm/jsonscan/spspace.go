package jsonscan

// SentencePiece's space: a `▁` (U+2581) written where the model meant a
// space, as some servers pass it through.

// spBytes is the UTF-8 encoding of U+2581 (`▁`).
const spBytes = "\u2581"

const spLead = 0xE2 // spBytes[0]

// spaceByte reads byte c of a `▁` where whitespace belongs, or, once one
// stood there, in a string; the whole `▁` is written as a space. It
// returns consumed, stop for a byte that cannot follow where whitespace
// belongs, or again when, in a string, the bytes were another character:
// they are written as they came, and c goes on the string.
func (s *Scanner) spaceByte(c byte) uint8 {
	if s.state != stSP {
		s.spRet, s.state, s.spPos = s.state, stSP, 0
	}
	if c != spBytes[s.spPos] {
		s.state = s.spRet
		if s.spRet != stStr {
			return stop
		}
		s.emit([]byte(spBytes[:s.spPos]))
		return again
	}
	if s.spPos++; int(s.spPos) == len(spBytes) {
		s.state, s.sp = s.spRet, true
		s.hiPending = false
		if s.state != stTop { // leading whitespace is dropped
			s.emit([]byte{' '})
		}
	}
	return consumed
}

// SentencePiece reports whether a `▁` stood where whitespace belongs.
func (s *Scanner) SentencePiece() bool { return s.sp }
