package repeat

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestShortWaysMatchText checks Text's short ways (Pass, and hashed for a
// piece hashed in full) against its long way: a guard fed through Text in
// random chunks and one fed through text alone hold the same state after
// every step (their rooms set again, as they are only bounds), on random
// streams of markup, tags and text (lines, digits, multi-byte characters,
// repeated units, pieces past a cut) in and out of values.
func TestShortWaysMatchText(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 26))
	units := []string{"ab", "call_1 ", "x\n", "The test fails again.\n", "é☺", "{\"a\": 12}", " ", "\n\n", "9"}
	for run := range 300 {
		short, long := New(Limits{}), New(Limits{})
		var prev uint32
		for step := 0; step < 40 && !short.fired; step++ {
			if rng.IntN(6) == 0 {
				on := rng.IntN(3) > 0
				short.InText(on)
				long.InText(on)
			}
			if rng.IntN(3) == 0 {
				b := []byte([]string{"<tool_call>", "</tool_call>", "<b>", `<parameter name="q">`}[rng.IntN(4)])
				markup := rng.IntN(3) > 0
				short.Marker(b, markup, prev)
				long.Marker(b, markup, prev)
				prev = shiftIn(prev, b)
				continue
			}
			var sb strings.Builder
			n := []int{8, 300, 3000, 20000}[rng.IntN(4)]
			for sb.Len() < n {
				if rng.IntN(4) == 0 {
					sb.WriteString(strings.Repeat(units[rng.IntN(len(units))], 1+rng.IntN(50)))
				} else {
					sb.WriteString(units[rng.IntN(len(units))])
				}
			}
			b := []byte(sb.String())
			for len(b) > 0 {
				n := min(len(b), []int{1, 4, 7, 64, 1000}[rng.IntN(5)])
				k := short.Text(b[:n], prev)
				require.Equal(t, k, long.text(b[:n], prev), "run %d step %d", run, step)
				prev = shiftIn(prev, b[:k])
				short.setRoom()
				if *long != *short {
					t.Fatalf("run %d step %d: short way n %d full %x win %q, long way n %d full %x win %q", run, step,
						short.n, short.full, short.win, long.n, long.full, long.win)
				}
				if k < n || short.fired { // a guard that fired watches no more
					break
				}
				b = b[n:]
			}
		}
	}
}
