package jsonspan

// TokenEnd returns the offset just past the string, number or literal
// (true, false, null) that starts at b[i], or -1 when no valid one does.
// Such a token can take the place of another in a valid document, which
// stays valid: callers match a document against a known one this way
// without validating it again. A string without escapes and an integer
// from 1 up, the tokens that change from one stream event to the next,
// are scanned here; other tokens go through the validator's scan.
func TokenEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		if k := SkipPlain(b, i+1); k < len(b) && b[k] == '"' {
			return k + 1
		}
	case c >= '1' && c <= '9':
		k := i + 1
		for k < len(b) && isDigit(b[k]) {
			k++
		}
		if k < len(b) && b[k] != '.' && b[k] != 'e' && b[k] != 'E' {
			return k
		}
	case c == '{' || c == '[':
		return -1
	}
	if end, ok := scan(b, i, 0); ok {
		return end
	}
	return -1
}
