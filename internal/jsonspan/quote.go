package jsonspan

// Quoting and unquoting JSON strings, and compacting values.

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode/utf8"

	"github.com/toolsieve/toolsieve/internal/scanbase"
	"github.com/toolsieve/toolsieve/internal/swar"
)

// AppendUnquoted appends the decoded bytes of the JSON string literal lit
// (quotes included) to dst. Invalid UTF-8 is kept as is, so that a provider
// that splits a character across two deltas gets it back whole.
func AppendUnquoted(dst, lit []byte) []byte {
	if len(lit) < 2 {
		return dst
	}
	s := lit[1 : len(lit)-1]
	for len(s) > 0 {
		k := bytes.IndexByte(s, '\\')
		if k < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:k]...)
		s = s[k:]
		if len(s) < 2 {
			return dst
		}
		c := s[1]
		s = s[2:]
		switch c {
		case 'n':
			dst = append(dst, '\n')
		case 't':
			dst = append(dst, '\t')
		case 'r':
			dst = append(dst, '\r')
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'u':
			r, n := hex4(s)
			if n == 0 {
				dst = append(dst, "\\u"...)
				continue
			}
			s = s[n:]
			if r >= 0xD800 && r < 0xDC00 && len(s) >= 6 && s[0] == '\\' && s[1] == 'u' {
				if r2, n2 := hex4(s[2:]); n2 > 0 && r2 >= 0xDC00 && r2 < 0xE000 {
					r = 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00)
					s = s[6:]
				}
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/'
			dst = append(dst, c)
		}
	}
	return dst
}

func hex4(s []byte) (rune, int) {
	if len(s) < 4 {
		return 0, 0
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, 0
		}
	}
	return r, 4
}

// AppendString appends s as a JSON string without HTML escaping, so markup
// stays readable. Invalid UTF-8 becomes U+FFFD and U+2028/U+2029 are
// escaped, as in encoding/json, so the result is always valid JSON.
func AppendString[T string | []byte](dst []byte, s T) []byte { return appendJSONString(dst, s, true) }

// AppendQuoted is AppendString for bytes that must go on unchanged (a
// rewritten provider stream): like the providers, it does not escape <, >
// and &, and non-ASCII bytes, valid or not, are copied as they are, so that
// a character split across two deltas comes back whole (see AppendUnquoted).
func AppendQuoted[T string | []byte](dst []byte, s T) []byte {
	return appendJSONString(dst, s, false)
}

// AppendEscaped is AppendString without the quotes: the string's body.
// Pieces of a string cut between characters escape to what the whole
// string escapes to.
func AppendEscaped(dst, s []byte) []byte { return appendEscaped(dst, s, true) }

func appendJSONString[T string | []byte](dst []byte, s T, checkUTF8 bool) []byte {
	return append(appendEscaped(append(dst, '"'), s, checkUTF8), '"')
}

