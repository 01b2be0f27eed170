package peers

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"testing"
	"time"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
	"github.com/toolsieve/toolsieve/internal/cputime"
)

// openaiOut is where TestOpenAIRatio writes its figures; `make bench`
// passes it and TestTargets (module toolsieve, ./bench) reads them.
var openaiOut = flag.String("openai.out", "", "write the openai-go over rewriter CPU ratios here (make bench)")

// TestOpenAIRatio measures, in one run, the CPU time openai-go spends
// decoding a streamed answer into chunks and the time the rewriter spends
// turning the same stream into native calls, for an answer of plain text
// and one with calls, and writes "NAME RATIO SDK-NS REWRITER-NS" lines:
// issue 31 keeps the rewriter at least 30 times cheaper than what every
// client of the proxy pays anyway.
func TestOpenAIRatio(t *testing.T) {
	if *openaiOut == "" {
		t.Skip("run by make bench (-openai.out)")
	}
	var out bytes.Buffer
	for _, tc := range []struct {
		name      string
		callEvery int
	}{{"plain", 0}, {"calls", 64}} {
		stream := chattest.SeqOpenAIStream(chattest.Deltas(2, 6000, tc.callEvery))
		var calls int
		sdk, rw := leastCPUInTurns(func() {
			if err := decodeOpenAI(stream); err != nil {
				t.Fatal(err)
			}
		}, func() {
			r := chat.NewRewriter(io.NopCloser(bytes.NewReader(stream)), chat.APIAuto, toolsieve.Options{IDPrefix: "id"})
			if _, err := io.Copy(io.Discard, r); err != nil {
				t.Fatal(err)
			}
			calls = r.Stats().Calls
		})
		if tc.callEvery > 0 && calls == 0 {
			t.Fatalf("%s: the rewriter found no call in the stream", tc.name)
		}
		if sdk <= 0 || rw <= 0 {
			t.Skip("no CPU time on this platform")
		}
		fmt.Fprintf(&out, "%s %.1f %d %d\n", tc.name, float64(sdk)/float64(rw), sdk.Nanoseconds(), rw.Nanoseconds())
	}
	if err := os.WriteFile(*openaiOut, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("openai-go over the rewriter (name, ratio, ns per answer each):\n%s", out.Bytes())
}

// leastCPUInTurns is the least CPU time of one op of a and of b over five
// rounds each, taken in turns (a, b, a, ...), each round running its op
// for at least 100 ms of CPU time: a figure taken far from its pair moves
// with a shared machine's load, which a ratio of the two should not.
func leastCPUInTurns(a, b func()) (ta, tb time.Duration) {
	ta, tb = time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for range 5 {
		ta = min(ta, time.Duration(cputime.Least(1, 100*time.Millisecond, a)))
		tb = min(tb, time.Duration(cputime.Least(1, 100*time.Millisecond, b)))
	}
	return ta, tb
}
