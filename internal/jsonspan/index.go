package jsonspan

// Index: validating a document and finding its members in the same pass.

import (
	"encoding/binary"
	"math/bits"
)

// Index records the members of every object and the elements of every
// array of one document, found in the single pass that validates it
// (Parse), so that a caller reading a few fields of a stream event walks
// its bytes once instead of validating and then skipping through them
// again at each level. Members and Elems answer like the package functions
// of the same names; asked about other bytes than the parsed document they
// fall back to those functions. The zero value is ready to use; an Index
// is meant to be reused, document after document, without allocating.
type Index struct {
	b     []byte
	nodes []node  // every value, in document order (so by start); the document is nodes[0]
	open  []int32 // scratch: the nodes of the open containers while parsing
	// prev is a copy of the last document parsed when it was valid and
	// small, nodes still being its values: a document that begins like it
	// (the events of a stream mostly do) is parsed from where they part.
	prev []byte
	hint int32 // the container Members or Elems found last
}

// maxPrev bounds the documents an Index keeps a copy of.
const maxPrev = 64 << 10

// node is one value: its span and, when it is a member, its key's. Its
// children, if any, are the nodes after it up to after, each child's after
// leading to the next one. Offsets are int32, which keeps nodes small and
// free of pointers (cheap to write); larger documents are only validated.
type node struct {
	keyStart, keyEnd int32 // the key's span, quotes included; -1 for an element
	start, end       int32
	after            int32 // the first node past this value's own
}

// strStop marks the bytes that end the plain run of a string: the quote,
// the backslash and the control characters.
var strStop = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// Parse indexes b and reports whether it is exactly one JSON value,
// optionally surrounded by whitespace: the same answer as Valid(b). The
// index is kept (and b referenced) until the next Parse or Reset; when b
// is not valid, nothing is kept.
func (x *Index) Parse(b []byte) bool {
	x.b = nil
	if len(b) >= 1<<31-1 {
		x.nodes, x.prev = x.nodes[:0], x.prev[:0]
		return Valid(b)
	}
	var ok bool
	if c := x.resumable(b); c > 0 {
		x.nodes, x.open, ok = x.resume(b, c)
	} else {
		i := skipSpace(b, 0)
		x.nodes, x.open, ok = index(b, addNode(x.nodes[:0], -1, -1, i), x.open[:0], i, 0, false)
	}
	x.prev = x.prev[:0]
	if ok {
		x.b = b
		if len(b) <= maxPrev {
			x.prev = append(x.prev, b...)
		}
	}
	return ok
}

