package fsm

import (
	"bytes"
	"unicode/utf8"
)

// The ruby_hash dialect writes a call as a Ruby-like hash after
// [TOOL_CALL] (MiniMax models were seen writing it):
//
//	[TOOL_CALL]
//	{tool => "terminal", args => {
//	  --command "echo test"
//	}}
//	[/TOOL_CALL]
//
// Keys are bare words, :symbols or quoted strings, followed by `=>`, `:` or
// `=`; members are separated by commas or newlines; the arguments are such
// a hash, a JSON object, or command-line flags (`--key value`, a flag
// alone is true). A hashTrack follows the hash byte by byte to find its
// end (braces outside strings balance); the complete hash, bounded by the
// call cap, is then read once by readHash into the call's name and JSON
// arguments.

// hashTrack finds the end of a hash as it streams.
type hashTrack struct {
	depth int
	quote byte // the quote of the string in progress, or 0
	esc   bool
	prev  byte // the last byte outside a string
}

// write consumes p up to the end of the hash; done reports that it ended.
func (h *hashTrack) write(p []byte) (n int, done bool) {
	for i, c := range p {
		switch {
		case h.quote != 0:
			switch {
			case h.esc:
				h.esc = false
			case c == '\\':
				h.esc = true
			case c == h.quote:
				h.quote = 0
			}
			continue
		case (c == '"' || c == '\'') && !isIdentByte(h.prev): // a quote inside a word (don't) opens nothing
			h.quote = c
		case c == '{' || c == '[':
			h.depth++
		case c == '}' || c == ']':
			if h.depth--; h.depth <= 0 {
				return i + 1, true
			}
		}
		h.prev = c
	}
	return len(p), false
}

func (h *hashTrack) inString() bool { return h.quote != 0 }

// hashReader converts a complete hash to JSON.
type hashReader struct {
	b   []byte
	i   int
	out []byte
}

const maxHashDepth = 64

var (
	hashNameKeys = []string{"tool", "name", "tool_name", "function"}
	hashArgsKeys = []string{"args", "arguments", "params", "parameters", "input"}
)

