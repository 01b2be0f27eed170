package toolsieve

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// loopPieces are fragments of well-formed, broken and looping markup.
var loopPieces = []string{
	"<function_calls>\n", "</function_calls>\n", "<invoke name=\"a\">\n", "<invoke name=\"b\">\n", "</invoke>\n",
	"<parameter name=\"x\">1</parameter>\n", "<parameter name=\"x\">2</parameter>\n",
	"<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>\n",
	"<tool_call>\n<function=f>\n", "<｜DSML｜tool_calls>\n", "<｜DSML｜invoke name=\"bash\">\n",
	"court\n", "\n", "   ", "Done. ", "<think>hm</think>", "<invoke>\n", "</tool_call>\n",
	"[TOOL_CALLS]a[ARGS]{\"x\":1}",
}

// TestLoopMixes composes random runs of loop fragments and checks, at
// every chunking, the invariants, and what the hold promises: tool_call
// indexes are dense, every started call completes unless a runaway takes
// it or it is refused (an error event follows), and no call follows a
// runaway.
func TestLoopMixes(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	n := 100
	if testing.Short() {
		n = 20
	}
	for k := 0; k < n; k++ {
		var b strings.Builder
		for i := 3 + rng.Intn(20); i > 0; i-- {
			p := loopPieces[rng.Intn(len(loopPieces))]
			b.WriteString(strings.Repeat(p, 1+rng.Intn(3)*rng.Intn(3)))
		}
		opt := Options{}
		if k%3 == 1 {
			opt.MaxCallBytes = 96 // small: the hold's byte bound comes into play
		}
		if k%4 == 2 {
			opt.Runaway = RunawayLimits{OpenersWithoutCloser: 5, RepeatedCalls: 2}
		}
		in := b.String()
		events := checkInvariants(t, opt, []byte(in))
		next, started, stopped := 0, map[int]bool{}, false
		for _, e := range events {
			switch e.Type {
			case ToolCallStart:
				started[e.Index] = true
			case ToolCall:
				require.False(t, stopped, "a call after the runaway: %q", in)
				require.Equal(t, next, e.Index, "indexes are dense: %q", in)
				delete(started, e.Index)
				next++
			case Error: // a started call refused (no name, arguments unread): kept as text
				clear(started)
			case Runaway:
				stopped = true
			}
		}
		if !stopped {
			require.Empty(t, started, "started calls that never completed: %q", in)
		}
	}
}
