package jsonspan

// Matching a document against a known one with holes: the events of a
// stream mostly repeat the one before but for a few values.

import "bytes"

// FillsHoles reports whether b is doc with other tokens in the holes (the
// spans of string, number or literal tokens of doc, in order), every other
// byte the same; it appends the spans of b's tokens in the holes to dst
// and counts those that differ from doc's. When doc is valid JSON, b is
// too (TokenEnd): it need not be validated. The bytes the two share are
// compared eight at a time, and a hole whose token and the byte after it
// are the same in both is not scanned again.
func FillsHoles(dst []Span, b, doc []byte, holes []Span) (spans []Span, differ int, ok bool) {
	i, j := 0, 0 // b[:i] matches doc[:j]
	m := -1      // doc[j:m] and b[i:] share their first bytes; -1: not compared yet
	for _, h := range holes {
		if m < 0 {
			m = j + commonPrefix(b[i:], doc[j:])
		}
		d := i - j
		if m > h.End { // the same token, ended by the same byte
			dst = append(dst, Span{h.Start + d, h.End + d})
			continue
		}
		if m < h.Start {
			return dst, differ, false
		}
		e := TokenEnd(b, h.Start+d)
		if e < 0 {
			return dst, differ, false
		}
		if !bytes.Equal(b[h.Start+d:e], doc[h.Start:h.End]) {
			differ++
		}
		dst = append(dst, Span{h.Start + d, e})
		i, j, m = e, h.End, -1
	}
	if m >= 0 {
		return dst, differ, m == len(doc) && len(b)-i == len(doc)-j
	}
	return dst, differ, bytes.Equal(b[i:], doc[j:])
}
