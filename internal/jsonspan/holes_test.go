package jsonspan

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFillsHoles: b matches doc with other tokens in the holes exactly
// when a byte by byte walk says so, for random changes to a document.
func TestFillsHoles(t *testing.T) {
	doc := []byte(`{"id":"c-1","n":12,"x":[1,{"a":null}],"ok":true,"s":"a\"b","f":-1.5}`)
	var ms []Member
	ms, _ = Members(doc, 0, ms)
	var holes []Span
	for _, m := range ms {
		if c := doc[m.Start]; c != '{' && c != '[' {
			holes = append(holes, Span{m.Start, m.End})
		}
	}
	tokens := []string{`"c-1"`, `"c-2"`, `12`, `123`, `1`, `true`, `null`, `"a\"b"`, `"\u00e9"`, `-1.5`, `0`, `"x`, `1.`, `{}`, `"`}
	// want walks doc and b byte by byte, scanning every hole.
	want := func(b []byte) ([]Span, int, bool) {
		var spans []Span
		differ := 0
		i, j := 0, 0
		for _, h := range holes {
			n := h.Start - j
			if len(b)-i < n || string(b[i:i+n]) != string(doc[j:h.Start]) {
				return nil, 0, false
			}
			i += n
			e := TokenEnd(b, i)
			if e < 0 {
				return nil, 0, false
			}
			if string(b[i:e]) != string(doc[h.Start:h.End]) {
				differ++
			}
			spans = append(spans, Span{i, e})
			i, j = e, h.End
		}
		return spans, differ, string(b[i:]) == string(doc[j:])
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50000 {
		var b []byte
		j := 0
		for _, h := range holes {
			b = append(b, doc[j:h.Start]...)
			if rng.IntN(2) == 0 {
				b = append(b, tokens[rng.IntN(len(tokens))]...)
			} else {
				b = append(b, doc[h.Start:h.End]...)
			}
			j = h.End
		}
		b = append(b, doc[j:]...)
		if rng.IntN(8) == 0 { // a byte outside the holes changes
			b[rng.IntN(len(b))] = "{}[],:\" 1a"[rng.IntN(10)]
		}
		got, differ, ok := FillsHoles(nil, b, doc, holes)
		spans, wantDiffer, wantOK := want(b)
		if ok != wantOK || ok && (!slices.Equal(got, spans) || differ != wantDiffer) {
			t.Fatalf("%s: FillsHoles %v %d %v, want %v %d %v", b, got, differ, ok, spans, wantDiffer, wantOK)
		}
		if ok && !Valid(b) {
			t.Fatalf("%s matched but is not valid", b)
		}
	}
}

// TestCommonPrefix: the length of the longest common prefix, found a word
// at a time, is where a byte by byte walk parts, for every length and
// position of the first difference around the word sizes.
func TestCommonPrefix(t *testing.T) {
	for n := range 80 {
		a := make([]byte, n)
		for i := range a {
			a[i] = byte('a' + i%26)
		}
		for m := 0; m <= n; m++ { // b shares a's first m bytes, then parts (or ends)
			for _, tail := range []int{0, 1, 7, 40} {
				b := append(append([]byte(nil), a[:m]...), make([]byte, tail)...)
				for i := m; i < len(b); i++ {
					b[i] = '#'
				}
				want := 0
				for want < len(a) && want < len(b) && a[want] == b[want] {
					want++
				}
				if got := commonPrefix(a, b); got != want {
					t.Fatalf("commonPrefix(%q, %q) = %d, want %d", a, b, got, want)
				}
				if got := commonPrefix(b, a); got != want {
					t.Fatalf("commonPrefix(%q, %q) = %d, want %d", b, a, got, want)
				}
			}
		}
	}
}