// readHash reads a complete hash: the call's name and its arguments as a
// JSON object (nil when the hash names none). ok is false when the hash
// cannot be read; unread reports arguments that are not a hash.
func readHash(b []byte) (name, args []byte, unread, ok bool) {
	r := hashReader{b: b}
	r.space()
	if !r.eat('{') {
		return nil, nil, false, false
	}
	for {
		r.space()
		if r.eat('}') {
			break
		}
		key, flag := r.key()
		if key == nil || !flag && !r.arrow() {
			return nil, nil, false, false
		}
		k := string(key)
		if c := r.peek(); !flag && containsStr(hashNameKeys, k) && (c == '"' || c == '\'') {
			if name, ok = r.str(); !ok {
				return nil, nil, false, false
			}
			r.sep()
			continue
		}
		start := len(r.out)
		if !r.memberValue(flag, 1) {
			return nil, nil, false, false
		}
		v := r.out[start:]
		switch {
		case containsStr(hashArgsKeys, k):
			if len(v) > 0 && v[0] == '{' {
				args = append([]byte(nil), v...)
			} else if string(v) != "null" {
				unread = true
			}
		}
		r.out = r.out[:start]
		r.sep()
	}
	r.space()
	return name, args, unread, r.i == len(r.b)
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (r *hashReader) peek() byte {
	if r.i < len(r.b) {
		return r.b[r.i]
	}
	return 0
}

func (r *hashReader) eat(c byte) bool {
	if r.peek() == c && r.i < len(r.b) {
		r.i++
		return true
	}
	return false
}

func (r *hashReader) space() {
	for r.i < len(r.b) && isSpace(r.b[r.i]) {
		r.i++
	}
}

// sep skips a member separator: whitespace with a comma or a newline in it.
func (r *hashReader) sep() {
	r.space()
	if r.eat(',') {
		r.space()
	}
}

// key reads a member's key: "k", 'k', :k, k, or a flag --k (flag).
func (r *hashReader) key() (key []byte, flag bool) {
	switch c := r.peek(); {
	case c == '"' || c == '\'':
		s, ok := r.str()
		if !ok {
			return nil, false
		}
		return s, false
	case c == '-' && r.i+1 < len(r.b) && r.b[r.i+1] == '-':
		r.i += 2
		return r.word(), true
	case c == ':':
		r.i++
	}
	return r.word(), false
}

// word reads a bare key or flag name.
func (r *hashReader) word() []byte {
	j := r.i
	for r.i < len(r.b) && (isIdentByte(r.b[r.i]) || r.b[r.i] == '-' && r.i > j) {
		r.i++
	}
	if r.i == j {
		return nil
	}
	return r.b[j:r.i]
}

// arrow reads what stands between a key and its value: =>, : or =.
func (r *hashReader) arrow() bool {
	r.space()
	switch {
	case r.eat('='):
		r.eat('>')
	case r.eat(':'):
	default:
		return false
	}
	r.space()
	return true
}

// memberValue writes a member's value as JSON. A flag may stand alone (true).
func (r *hashReader) memberValue(flag bool, depth int) bool {
	if flag {
		j := r.i
		for r.i < len(r.b) && (r.b[r.i] == ' ' || r.b[r.i] == '\t') {
			r.i++
		}
		switch c := r.peek(); {
		case c == 0 || c == '\n' || c == '\r' || c == ',' || c == '}' || c == '-' && r.i+1 < len(r.b) && r.b[r.i+1] == '-':
			r.i = j
			r.out = append(r.out, "true"...)
			return true
		}
	}
	return r.value(depth)
}

// value writes any value as JSON.
func (r *hashReader) value(depth int) bool {
	if depth > maxHashDepth {
		return false
	}
	switch c := r.peek(); {
	case c == '{':
		r.i++
		r.out = append(r.out, '{')
		for n := 0; ; n++ {
			r.space()
			if r.eat('}') {
				break
			}
			key, flag := r.key()
			if key == nil || !flag && !r.arrow() {
				return false
			}
			if n > 0 {
				r.out = append(r.out, ',')
			}
			r.out = appendJSONString(r.out, key)
			r.out = append(r.out, ':')
			if !r.memberValue(flag, depth+1) {
				return false
			}
			r.sep()
		}
		r.out = append(r.out, '}')
	case c == '[':
		r.i++
		r.out = append(r.out, '[')
		for n := 0; ; n++ {
			r.space()
			if r.eat(']') {
				break
			}
			if n > 0 {
				r.out = append(r.out, ',')
			}
			if !r.value(depth + 1) {
				return false
			}
			r.sep()
		}
		r.out = append(r.out, ']')
	case c == '"' || c == '\'':
		s, ok := r.str()
		if !ok {
			return false
		}
		r.out = appendJSONString(r.out, s)
	case c == 0:
		return false
	default:
		r.bare()
	}
	return true
}

// str reads a quoted string and returns its content with escapes undone.
func (r *hashReader) str() ([]byte, bool) {
	q := r.b[r.i]
	r.i++
	var s []byte
	for r.i < len(r.b) {
		c := r.b[r.i]
		r.i++
		switch {
		case c == q:
			return s, true
		case c == '\\' && r.i < len(r.b):
			e := r.b[r.i]
			r.i++
			switch e {
			case 'n':
				e = '\n'
			case 't':
				e = '\t'
			case 'r':
				e = '\r'
			}
			s = append(s, e)
		default:
			s = append(s, c)
		}
	}
	return nil, false
}

// bare writes a bare value: a number or literal as such, a word as a string.
func (r *hashReader) bare() {
	j := r.i
	for r.i < len(r.b) && !isSpace(r.b[r.i]) && r.b[r.i] != ',' && r.b[r.i] != '}' && r.b[r.i] != ']' {
		r.i++
	}
	w := r.b[j:r.i]
	switch string(w) {
	case "true", "false", "null":
		r.out = append(r.out, w...)
		return
	case "nil":
		r.out = append(r.out, "null"...)
		return
	}
	if isJSONNumber(w) {
		r.out = append(r.out, w...)
		return
	}
	r.out = appendJSONString(r.out, w)
}

// isJSONNumber reports whether w is a number as JSON writes it:
// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? (`012` is not one).
func isJSONNumber(w []byte) bool {
	i := 0
	if i < len(w) && w[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(w) && '0' <= w[i] && w[i] <= '9' {
			i++
		}
		return i - j
	}
	if n := digits(); n == 0 || n > 1 && w[i-n] == '0' {
		return false
	}
	if i < len(w) && w[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(w) && (w[i] == 'e' || w[i] == 'E') {
		i++
		if i < len(w) && (w[i] == '+' || w[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(w)
}

// appendJSONString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendJSONString(dst, s []byte) []byte {
	if !utf8.Valid(s) {
		s = bytes.ToValidUTF8(s, []byte("\uFFFD"))
	}
	dst = append(dst, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

const hexDigit = "0123456789abcdef"
