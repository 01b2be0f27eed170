package toolsieve

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestKeepReasoning: with Options.KeepReasoning, reasoning markup comes out
// as text, as written, at every chunking; calls are recovered as without
// it, and every byte is in exactly one event.
func TestKeepReasoning(t *testing.T) {
	input := "<think>check main.go first</think>Reading it.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"main.go\"}}\n</tool_call>"
	for _, keep := range []bool{false, true} {
		for size := 1; size <= len(input); size++ {
			p := NewParser(Options{KeepReasoning: keep})
			var evs []Event
			for i := 0; i < len(input); i += size {
				for _, e := range p.Feed([]byte(input[i:min(i+size, len(input))])) {
					evs = append(evs, e.Clone())
				}
			}
			for _, e := range p.Close() {
				evs = append(evs, e.Clone())
			}
			var text, reasoning, all bytes.Buffer
			calls := 0
			for _, e := range evs {
				switch e.Type {
				case Text:
					text.Write(e.Text)
					all.Write(e.Text)
				case Reasoning:
					reasoning.Write(e.Text)
					all.Write(e.Raw)
				case ToolCall:
					calls++
					require.Equal(t, "read_file", e.Name)
					all.Write(e.Raw)
				default:
					all.Write(e.Raw)
				}
			}
			require.Equal(t, input, all.String(), "lossless, keep %v, chunks of %d", keep, size)
			require.Equal(t, 1, calls, "keep %v, chunks of %d", keep, size)
			if keep {
				require.Empty(t, reasoning.String())
				require.Equal(t, "<think>check main.go first</think>Reading it.\n", text.String())
			} else {
				require.Equal(t, "check main.go first", reasoning.String())
				require.Equal(t, "Reading it.\n", text.String())
			}
		}
	}
}
