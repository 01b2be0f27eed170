package toolsieve_test

import (
	"strings"
	"testing"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// TestAlikeCallsNotHeld: calls alike but for a counter in their arguments
// (a model searching again), each followed by different prose, are no
// loop. Each comes out as soon as the prose after it differs from the
// prose after the one before: within a few tokens, not at the next call.
func TestAlikeCallsNotHeld(t *testing.T) {
	deltas := chattest.Deltas(1, 1200, 64)
	var ends []int // input offsets after each call's closer
	whole := strings.Join(deltas, "")
	for i := 0; ; {
		k := strings.Index(whole[i:], "</tool_call>\n")
		if k < 0 {
			break
		}
		i += k + len("</tool_call>\n")
		ends = append(ends, i)
	}
	if len(ends) < 10 {
		t.Fatalf("%d calls in the input", len(ends))
	}
	p := toolsieve.NewParser(toolsieve.Options{})
	fed, calls := 0, 0
	for _, d := range deltas {
		fed += len(d)
		for _, e := range p.Feed([]byte(d)) {
			if e.Type == toolsieve.ToolCall {
				if late := fed - ends[calls]; late > 32 {
					t.Errorf("call %d came out %d bytes after its closer", calls, late)
				}
				calls++
			}
		}
	}
	for _, e := range p.Close() {
		if e.Type == toolsieve.ToolCall {
			t.Errorf("call %d came out only at the end", calls)
			calls++
		}
	}
	if calls != len(ends) {
		t.Fatalf("%d calls, want %d", calls, len(ends))
	}
}
