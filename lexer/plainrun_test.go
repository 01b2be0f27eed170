package lexer

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlainRun checks PlainRun against the Lexer: the prefix it allows
// comes out of an idle Lexer as text and backtick runs, byte for byte, on
// code-like inputs full of '<', '[' and backticks, and on named cases.
func TestPlainRun(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"for i < n {", 11},
		{"xs[i] = 0", 9},
		{"if a <b", 5},      // `<b` may be a tag
		{"if a < ", 5},      // what follows `< ` is not known yet
		{"[TOOL_CALLS]", 0}, // a special token
		{"[ABC def", 8},     // no bracket token
		{"[A/", 3},          // '/' after a name fails the bracket token
		{"a <", 2},          // a '<' at the end waits
		{"`code` ok", 9},    // backtick runs are content
		{"ok `code`", 8},    // but one that ends the chunk waits, as the Lexer holds it
		{"ok ``", 3},
		{"x = 1 // é", 11},   // a whole character at the end
		{"x = 1 // \xc3", 9}, // a cut one is left out
		{"<tool_call>", 0},   // a marker
	} {
		assert.Equal(t, tc.want, PlainRun([]byte(tc.in)), "%q", tc.in)
	}
	rng := rand.New(rand.NewSource(1))
	const alphabet = "<[]`/ |_aZ0\n>=\"é"
	for range 20000 {
		p := make([]byte, 1+rng.Intn(12))
		for i := range p {
			p[i] = alphabet[rng.Intn(len(alphabet))]
		}
		n := PlainRun(p)
		var l Lexer
		l.Feed(p[:n])
		got := []byte{}
		for _, eof := range []bool{false, true} {
			for {
				tok, ok := l.Next(eof)
				if !ok {
					break
				}
				require.Contains(t, []Kind{Text, Backticks}, tok.Kind, "%q: PlainRun allowed %q, which holds a %v", p, p[:n], tok.Kind)
				got = append(got, tok.Raw...)
			}
		}
		require.Equal(t, string(p[:n]), string(got), "%q", p)
	}
}
