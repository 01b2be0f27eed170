package jsonspan

// Index: validating a document and finding its members in the same pass.

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
	nodes []node // every value, in document order (so by start); the document is nodes[0]
	hint  int32  // the node of the container Members or Elems found last

	// The previous document, when it was valid and not large: a copy of
	// it, and its nodes. A document that begins or ends like it, as the
	// events of a stream mostly do, is scanned only where the two differ
	// (indexreuse.go).
	prev      []byte
	prevNodes []node
	open      []int32 // scratch for the scan
}

// Bounds on what an Index records and keeps. A document larger than
// maxIndexed is only validated (its members are then found as the package
// functions find them), which bounds the index of one document; a node
// buffer grown past keptNodes is not kept for the next one.
const (
	maxIndexed = 64 << 10
	keptNodes  = 4096
)

// node is one value: its span and, when it is a member, its key's. Its
// children, if any, are the nodes after it up to after, each child's after
// leading to the next one. Offsets are int32, which keeps nodes small and
// free of pointers (cheap to write).
type node struct {
	keyStart, keyEnd int32 // the key's span, quotes included; -1 for an element
	start, end       int32
	after            int32 // the first node past this value's own
	depth            int32 // how many containers hold it
}

// Parse indexes b and reports whether it is exactly one JSON value,
// optionally surrounded by whitespace: the same answer as Valid(b). The
// index is kept (and b referenced) until the next Parse or Reset; when b
// is not valid, nothing is kept.
func (x *Index) Parse(b []byte) bool {
	x.b = nil
	// The nodes of the previous document stay as they are; the new ones
	// go into the other buffer.
	x.nodes, x.prevNodes = x.prevNodes[:0], x.nodes
	ok := false
	if len(b) > maxIndexed {
		ok = Valid(b)
	} else if x.nodes, ok = x.scan(b); ok {
		x.b = b
	}
	x.prev = x.prev[:0]
	if x.b != nil {
		x.prev = append(x.prev, b...)
	}
	if cap(x.prevNodes) > keptNodes {
		x.prevNodes = nil
	}
	return ok
}

// Reset forgets the parsed document: until the next Parse, Members and
// Elems answer as the package functions.
func (x *Index) Reset() { x.b = nil }

// of reports whether b is the document the index holds.
func (x *Index) of(b []byte) bool {
	return x.b != nil && len(b) == len(x.b) && (len(b) == 0 || &b[0] == &x.b[0])
}

// children returns the first child and the end (in nodes) of the
// container that starts at b[i]; ok is false when no value starts there.
// A stream's rewriter asks about the document first, then about containers
// further down, often the first child of the one before.
func (x *Index) children(i int) (first, after int, ok bool) {
	nodes := x.nodes
	k := 0
	if len(nodes) > 0 && int(nodes[0].start) != i {
		if h := int(x.hint) + 1; h < len(nodes) && int(nodes[h].start) == i {
			k = h
		} else {
			lo, hi := 1, len(nodes)
			for lo < hi {
				m := int(uint(lo+hi) >> 1)
				if int(nodes[m].start) < i {
					lo = m + 1
				} else {
					hi = m
				}
			}
			k = lo
		}
	}
	if k >= len(nodes) || int(nodes[k].start) != i {
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
