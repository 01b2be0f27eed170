package fsm

import "testing"

// TestThinkCallSteps: a call in reasoning waits for what follows it; the
// end of the reasoning makes it, reasoning that goes on gives it back.
func TestThinkCallSteps(t *testing.T) {
	call := "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>"
	tests := []stepCase{
		{"made at the end of the reasoning", []string{"<think>go\n", call, "\n", "</think>", "ok"},
			[][]string{{`reasoning ""`, `reasoning "go\n"`}, {}, {},
				{`call f {"a": 1}[in_reasoning]`, "discard block_markup", `reasoning "\n"`, `reasoning ""`}, {`text "ok"`}, {}}},
		{"given back when the reasoning goes on", []string{"<think>go\n", call, "\nthen wait", "</think>"},
			[][]string{{`reasoning ""`, `reasoning "go\n"`}, {},
				{`reasoning "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}"`, `reasoning "\n</tool_call>"`, `reasoning "\nthen wait"`},
				{`reasoning ""`}, {}}},
		{"made at the end of input", []string{"<think>go\n", call}, [][]string{{`reasoning ""`, `reasoning "go\n"`}, {}, {`call f {"a": 1}[in_reasoning]`, "discard block_markup"}}},
	}
	runSteps(t, Options{}, tests)
}
