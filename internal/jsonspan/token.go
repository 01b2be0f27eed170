package jsonspan

// TokenEnd returns the offset just past the string, number or literal
// (true, false, null) that starts at b[i], or -1 when no valid one does.
// Such a token can take the place of another in a valid document, which
// stays valid: callers match a document against a known one this way
// without validating it again.
func TokenEnd(b []byte, i int) int {
	if i >= len(b) || b[i] == '{' || b[i] == '[' {
		return -1
	}
	if end, ok := scan(b, i, 0); ok {
		return end
	}
	return -1
}
