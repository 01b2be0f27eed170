// Package jsonspan finds the byte spans of JSON values without decoding
// them: object members and array elements, strings and numbers, so that
// callers can read a few fields of a document and splice new values into
// it, leaving every other byte as it was. Validate a document once with
// Valid; the span functions assume valid JSON and stay linear in it.
//
// It is the one JSON toolkit for whole values in toolsieve: the chat wire
// layer reads and edits provider events with it, and the schema typer reads
// and writes argument values. (Incremental, repairing JSON for calls that
// are still streaming is package fsm/jsonscan.)
package jsonspan

import (
	"bytes"
	"strconv"
)

// Member is one member of a JSON object: the raw bytes of its key (between
// the quotes, escapes not decoded) and the span [Start, End) of its value.
type Member struct {
	Key        []byte
	KeyStart   int // offset of the key's opening quote
	Start, End int // the value's span
}

// Span is the byte range [Start, End) of a JSON value.
type Span struct{ Start, End int }

// IsSpace reports JSON whitespace.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the offset of the first byte at or after b[i] that is
// not whitespace.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && IsSpace(b[i]) {
		i++
	}
	return i
}

// SkipString returns the offset just past the string that starts at b[i]
// (a quote), or -1.
func SkipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		if j = SkipPlain(b, j); j == len(b) {
			break
		}
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// Skip returns the offset just past the value that starts at b[i], or
// -1. Containers are skipped by counting brackets outside strings, which is
// exact for valid JSON.
func Skip(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; c {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = SkipString(b, j)
				if j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	default:
		j := i
		for j < len(b) && !IsSpace(b[j]) && b[j] != ',' && b[j] != '}' && b[j] != ']' {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}

// Members lists the members of the object whose value starts at or
// after b[i] (leading whitespace allowed), appending to dst.
func Members(b []byte, i int, dst []Member) ([]Member, bool) {
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != '{' {
		return dst, false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return dst, true
	}
	for i < len(b) {
		if b[i] != '"' {
			return dst, false
		}
		ke := SkipString(b, i)
		if ke < 0 {
			return dst, false
		}
		m := Member{Key: b[i+1 : ke-1], KeyStart: i}
		i = SkipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return dst, false
		}
		i = SkipSpace(b, i+1)
		m.Start = i
		m.End = Skip(b, i)
		if m.End < 0 {
			return dst, false
		}
		dst = append(dst, m)
		i = SkipSpace(b, m.End)
		if i >= len(b) {
			return dst, false
		}
		if b[i] == '}' {
			return dst, true
		}
		if b[i] != ',' {
			return dst, false
		}
		i = SkipSpace(b, i+1)
	}
	return dst, false
}

// Elems lists the element spans of the array that starts at b[i].
func Elems(b []byte, i int, dst []Span) ([]Span, bool) {
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != '[' {
		return dst, false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return dst, true
	}
	for i < len(b) {
		e := Skip(b, i)
		if e < 0 {
			return dst, false
		}
		dst = append(dst, Span{i, e})
		i = SkipSpace(b, e)
		if i >= len(b) {
			return dst, false
		}
		if b[i] == ']' {
			return dst, true
		}
		if b[i] != ',' {
			return dst, false
		}
		i = SkipSpace(b, i+1)
	}
	return dst, false
}

// Lookup finds the member named key. An object that names a key twice is
// read as JSON.parse, Python's json and Go's encoding/json read it, and so
// as the providers do: the last member wins. Keys are compared decoded, so
// "mod\u0065l" is "model" (a request cannot show the proxy one model and
// the upstream another).
func Lookup(b []byte, ms []Member, key string) (Member, bool) {
	for i := len(ms) - 1; i >= 0; i-- {
		if sameKey(b, &ms[i], key) {
			return ms[i], true
		}
	}
	return Member{}, false
}

// sameKey reports whether member m's key, decoded, is key.
func sameKey(b []byte, m *Member, key string) bool {
	if string(m.Key) == key {
		return true
	}
	if len(m.Key) <= len(key) || bytes.IndexByte(m.Key, '\\') < 0 {
		return false // an escape takes more bytes than the character it stands for
	}
	end := m.KeyStart + len(m.Key) + 2
	if m.KeyStart < 0 || end > len(b) {
		return false
	}
	var buf [64]byte
	return string(AppendUnquoted(buf[:0], b[m.KeyStart:end])) == key
}

// IsString reports whether the member's value is a JSON string.
func IsString(b []byte, m Member) bool { return m.End > m.Start && b[m.Start] == '"' }

// IsNull reports whether the member's value is null.
func IsNull(b []byte, m Member) bool { return string(b[m.Start:m.End]) == "null" }

// StringBody returns the raw (still escaped) bytes inside a string value,
// or nil when the value is not a string.
func StringBody(b []byte, m Member) []byte {
	if !IsString(b, m) {
		return nil
	}
	return b[m.Start+1 : m.End-1]
}

// Int reads an integer member; ok is false for anything else.
func Int(b []byte, m Member) (int, bool) {
	n, err := strconv.Atoi(string(b[m.Start:m.End]))
	return n, err == nil
}
