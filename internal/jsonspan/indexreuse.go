package jsonspan

// Reuse of the previous document's scan. The events of a stream mostly
// differ from one another in a few values: the scan of a document goes on
// from where it parts from the previous one, and stops where the rest of
// it is the previous one's rest, scanned the same way.

import (
	"encoding/binary"
	"math/bits"
)

// minShared is the least a document must share with the previous one, at
// its start or at its end, for the scan to reuse it.
const minShared = 16

// scan records the values of b in x.nodes (empty), reusing the scan of
// the previous document where it can, and reports whether b is valid.
func (x *Index) scan(b []byte) ([]node, bool) {
	t := tail{from: len(b) + 1}
	if len(x.prev) > 0 {
		if s := commonSuffix(x.prev, b); s >= minShared {
			t = tail{prev: x.prev, nodes: x.prevNodes, from: len(b) - s, delta: len(b) - len(x.prev), tries: 3}
		}
	}
	var ok bool
	nodes, open := x.nodes, x.open[:0]
	if c := x.resumable(b); c > 0 {
		var i int
		nodes, open, i = x.resume(c)
		nodes, x.open, ok = index(b, nodes, open, i, 0, true, &t)
	} else {
		i := skipSpace(b, 0)
		nodes, x.open, ok = index(b, addNode(nodes, -1, -1, i, 0), open, i, 0, false, &t)
	}
	return nodes, ok
}

// resumable returns the node of the previous document from whose start
// (its key's, for a member) b can be scanned on, or 0: the last node that
// starts before the first byte where b and the previous document differ.
// The scan up to that start read only bytes the two share (and the first
// byte of the node), so it went as it would in b.
func (x *Index) resumable(b []byte) int {
	p := commonPrefix(x.prev, b)
	if p < minShared {
		return 0
	}
	nodes := x.prevNodes
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

// resume returns the scan's state at the start of node c of the previous
// document (see resumable): the nodes before c, the open containers, and
// where c starts.
func (x *Index) resume(c int) (nodes []node, open []int32, i int) {
	prev := x.prevNodes
	nodes, open = append(x.nodes, prev[:c]...), x.open[:0]
	for a := 0; a != c; { // down from the document to c
		o := int32(a) << 1
		if x.prev[prev[a].start] == '{' {
			o |= openObject
		}
		open = append(open, o)
		k := a + 1
		for int(prev[k].after) <= c {
			k = int(prev[k].after)
		}
		a = k
	}
	return nodes, open, childStart(prev[c])
}

// childStart is where the scan starts node n: at its key, for a member.
func childStart(n node) int {
	if n.keyStart >= 0 {
		return int(n.keyStart)
	}
	return int(n.start)
}

// tail lets the scan of a document take its rest from the previous one.
type tail struct {
	prev  []byte // the previous document
	nodes []node // its nodes
	from  int    // where the suffix the documents share starts (past the end: none)
	delta int    // the document's length less the previous one's
	tries int    // how many more times take may look
}

// take is called where the scan starts a child (of the innermost of the
// open containers) at b[i], in the suffix the document shares with the
// previous one. When the scan of the previous document was in the same
// state at the same place (counted from the end), the same node next, in
// the same open containers, the rest of its scan holds for the document:
// take returns the nodes complete, the rest shifted by the difference in
// lengths.
func (t *tail) take(nodes []node, open []int32, i int) ([]node, bool) {
	t.tries--
	prev, c := t.nodes, len(nodes)
	if c >= len(prev) || childStart(prev[c]) != i-t.delta {
		return nodes, false
	}
	// The containers open at c in the previous document: as many, each of
	// them holding c, of the same kinds.
	if int(prev[c].depth) != len(open) {
		return nodes, false
	}
	for _, o := range open {
		a := o >> 1
		kind := int32(0)
		if t.prev[prev[a].start] == '{' {
			kind = openObject
		}
		if int(prev[a].after) <= c || o&openObject != kind {
			return nodes, false
		}
	}
	delta := int32(t.delta)
	for _, o := range open {
		a := o >> 1
		nodes[a].end, nodes[a].after = prev[a].end+delta, prev[a].after
	}
	rest := prev[c:]
	nodes = append(nodes, rest...)
	for k := range nodes[c:] {
		n := &nodes[c+k]
		if n.keyStart >= 0 {
			n.keyStart += delta
			n.keyEnd += delta
		}
		n.start += delta
		n.end += delta
	}
	return nodes, true
}

// commonPrefix returns the length of the longest common prefix of a and b,
// comparing them 32 bytes a round, then 8.
func commonPrefix(a, b []byte) int {
	i := 0
	for len(a) >= 32 && len(b) >= 32 {
		x := binary.LittleEndian.Uint64(a[:8]) ^ binary.LittleEndian.Uint64(b[:8])
		y := binary.LittleEndian.Uint64(a[8:16]) ^ binary.LittleEndian.Uint64(b[8:16])
		z := binary.LittleEndian.Uint64(a[16:24]) ^ binary.LittleEndian.Uint64(b[16:24])
		w := binary.LittleEndian.Uint64(a[24:32]) ^ binary.LittleEndian.Uint64(b[24:32])
		if x|y|z|w != 0 {
			switch {
			case x != 0:
				return i + bits.TrailingZeros64(x)>>3
			case y != 0:
				return i + 8 + bits.TrailingZeros64(y)>>3
			case z != 0:
				return i + 16 + bits.TrailingZeros64(z)>>3
			}
			return i + 24 + bits.TrailingZeros64(w)>>3
		}
		a, b, i = a[32:], b[32:], i+32
	}
	for len(a) >= 8 && len(b) >= 8 {
		if x := binary.LittleEndian.Uint64(a[:8]) ^ binary.LittleEndian.Uint64(b[:8]); x != 0 {
			return i + bits.TrailingZeros64(x)>>3
		}
		a, b, i = a[8:], b[8:], i+8
	}
	k := 0
	for k < len(a) && k < len(b) && a[k] == b[k] {
		k++
	}
	return i + k
}

// commonSuffix returns the length of the longest common suffix of a and b.
func commonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	a, b = a[len(a)-n:], b[len(b)-n:]
	e := n // a[e:] and b[e:] are equal
	for ; e >= 8 && e <= len(a) && e <= len(b); e -= 8 {
		if d := binary.LittleEndian.Uint64(a[e-8:e]) ^ binary.LittleEndian.Uint64(b[e-8:e]); d != 0 {
			return n - e + bits.LeadingZeros64(d)>>3
		}
	}
	for e > 0 && e <= len(a) && e <= len(b) && a[e-1] == b[e-1] {
		e--
	}
	return n - e
}
