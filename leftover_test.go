package toolsieve

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLeftoverWaitBounded: after a call in a wrapper of no dialect, the
// text that may lead to the wrapper's closer is held only up to a fixed
// size. A long run of blank lines after the call goes on as text (and the
// closer after it with it), fed a byte at a time, without the parser
// holding more than that bound.
func TestLeftoverWaitBounded(t *testing.T) {
	tools, err := ParseTools([]byte(`[{"type":"function","function":{"name":"read_file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}]`))
	require.NoError(t, err)
	call := "<actions>\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}\n</tool_call>"
	for _, gap := range []int{1, 100, 10000} {
		in := call + strings.Repeat("\n", gap) + "</actions>"
		p := NewParser(Options{Tools: tools})
		var evs []Event
		maxHeld := 0
		for i := range len(in) {
			evs = append(evs, cloneAll(p.Feed([]byte(in[i:i+1])))...)
			maxHeld = max(maxHeld, p.Holding())
		}
		evs = append(evs, cloneAll(p.Close())...)
		var text, all bytes.Buffer
		calls := 0
		for _, e := range evs {
			all.Write(e.Text)
			all.Write(e.Raw)
			switch e.Type {
			case Text:
				text.Write(e.Text)
			case ToolCall:
				calls++
			}
		}
		assert.Equal(t, in, all.String(), "gap %d: every byte once, in order", gap)
		assert.Equal(t, 1, calls, "gap %d", gap)
		assert.LessOrEqual(t, maxHeld, 512, "gap %d: bytes held", gap)
		if gap > 100 {
			assert.Contains(t, text.String(), "</actions>", "gap %d: a closer this far from the call is text", gap)
		} else {
			assert.NotContains(t, text.String(), "</actions>", "gap %d: the wrapper's closer is its markup", gap)
		}
	}
}

func cloneAll(evs []Event) []Event {
	out := make([]Event, len(evs))
	for i := range evs {
		out[i] = evs[i].Clone()
	}
	return out
}
