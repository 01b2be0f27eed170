package fsm

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve/internal/swar"
)

// TestNextStop checks the word-at-a-time scan against the table, for every
// byte value at every position of inputs of 1 to 20 bytes, with a second
// stop byte after it or not.
func TestNextStop(t *testing.T) {
	for n := 1; n <= 20; n++ {
		for pos := 0; pos < n; pos++ {
			for c := 0; c < 256; c++ {
				p := letters(n)
				p[pos] = byte(c)
				want := n
				if plainStop[c] {
					want = pos
				}
				if got := nextStop(p, 0); got != want {
					t.Fatalf("nextStop(%q, 0) = %d, want %d", p, got, want)
				}
				if pos+1 < n {
					p[n-1] = '\n'
					if got := nextStop(p, pos+1); got != n-1 {
						t.Fatalf("nextStop(%q, %d) = %d, want %d", p, pos+1, got, n-1)
					}
				}
			}
		}
	}
}

// letters returns n bytes of a to z, none of them a stop byte.
func letters(n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = 'a' + byte(i%26)
	}
	return p
}

// TestShortWord checks the one-word tests of WritePlain for chunks of four
// to seven bytes (mayStop, and the zero byte of '=') against the byte
// tables, for every byte value at every position.
func TestShortWord(t *testing.T) {
	for n := 4; n < 8; n++ {
		for pos := 0; pos < n; pos++ {
			for c := 0; c < 256; c++ {
				p := letters(n)
				p[pos] = byte(c)
				w := swar.Short(p)
				want := false
				for _, b := range p {
					want = want || plainStop[b]
				}
				if got := mayStop(w); got != want {
					t.Fatalf("mayStop(swar.Short(%q)) = %v, want %v", p, got, want)
				}
				if got, want := swar.ZeroBytes(w^('='*swar.Ones)) != 0, bytes.IndexByte(p, '=') >= 0; got != want {
					t.Fatalf("'=' in swar.Short(%q) = %v, want %v", p, got, want)
				}
			}
		}
	}
}

// TestStopScan: the passes of a long chunk find the same stops as nextStop,
// asked at every offset in turn and skipping ahead, on chunks that hold
// each stop byte, none of them, or one byte of them many times.
func TestStopScan(t *testing.T) {
	require.LessOrEqual(t, len(stopBytes), len(stopScan{}.at))
	base := []byte(strings.Repeat("plain words, then more of them; ", 40))
	var inputs [][]byte
	inputs = append(inputs, base, []byte(strings.Repeat("\n", 300)))
	for _, c := range stopBytes {
		for _, at := range []int{0, 1, 255, len(base) / 2, len(base) - 1} {
			p := bytes.Clone(base)
			p[at] = c
			p[len(base)-1-at/3] = stopBytes[(at+int(c))%len(stopBytes)]
			inputs = append(inputs, p)
		}
	}
	for _, p := range inputs {
		for _, step := range []int{1, 7, 100} {
			var s stopScan
			require.GreaterOrEqual(t, len(p), longChunk)
			for i := 0; i <= len(p); i += step {
				require.Equal(t, nextStop(p, i), s.next(p, i), "%q from %d", p, i)
			}
		}
	}
}
