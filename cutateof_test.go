package toolsieve

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCutAtEOFReason: a call the end of input cut inside a value, or
// right after its name, is text with one error that carries the reason
// cut_at_eof and the call's name, at every chunking, streamed or not, in
// a markup and a JSON-less dialect; streamed, the error comes right after
// the call's start (before its markup as text), so the wire layers can
// end the answer. A call cut after its last value is complete is a call
// with closed_at_eof and no such error.
func TestCutAtEOFReason(t *testing.T) {
	cut := []string{
		"Writing it.\n<tool_call>\n<function=write>\n<parameter=path>\na.cs\n</parameter>\n<parameter=content>\nusing System;",
		"<function_calls>\n<invoke name=\"write\">\n<parameter name=\"path\">a.txt</parameter>\n<parameter name=\"content\">hal",
		"Let me look:\n<tool_call>\n<function=write>\n",
	}
	for i, in := range cut {
		for _, streamed := range []bool{false, true} {
			for _, n := range []int{len(in), 1, 3, 7} {
				msg := fmt.Sprintf("input %d, streamed %v, chunk %d", i, streamed, n)
				evs := feedAll(in, n, Options{StreamCalls: streamed})
				var errs []Event
				started := -1
				for k, e := range evs {
					switch e.Type {
					case ToolCall:
						t.Fatalf("%s: a call %s", msg, e.Name)
					case ToolCallStart:
						started = k
					case Error:
						errs = append(errs, e)
						if started >= 0 {
							for _, b := range evs[started+1 : k] {
								require.Equal(t, ToolCallDelta, b.Type, "%s: only deltas between the start and its error", msg)
							}
						}
					}
				}
				require.Len(t, errs, 1, msg)
				require.Equal(t, ReasonCutAtEOF, errs[0].Reason, msg)
				require.Equal(t, "write", errs[0].Name, msg)
				require.Equal(t, in, string(accounted(evs)), msg)
			}
		}
	}
	// Twin: cut after its last value closed, the call is complete.
	evs := feedAll("<tool_call>\n<function=write>\n<parameter=path>\na.cs\n</parameter>\n", 1, Options{})
	var calls int
	for _, e := range evs {
		require.NotEqual(t, Error, e.Type)
		if e.Type == ToolCall {
			calls++
			require.True(t, e.HasRepair("closed_at_eof"))
		}
	}
	require.Equal(t, 1, calls)
}
