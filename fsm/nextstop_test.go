package fsm

import "testing"

// TestNextStop checks the word-at-a-time scan against the table, for every
// byte value at every position of inputs of 1 to 20 bytes, with a second
// stop byte after it or not.
func TestNextStop(t *testing.T) {
	for n := 1; n <= 20; n++ {
		for pos := 0; pos < n; pos++ {
			for c := 0; c < 256; c++ {
				p := make([]byte, n)
				for i := range p {
					p[i] = 'a' + byte(i%26)
				}
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
