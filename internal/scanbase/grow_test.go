package scanbase

import (
	"bytes"
	"testing"
)

// TestGrow checks that output grown through Grow, ahead of each write, is
// what append gives and takes a doubling's number of allocations: 1 MiB
// written 4 KiB at a time, with room for twice each write, allocates 9
// times, where append alone, growing by about a quarter past 256 bytes,
// allocates 19 times and five times the output's size in all.
func TestGrow(t *testing.T) {
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 256)
	var out []byte
	allocs := testing.AllocsPerRun(20, func() { // 20 runs: a stray allocation elsewhere does not count
		out = nil
		for range 256 {
			if n := 2*len(chunk) + 16; cap(out)-len(out) < n {
				out = Grow(out, n)
			}
			out = append(out, chunk...)
		}
	})
	if len(out) != 1<<20 || !bytes.Equal(out[len(out)-len(chunk):], chunk) || !bytes.Equal(out[:len(chunk)], chunk) {
		t.Fatalf("output of %d bytes, want 1 MiB of the chunks", len(out))
	}
	if allocs > 9 {
		t.Errorf("%v allocations for 1 MiB in 4 KiB writes, want at most 9 (doubling from 8 KiB)", allocs)
	}
	if r := Grow(out[:10:20], 15); cap(r) != 40 || len(r) != 10 || string(r) != string(out[:10]) {
		t.Errorf("Grow by 15 of 10 bytes in 20: len %d cap %d, want the same 10 bytes in 40", len(r), cap(r))
	}
}
