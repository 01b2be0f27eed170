package repeat

import (
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
