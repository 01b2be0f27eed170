package jsonspan

// Matching a document against a known one with holes: the events of a
// stream mostly repeat the one before but for a few values.

import (
	"bytes"
	"slices"
)

// FillsHoles reports whether b is doc with other tokens in the holes (the
// spans of string, number or literal tokens of doc, in order), every other
// byte the same; it appends the spans of b's tokens in the holes to dst
// and counts those that differ from doc's. When doc is valid JSON, b is
// too (TokenEnd): it need not be validated. The bytes the two share are
// compared sixteen at a time, and the holes whose token and the byte after
// it are the same in both are passed over in one loop, without a scan.
func FillsHoles(dst []Span, b, doc []byte, holes []Span) (spans []Span, differ int, ok bool) {
	n0 := len(dst)
	dst = slices.Grow(dst, len(holes))[:n0+len(holes)]
	out := dst[n0:]
	j, d := 0, 0 // doc[:j] is matched by b[:j+d]
	for k := 0; k < len(holes); {
		m := j + commonPrefix(b[j+d:], doc[j:]) // doc[j:m] is b's too

		// The holes that end before m: the same token, ended by the same byte.
		for ; k < len(holes) && holes[k].End < m; k++ {
			out[k] = Span{holes[k].Start + d, holes[k].End + d}
		}
		if k == len(holes) {
			return dst, differ, m == len(doc) && len(b)-d == len(doc)
		}
		h := holes[k]
		if m < h.Start {
			return dst[:n0+k], differ, false
		}
		s := h.Start + d
		e := TokenEnd(b, s)
		if e < 0 {
			return dst[:n0+k], differ, false
		}
		// doc[h.Start:m] is b[s:m+d], and m <= h.End: the tokens are the
		// same when they are as long and m is where doc's ends.
		if m != h.End || e-s != h.End-h.Start {
			differ++
		}
		out[k] = Span{s, e}
		k++
		j, d = h.End, e-h.End
	}
	return dst, differ, bytes.Equal(b[j+d:], doc[j:])
}