// resumable returns the node of the previous document from whose start
// (its key's, for a member) b can be parsed on, or 0: the last node that
// starts before the first byte where b and the previous document differ.
// The parse up to that start read only bytes the two share, so it went as
// it would in b.
func (x *Index) resumable(b []byte) int {
	p := commonPrefix(x.prev, b)
	if p < 16 {
		return 0
	}
	nodes := x.nodes
	lo, hi := 1, len(nodes) // the first node that starts at or after p
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if int(nodes[m].start) < p {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(nodes) && nodes[lo].keyStart >= 0 && int(nodes[lo].keyStart) < p {
		return lo // its key starts before p
	}
	return lo - 1
}

// resume parses b from the start of node c of the previous document (see
// resumable): the nodes before c are kept, those of its open containers
// to be finished.
func (x *Index) resume(b []byte, c int) ([]node, []int32, bool) {
	nodes, open := x.nodes, x.open[:0]
	for a := 0; a != c; { // down from the document to c
		open = append(open, int32(a))
		k := a + 1
		for int(nodes[k].after) <= c {
			k = int(nodes[k].after)
		}
		a = k
	}
	n := nodes[c]
	nodes = nodes[:c]
	if n.keyStart >= 0 {
		return index(b, nodes, open, int(n.keyStart), 0, true)
	}
	return index(b, addNode(nodes, -1, -1, int(n.start)), open, int(n.start), int32(c), false)
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n, i := min(len(a), len(b)), 0
	for ; i+8 <= n; i += 8 {
		if d := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); d != 0 {
			return i + bits.TrailingZeros64(d)>>3
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// index validates b as Valid does, from b[i], and appends its values to
// nodes: the value of node cur starts at b[i] (or, with key, a member of
// the innermost of the open containers). It is one loop over local
// slices: the common cases (plain strings, integers, literals) are
// scanned inline, since every call would make the compiler save and
// restore the loop's state.
func index(b []byte, nodes []node, open []int32, i int, cur int32, key bool) ([]node, []int32, bool) {
	ks := i // where the key being read starts
	for {
		if i >= len(b) {
			return nodes, open, false
		}
		var end int
		switch c := b[i]; {
		case c == '"':
			// A string: plain bytes eight at a time, then byte by byte up
			// to the closing quote; escapes and errors out of line.
			j := i + 1
			for j+8 <= len(b) {
				if m := stringStops(binary.LittleEndian.Uint64(b[j:])); m != 0 {
					j += bits.TrailingZeros64(m) >> 3
					break
				}
				j += 8
			}
			for j < len(b) && !strStop[b[j]] {
				j++
			}
			if j < len(b) && b[j] == '"' {
				end = j + 1
			} else if end = skipValidString(b, j-1); end < 0 {
				return nodes, open, false
			}
			if key { // the key: the value follows the colon
				if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
					return nodes, open, false
				}
				i = skipSpace(b, i+1)
				cur = int32(len(nodes))
				nodes = addNode(nodes, ks, end, i)
				key = false
				continue
			}
		case key:
			return nodes, open, false
		case c == '{' || c == '[':
			if len(open) >= maxDepth {
				return nodes, open, false
			}
			j := skipSpace(b, i+1)
			if j < len(b) && b[j] == c+2 { // '}' is '{'+2, ']' is '['+2
				end = j + 1
				break
			}
			open = append(open, cur)
			i = j
			if c == '{' {
				key, ks = true, i
			} else {
				cur = int32(len(nodes))
				nodes = addNode(nodes, -1, -1, i)
			}
			continue
		case c >= '1' && c <= '9':
			j := i + 1
			for j < len(b) && b[j]-'0' <= 9 {
				j++
			}
			end = j
			if j < len(b) && (b[j] == '.' || b[j]|0x20 == 'e') {
				var ok bool
				if end, ok, _ = scanNumber(b, i); !ok {
					return nodes, open, false
				}
			}
		case c == 't' || c == 'f' || c == 'n':
			end = i + 4
			if c == 'f' {
				end++
			}
			if end > len(b) || !literalAt(b, i, c) {
				return nodes, open, false
			}
		default:
			var ok bool
			if end, ok, _ = scanNumber(b, i); !ok {
				return nodes, open, false
			}
		}
		// The value of cur ended at end: go on in its container, closing
		// those that end here.
		for {
			nodes[cur].end, nodes[cur].after = int32(end), int32(len(nodes))
			if len(open) == 0 {
				return nodes, open, skipSpace(b, end) == len(b)
			}
			if i = skipSpace(b, end); i >= len(b) {
				return nodes, open, false
			}
			up := open[len(open)-1]
			obj := b[nodes[up].start] == '{'
			if b[i] == ',' {
				i = skipSpace(b, i+1)
				if obj {
					key, ks = true, i
				} else {
					cur = int32(len(nodes))
					nodes = addNode(nodes, -1, -1, i)
				}
				break
			}
			if obj && b[i] != '}' || !obj && b[i] != ']' {
				return nodes, open, false
			}
			cur, end = up, i+1
			open = open[:len(open)-1]
		}
	}
}

// literalAt reports whether b[i:] starts with the literal true, false or
// null that its first byte c announces; the caller has checked its length.
func literalAt(b []byte, i int, c byte) bool {
	switch c {
	case 't':
		return string(b[i:i+4]) == "true"
	case 'f':
		return string(b[i:i+5]) == "false"
	}
	return string(b[i:i+4]) == "null"
}

// addNode appends the node of a value starting at b[start] with the key at
// b[ks:ke]. The fields are stored one by one: building the node aside and
// copying it makes the processor wait for the stores to reach memory.
func addNode(nodes []node, ks, ke, start int) []node {
	if len(nodes) == cap(nodes) {
		nodes = append(nodes, node{})[:len(nodes)]
	}
	nodes = nodes[:len(nodes)+1]
	n := &nodes[len(nodes)-1]
	n.keyStart, n.keyEnd, n.start = int32(ks), int32(ke), int32(start)
	return nodes
}

// skipValidString returns the offset just past the string that starts at
// b[i] (a quote), or -1 when it is not a valid JSON string. Plain bytes are
// skipped eight at a time.
func skipValidString(b []byte, i int) int {
	for i++; ; i++ {
		for i+8 <= len(b) {
			if m := stringStops(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		for i < len(b) && !strStop[b[i]] {
			i++
		}
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			i++
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i < 5 || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					return -1
				}
				i += 4
			default:
				return -1
			}
		default: // a control character
			return -1
		}
	}
}

// stringStops returns a word whose lowest set bit, if any, is the high bit
// of the first of the eight bytes of x (little-endian) that is a quote, a
// backslash or a control character. (Bits above it may be set wrongly.)
func stringStops(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	ctl := x - 0x20*ones                // high bit set for bytes < 0x20
	quote := (x ^ '"'*ones) - ones      // ... for quotes
	backslash := (x ^ '\\'*ones) - ones // ... for backslashes
	return (ctl | quote | backslash) &^ x & highs
}

// skipSpace is SkipSpace with a fast path for the common case, no
// whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && IsSpace(b[i]) {
		i++
	}
	return i
}

