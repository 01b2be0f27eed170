package toolsieve

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// choiceInput holds three calls in three dialects, with text around them.
const choiceInput = "Reading.\n<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"a\"}}\n</tool_call>\n" +
	"<tool_call>\n<function=write>\n<parameter=path>\nb\n</parameter>\n</function>\n</tool_call>\n" +
	"<tool_call>\n{\"name\": \"list\", \"arguments\": {}}\n</tool_call>\nDone."

// feedAll runs a parser over in cut into pieces of n bytes and returns its
// events (cloned).
func feedAll(in string, n int, opt Options) []Event {
	p := NewParser(opt)
	var out []Event
	for i := 0; i < len(in); i += n {
		for _, e := range p.Feed([]byte(in[i:min(i+n, len(in))])) {
			out = append(out, e.Clone())
		}
	}
	for _, e := range p.Close() {
		out = append(out, e.Clone())
	}
	return out
}

// lossless reports the input the events stand for.
func lossless(evs []Event) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Type == Text {
			b.Write(e.Text)
		} else {
			b.Write(e.Raw)
		}
	}
	return b.String()
}

// TestNoCalls: with NoCalls every byte is text, at every split.
func TestNoCalls(t *testing.T) {
	for _, n := range []int{1, 7, len(choiceInput)} {
		for _, stream := range []bool{false, true} {
			evs := feedAll(choiceInput, n, Options{NoCalls: true, StreamCalls: stream})
			var text strings.Builder
			for _, e := range evs {
				require.Equal(t, Text, e.Type, "split %d: %s", n, e.Type)
				text.Write(e.Text)
			}
			require.Equal(t, choiceInput, text.String(), "split %d", n)
		}
	}
}

// TestMaxCalls: the first call passes, the next two come as parallel_call
// discards that keep name and arguments, nothing is lost, at every split,
// streamed or not.
func TestMaxCalls(t *testing.T) {
	for _, n := range []int{1, 5, len(choiceInput)} {
		for _, stream := range []bool{false, true} {
			name := fmt.Sprintf("split %d stream %v", n, stream)
			evs := feedAll(choiceInput, n, Options{MaxCalls: 1, StreamCalls: stream, IDPrefix: "c_"})
			var calls, dropped []string
			for _, e := range evs {
				switch {
				case e.Type == ToolCall:
					calls = append(calls, e.ID+" "+e.Name+" "+string(e.Arguments))
				case e.Type == Discard && e.Reason == ReasonParallelCall:
					dropped = append(dropped, e.ID+" "+e.Name+" "+string(e.Arguments))
				case e.Type == ToolCallStart || e.Type == ToolCallDelta:
					require.Equal(t, 0, e.Index, name)
				}
			}
			require.Equal(t, []string{`c_0 read {"path":"a"}`}, calls, name)
			require.Equal(t, []string{`c_1 write {"path":"b"}`, `c_2 list {}`}, dropped, name)
			require.Equal(t, choiceInput, lossless(evs), name)
		}
	}
	require.Equal(t, "parallel_call", ReasonParallelCall.String())
}

// TestCallID: CallID makes every id, markup ids included, streamed or not.
func TestCallID(t *testing.T) {
	mistral := func(i int) string { return fmt.Sprintf("abcdefgh%d", i) }
	kimi := "<|tool_calls_section_begin|><|tool_call_begin|>functions.read:0<|tool_call_argument_begin|>{\"path\": \"a\"}<|tool_call_end|><|tool_calls_section_end|>"
	for _, in := range []string{choiceInput, kimi} {
		for _, stream := range []bool{false, true} {
			var ids []string
			for _, e := range feedAll(in, 3, Options{CallID: mistral, StreamCalls: stream}) {
				if e.Type == ToolCall || e.Type == ToolCallStart && e.ID != "" {
					ids = append(ids, e.Type.String()+":"+e.ID)
				}
			}
			require.NotEmpty(t, ids)
			for _, id := range ids {
				require.Regexp(t, `^tool_call(_start)?:abcdefgh[0-9]$`, id)
			}
		}
	}
}
