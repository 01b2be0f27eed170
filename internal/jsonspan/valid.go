package jsonspan

// Validation: whether bytes are exactly one JSON value, without decoding it.

// maxDepth bounds the nesting Valid accepts, so that validating cannot
// exhaust the stack.
const maxDepth = 10000

// Valid reports whether b is exactly one JSON value, optionally
// surrounded by whitespace.
func Valid(b []byte) bool {
	end, ok := scan(b, SkipSpace(b, 0), 0)
	return ok && SkipSpace(b, end) == len(b)
}

func scan(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; c {
	case '{':
		return scanObject(b, i, depth, nil)
	case '[':
		if depth >= maxDepth {
			return i, false
		}
		if i = SkipSpace(b, i+1); i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = scan(b, i, depth+1); !ok {
				return i, false
			}
			more := false
			if i, more, ok = next(b, i, ']'); !more {
				return i, ok
			}
		}
	case '"':
		return scanString(b, i)
	case 't', 'f', 'n':
		return scanLiteral(b, i, literal(c))
	}
	end, ok, _ := scanNumber(b, i)
	return end, ok
}

// literal returns the literal that starts with c: true, false or null.
func literal(c byte) string {
	switch c {
	case 't':
		return "true"
	case 'f':
		return "false"
	}
	return "null"
}

func scanLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit), true
	}
	return i, false
}

func scanString(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		if i = SkipPlain(b, i); i == len(b) {
			break
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			i++
			if i >= len(b) {
				return i, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i < 5 {
					return i, false
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return i, false
					}
				}
				i += 4
			default:
				return i, false
			}
		}
	}
	return i, false
}

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// Number reports whether b is exactly a JSON number, and whether it is
// written without fraction or exponent.
func Number(b []byte) (ok, isInt bool) {
	end, ok, isInt := scanNumber(b, 0)
	return ok && end == len(b), isInt
}

func scanNumber(b []byte, i int) (end int, ok, isInt bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return i, false, false
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	default:
		return i, false, false
	}
	isInt = true
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return i, false, false
		}
		for ; i < len(b) && isDigit(b[i]); i++ {
		}
		isInt = false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return i, false, false
		}
		for ; i < len(b) && isDigit(b[i]); i++ {
		}
		isInt = false
	}
	return i, true, isInt
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// scanObject scans the object that starts at b[i] and returns the offset
// past it; with members, it appends the object's members to it.
func scanObject(b []byte, i, depth int, members *[]Member) (int, bool) {
	if depth >= maxDepth {
		return i, false
	}
	if i = SkipSpace(b, i+1); i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return i, false
		}
		ke, ok := scanString(b, i)
		if !ok {
			return i, false
		}
		m := Member{Key: b[i+1 : ke-1], KeyStart: i}
		if i = SkipSpace(b, ke); i >= len(b) || b[i] != ':' {
			return i, false
		}
		m.Start = SkipSpace(b, i+1)
		if m.End, ok = scan(b, m.Start, depth+1); !ok {
			return m.End, false
		}
		if members != nil {
			*members = append(*members, m)
		}
		more := false
		if i, more, ok = next(b, m.End, '}'); !more {
			return i, ok
		}
	}
}

// next reads what follows a container's member or element that ends at
// b[i]: a comma (more: it returns the offset of the next one) or the
// container's closer (it returns the offset past it).
func next(b []byte, i int, closer byte) (j int, more, ok bool) {
	switch i = SkipSpace(b, i); {
	case i >= len(b):
		return i, false, false
	case b[i] == ',':
		return SkipSpace(b, i+1), true, true
	case b[i] == closer:
		return i + 1, false, true
	}
	return i, false, false
}

// ValidMembers is Valid(b) and, when b is an object, Members(b, 0, dst),
// found in the same pass.
func ValidMembers(b []byte, dst []Member) ([]Member, bool) {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return dst, Valid(b)
	}
	n := len(dst)
	end, ok := scanObject(b, i, 0, &dst)
	if !ok || SkipSpace(b, end) != len(b) {
		return dst[:n], false
	}
	return dst, true
}