// of reports whether b is the document the index holds.
func (x *Index) of(b []byte) bool {
	return x.b != nil && len(b) == len(x.b) && (len(b) == 0 || &b[0] == &x.b[0])
}

// children returns the first child and the end (in nodes) of the
// container that starts at b[i], which is '{' or '['; ok is false when no
// value starts there. The answers of a stream's rewriter go down the
// document, so the search starts from the container found last.
func (x *Index) children(i int) (first, after int, ok bool) {
	nodes := x.nodes
	k := int(x.hint)
	if k >= len(nodes) || int(nodes[k].start) > i {
		k = 0
	}
	// Down from k: over the values that end before i, into the one that
	// holds it.
	for k < len(nodes) && int(nodes[k].start) < i {
		if int(nodes[k].end) <= i {
			k = int(nodes[k].after)
		} else {
			k++
		}
	}
	if k == len(nodes) || int(nodes[k].start) != i {
		return 0, 0, false
	}
	x.hint = int32(k)
	return k + 1, int(nodes[k].after), true
}

// Members is Members(b, i, dst), answered from the index when b is the
// parsed document.
func (x *Index) Members(b []byte, i int, dst []Member) ([]Member, bool) {
	if !x.of(b) {
		return Members(b, i, dst)
	}
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != '{' {
		return dst, false
	}
	c, after, ok := x.children(i)
	if !ok { // not a value's start: answer as the package function does
		return Members(b, i, dst)
	}
	nodes := x.nodes
	for c < after {
		n := &nodes[c]
		if len(dst) == cap(dst) {
			dst = append(dst, Member{})[:len(dst)]
		}
		dst = dst[:len(dst)+1]
		m := &dst[len(dst)-1] // stored field by field (see addNode)
		m.Key, m.KeyStart, m.Start, m.End = b[n.keyStart+1:n.keyEnd-1], int(n.keyStart), int(n.start), int(n.end)
		c = int(n.after)
	}
	return dst, true
}

// Elems is Elems(b, i, dst), answered from the index when b is the parsed
// document.
func (x *Index) Elems(b []byte, i int, dst []Span) ([]Span, bool) {
	if !x.of(b) {
		return Elems(b, i, dst)
	}
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != '[' {
		return dst, false
	}
	c, after, ok := x.children(i)
	if !ok {
		return Elems(b, i, dst)
	}
	nodes := x.nodes
	for c < after {
		dst = append(dst, Span{int(nodes[c].start), int(nodes[c].end)})
		c = int(nodes[c].after)
	}
	return dst, true
}

// Reset forgets the parsed document: until the next Parse, Members and
// Elems answer as the package functions.
func (x *Index) Reset() { x.b = nil }
