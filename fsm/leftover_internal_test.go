package fsm

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLeadFit: leadFit gives where held text stops being a lead, the
// length the leftovers sink keeps (lead); a byte that cannot belong to
// one ends it.
func TestLeadFit(t *testing.T) {
	for _, c := range []struct {
		name, in string
		fit      int
	}{
		{"empty", "", 0},
		{"no lead byte", "x", 0},
		{"one backtick", "`", 1},
		{"inline code", "`x", 1},
		{"two backticks then text", "``a", 2},
		{"fence with info", "```json\n", 8},
		{"fence then blanks", "```json\n  \n\t", 12},
		{"fence then text", "```json\n  x", 10},
		{"fence info then a word", "```go run\n", 6},
		{"fence info too long", "```" + strings.Repeat("a", 17), 3 + 16},
		{"seventeen backticks", strings.Repeat("`", 17) + "a", 17},
		{"tag", "<use_kimi>\r\n\n", 13},
		{"tag with attributes", "<div class=\"a\">", 4},
		{"empty tag", "<>", 1},
		{"tag of a digit", "<1>", 1},
		{"tag then text on its line", "<b> x", 4},
		{"bracket token", "[TOOL_REQUEST]\n<", 15},
		{"bracket in lower case", "[Tool]", 2},
		{"bracket with a hyphen", "[A-B]", 2},
		{"name too long", "<" + strings.Repeat("a", 70) + ">", 65},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.fit, leadFit([]byte(c.in)))
		})
	}
}

// TestLeadFitPrefixes: every prefix of h up to leadFit(h) may still
// become a lead (mayBeLead) and none longer, on random text made of the
// bytes leads are made of.
func TestLeadFitPrefixes(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 9))
	const alphabet = "```<<[[>]]aZ_9-  \t\r\n\nx."
	for range 5000 {
		h := make([]byte, 1+rng.IntN(30))
		for i := range h {
			h[i] = alphabet[rng.IntN(len(alphabet))]
		}
		if rng.IntN(2) == 0 { // most random text fails at once: start with a lead
			h = append([]byte([]string{"```json", "<use_kimi>", "[TOOL_CALL]", "```"}[rng.IntN(4)]), h...)
		}
		fit := leadFit(h)
		for k := 0; k <= len(h); k++ {
			ok := mayBeLead(h[:k])
			if ok != (k <= fit) {
				t.Fatalf("%q: leadFit %d, mayBeLead of %d bytes %v", h, fit, k, ok)
			}
		}
	}
}

// mayBeLead reports whether h may still become a lead, read on its own:
// a lead's line so far, or a whole lead.
func mayBeLead(h []byte) bool {
	n, done := leadPrefix(h)
	return !done && n == len(h) || wholeLead(h)
}
