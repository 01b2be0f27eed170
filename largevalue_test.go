package toolsieve

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLargeValuesAtEveryChunking: calls whose one argument is large (past
// the short paths' batches) and full of what those paths must stop at or
// see through: escapes, a quote, angle brackets, tags that are no markup,
// letters before '>', a misspelt closer inside a JSON string, non-ASCII.
// Every chunking gives the events of the whole input.
func TestLargeValuesAtEveryChunking(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 150<<10; i++ {
		fmt.Fprintf(&b, "line %d:\tif a < b && xs[i] > 0 { s := \"q\\\\p\" }\n<div class=\"r\">é %d</div> word>", i, i)
	}
	content := b.String()
	arg, err := json.Marshal(content)
	require.NoError(t, err)
	inputs := map[string]string{
		"hermes": "Go.\n<tool_call>\n{\"name\": \"write\", \"arguments\": {\"path\": \"a\", \"content\": " + string(arg) + "}}\n</tool_call>\nDone.",
		"qwen3_coder": "Go.\n<tool_call>\n<function=write>\n<parameter=content>\n" + content +
			"\n</parameter>\n</function>\n</tool_call>\nDone.",
		"misspelt closer in a string": "<tool_call>\n{\"name\": \"write\", \"arguments\": {\"content\": " +
			string(arg[:len(arg)-1]) + "</tool_calls>\nDone.",
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			want := eventsOf(Parse([]byte(in), Options{}))
			for _, n := range []int{1, 3, 4, 5, 8, 64, 4096} {
				p := NewParser(Options{})
				var evs []Event
				for i := 0; i < len(in); i += n {
					for _, e := range p.Feed([]byte(in[i:min(i+n, len(in))])) {
						evs = append(evs, e.Clone())
					}
				}
				for _, e := range p.Close() {
					evs = append(evs, e.Clone())
				}
				require.Equal(t, want, eventsOf(evs), "%d-byte chunks", n)
			}
		})
	}
}

// eventsOf is what chunking must not change: the calls, and the text and
// raw bytes in order.
func eventsOf(evs []Event) []string {
	var out []string
	var text strings.Builder
	for _, e := range evs {
		text.Write(e.Text)
		text.Write(e.Raw)
		if e.Type == ToolCall {
			out = append(out, fmt.Sprintf("%s %s %v %s", e.Name, e.Arguments, e.Repairs, e.Dialect))
		}
	}
	return append(out, text.String())
}
