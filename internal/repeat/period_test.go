package repeat

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNearest checks the word-at-a-time search for the needle's nearest
// earlier occurrence against a byte-at-a-time one, on windows of a few
// letters (many candidates, false positives of the zero-byte test) and of
// many (few), for every byte the search may key on and ranges that do and
// do not end on a word.
func TestNearest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, alphabet := range []string{"ab", "abc\x00", "\x00\x01", "the quick brown fox, jumps\n"} {
		for range 300 {
			w := make([]byte, 16+rng.IntN(600))
			for i := range w {
				w[i] = alphabet[rng.IntN(len(alphabet))]
			}
			end := len(w) - 8
			last := binary.LittleEndian.Uint64(w[end:])
			lo := max(end-rng.IntN(300), 0)
			want := -1
			for s := end - 1; s >= lo; s-- {
				if binary.LittleEndian.Uint64(w[s:]) == last {
					want = s
					break
				}
			}
			for k := range 8 {
				k2 := (k + 1 + rng.IntN(7)) % 8
				require.Equal(t, want, nearest(w, lo, end, k, k2, last), "alphabet %q, window %q, lo %d, k %d %d", alphabet, w, lo, k, k2)
			}
		}
	}
}

// TestHasNewline checks hasNewline's word tests against a byte search, a
// newline at each position of slices of every short length.
func TestHasNewline(t *testing.T) {
	for n := range 40 {
		p := bytes.Repeat([]byte{'\x0b'}, n) // '\n'+1: a near miss in every byte
		require.False(t, hasNewline(p), "len %d", n)
		for i := range n {
			p[i] = '\n'
			require.True(t, hasNewline(p), "len %d, newline at %d", n, i)
			p[i] = '\x09'
			require.False(t, hasNewline(p), "len %d", n)
			p[i] = '\x0b'
		}
	}
}

// TestHashBytes checks hashBytes against FNV-1a a byte at a time (digits
// folded when asked), over slices cut anywhere: the hash of a piece must
// not depend on how its bytes came.
func TestHashBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = "ab09:\n\xff"[rng.IntN(7)]
		}
		for _, fold := range []bool{false, true} {
			want := uint64(fnvOffset)
			for _, c := range b {
				if fold && '0' <= c && c <= '9' {
					c = '0'
				}
				want = (want ^ uint64(c)) * fnvPrime
			}
			cut := rng.IntN(len(b) + 1)
			require.Equal(t, want, hashBytes(hashBytes(fnvOffset, b[:cut], fold), b[cut:], fold), "%q fold %v cut %d", b, fold, cut)
		}
	}
}