func appendEscaped[T string | []byte](dst []byte, s T, checkUTF8 bool) []byte {
	const hex = "0123456789abcdef"
	safe := &safeASCII
	if !checkUTF8 {
		safe = &safeBytes
	}
	for i := 0; i < len(s); {
		// Copy what needs no escape: eight bytes at a time (k of them up
		// to the first that does), then one at a time at the end.
		k := 8
		for i+8 <= len(s) {
			x := swar.Load64(s, i)
			if m := specialBytes(x, checkUTF8); m != 0 {
				k = bits.TrailingZeros64(m) / 8
			}
			dst = appendWord(dst, x, k)
			if i += k; k < 8 {
				break
			}
		}
		if k == 8 { // fewer than eight bytes left
			start := i
			for i < len(s) && safe[s[i]] {
				i++
			}
			dst = append(dst, s[start:i]...)
			if i == len(s) {
				break
			}
		}
		c := s[i]
		if c < utf8.RuneSelf || !checkUTF8 { // a control byte, a quote or a backslash: the scanners' escape
			dst = scanbase.AppendStrByte(dst, c)
			i++
			continue
		}
		var rb [utf8.UTFMax]byte
		r, size := utf8.DecodeRune(rb[:copy(rb[:], s[i:])])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, "\\ufffd"...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return dst
}

// appendWord appends the first k bytes of the little-endian word x. The
// whole word is stored (past the new length, within the capacity), which
// is cheaper than copying k bytes one way or another.
func appendWord(dst []byte, x uint64, k int) []byte {
	n := len(dst)
	if cap(dst)-n < 8 {
		dst = slices.Grow(dst, 8)
	}
	binary.LittleEndian.PutUint64(dst[n:n+8], x)
	return dst[:n+k]
}

// safeASCII and safeBytes mark the bytes a JSON string holds as they are:
// printable ASCII but '"' and '\\'; safeBytes adds every byte from 0x80.
var safeASCII, safeBytes = func() (a, b [256]bool) {
	for c := 0x20; c < 0x100; c++ {
		a[c] = c < utf8.RuneSelf && c != '"' && c != '\\'
		b[c] = a[c] || c >= utf8.RuneSelf
	}
	return a, b
}()

// EndsPlain reports whether byte c ends the plain run of a string's body:
// it ends the string ('"'), begins an escape ('\\') or may not stand in a
// string at all (a control byte). The one statement of that rule: the
// scanners' fast paths (fsm/jsonscan, fsm/loosejson, fsm/jsonfast.go) and
// SkipPlain, eight bytes at a time, stop where it says.
func EndsPlain(c byte) bool { return c < 0x20 || c == '"' || c == '\\' }

// SkipPlain skips string bytes from b[i] that neither end nor escape a
// string ('"', '\\', control bytes), eight at a time, and returns the
// offset of the first byte that does, or where fewer than eight are left.
func SkipPlain(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if m := specialBytes(swar.Load64(b, i), false); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	return i
}

// specialBytes sets the high bit of each byte of x that needs an escape in
// a string: a control byte, '"' or '\\', and, with ascii, a byte from
// 0x80. Bits above the lowest one set may be false matches (borrows), so
// the lowest one marks the first such byte exactly.
func specialBytes(x uint64, ascii bool) uint64 {
	t := swar.ZeroBytes(x^('"'*swar.Ones)) | swar.ZeroBytes(x^('\\'*swar.Ones)) | (x-(0x20*swar.Ones))&^x&swar.Highs
	if ascii {
		t |= x & swar.Highs
	}
	return t
}

// Compact appends valid JSON v without insignificant whitespace and with
// its strings made safe (see SanitizeString).
func Compact(dst, v []byte) []byte {
	start := 0
	for i := 0; i < len(v); {
		switch c := v[i]; {
		case c == '"':
			dst = append(dst, v[start:i]...)
			dst, i = CompactString(dst, v, i)
			start = i
		case IsSpace(c):
			dst = append(dst, v[start:i]...)
			i++
			start = i
		default:
			i++
		}
	}
	return append(dst, v[start:]...)
}

// CompactString appends the valid JSON string token that starts at v[i]
// made safe (as SanitizeString does) and returns the offset past it: one
// pass where SkipString and SanitizeString take two.
func CompactString(dst, v []byte, i int) ([]byte, int) {
	start := i
	for i++; i < len(v); {
		for ; i+8 <= len(v); i += 8 { // eight bytes at a time
			if m := specialBytes(swar.Load64(v, i), true); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
		}
		if i == len(v) {
			break
		}
		switch c := v[i]; {
		case c == '"':
			return append(dst, v[start:i+1]...), i + 1
		case c == '\\':
			i += 2
			continue
		case c < utf8.RuneSelf:
			i++
			continue
		}
		dst, i, start = sanitizeRune(dst, v, start, i)
	}
	return append(dst, v[start:]...), len(v)
}

// sanitizeRune looks at the character that starts at b[i], not ASCII:
// invalid UTF-8 (\ufffd) and U+2028/U+2029 are appended escaped, after the
// bytes from start that precede them. It returns dst, the index after the
// character, and where the bytes not yet appended start.
func sanitizeRune(dst, b []byte, start, i int) ([]byte, int, int) {
	r, size := utf8.DecodeRune(b[i:])
	switch {
	case r == utf8.RuneError && size == 1:
		dst = append(dst, b[start:i]...)
		dst = append(dst, `\ufffd`...)
	case r == '\u2028' || r == '\u2029':
		dst = append(dst, b[start:i]...)
		dst = append(dst, `\u202`...)
		dst = append(dst, "0123456789abcdef"[r&0xF])
	default:
		return dst, i + size, start
	}
	return dst, i + size, i + size
}

// SanitizeString appends a valid JSON string token, replacing invalid
// UTF-8 with \ufffd and escaping U+2028/U+2029.
func SanitizeString(dst, tok []byte) []byte {
	start := 0
	for i := 0; i < len(tok); {
		for ; i+8 <= len(tok); i += 8 { // ASCII, eight bytes at a time
			if m := swar.Load64(tok, i) & swar.Highs; m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
		}
		if i == len(tok) {
			break
		}
		if tok[i] < utf8.RuneSelf {
			i++
			continue
		}
		dst, i, start = sanitizeRune(dst, tok, start, i)
	}
	return append(dst, tok[start:]...)
}

// Unquote decodes a valid JSON string token. Without escapes the result
// aliases tok.
func Unquote(tok []byte) ([]byte, bool) {
	if len(tok) < 2 || tok[0] != '"' || tok[len(tok)-1] != '"' {
		return nil, false
	}
	inner := tok[1 : len(tok)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return inner, true
	}
	return AppendUnquoted(nil, tok), true
}
