package jsonspan

// IsStringToken reports whether b is exactly one valid JSON string token.
func IsStringToken(b []byte) bool {
	end, ok := scanString(b, 0)
	return ok && end == len(b)
}
