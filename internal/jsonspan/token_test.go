package jsonspan

import (
	"math/rand/v2"
	"testing"
)

func TestTokenEnd(t *testing.T) {
	for _, tc := range []struct {
		in  string
		end int
	}{
		{`"a\"b",`, 6}, {`"\u00e9"}`, 8}, {`"bad \x"`, -1}, {`"open`, -1}, {"\"ctl\x01\"", -1},
		{`12,`, 2}, {`-0.5e+3]`, 7}, {`01`, 1}, {`1.`, -1}, {`-`, -1},
		{`true}`, 4}, {`false`, 5}, {`null `, 4}, {`nul`, -1}, {`tru e`, -1},
		{`{}`, -1}, {`[1]`, -1}, {``, -1}, {` 1`, -1},
	} {
		if got := TokenEnd([]byte(tc.in), 0); got != tc.end {
			t.Errorf("TokenEnd(%q) = %d, want %d", tc.in, got, tc.end)
		}
	}
}

// TestTokenEndValid: a whole input is one token exactly when it is a
// valid scalar document without whitespace.
func TestTokenEndValid(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "\"\\u0e9aE.+-truefalsn \x01\xc3\xa9{["
	for range 200000 {
		b := randFrom(rng, alphabet, 1+rng.IntN(8))
		want := Valid(b) && b[0] != '{' && b[0] != '[' && !IsSpace(b[0]) && !IsSpace(b[len(b)-1])
		if got := TokenEnd(b, 0) == len(b); got != want {
			t.Fatalf("%q: TokenEnd says %v, Valid %v", b, got, want)
		}
	}
}

// TestTokenEndScan: TokenEnd's own scans of strings and integers end
// where the validator's scan does, at every offset of random inputs.
func TestTokenEndScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const alphabet = "\"\"\\0123456789.eE+-,} ab\x01\xc3\xa9tru{["
	for range 100000 {
		b := randFrom(rng, alphabet, 1+rng.IntN(24))
		for i := range b {
			want := -1
			if b[i] != '{' && b[i] != '[' {
				if end, ok := scan(b, i, 0); ok {
					want = end
				}
			}
			if got := TokenEnd(b, i); got != want {
				t.Fatalf("TokenEnd(%q, %d) = %d, the scan says %d", b, i, got, want)
			}
		}
	}
}

// randFrom returns n bytes drawn from alphabet, a byte given twice being
// drawn twice as often.
func randFrom[T string | []byte](rng *rand.Rand, alphabet T, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return b
}
