package jsonspan

// TokenEnd returns the offset just past the string, number or literal
// (true, false, null) that starts at b[i], or -1 when no valid one does.
// Such a token can take the place of another in a valid document, which
// stays valid: callers match a document against a known one this way
// without validating it again.
func TokenEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; c {
	case '"':
		return skipValidString(b, i)
	case 't', 'n', 'f':
		end := i + 4
		if c == 'f' {
			end++
		}
		if end > len(b) || !literalAt(b, i, c) {
			return -1
		}
		return end
	}
	end, ok, _ := scanNumber(b, i)
	if !ok {
		return -1
	}
	return end
}
