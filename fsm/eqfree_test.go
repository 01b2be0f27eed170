package fsm

import (
	"bytes"
	"testing"
)

// TestEqFree holds the word-at-a-time eqFree to its statement: short and
// no '=', for every length up to past its limit, '=' at every place and
// bytes next to it ('<', '>', 0x3c-0x3e; 0xbd, '=' with the high bit).
func TestEqFree(t *testing.T) {
	for n := range 11 {
		for at := -1; at < n; at++ {
			for _, other := range []byte{'a', '<', '>', 0xbd, 0x00, 0xff} {
				p := bytes.Repeat([]byte{other}, n)
				if at >= 0 {
					p[at] = '='
				}
				want := n <= 8 && bytes.IndexByte(p, '=') < 0
				if got := eqFree(p); got != want {
					t.Errorf("eqFree(%q) = %v, want %v", p, got, want)
				}
			}
		}
	}
}
