package chat_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve/chat"
)

// TestPairHistory: each orphan shape in each API, mended as strict
// providers require; a history that needs nothing comes back as it is.
func TestPairHistory(t *testing.T) {
	const (
		oaCall = `{"id":"%s","type":"function","function":{"name":"f","arguments":"{}"}}`
		p      = `{"id":"p","type":"function","function":{"name":"f","arguments":"{}"}}`
		q      = `{"id":"q","type":"function","function":{"name":"f","arguments":"{}"}}`
		y      = `{"id":"y","type":"function","function":{"name":"f","arguments":"{}"}}`
		u1     = `{"type":"tool_use","id":"u1","name":"f","input":{}}`
		u2     = `{"type":"tool_use","id":"u2","name":"g","input":{}}`
		c1     = `{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"}`
		c2     = `{"type":"function_call","call_id":"c2","name":"g","arguments":"{}"}`
	)
	for _, tc := range []struct {
		name    string
		api     chat.API
		in, out string
		want    chat.PairResult
	}{
		{"openai paired", chat.APIOpenAI,
			`{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":null,"tool_calls":[` + p + `]},{"role":"tool","tool_call_id":"p","content":"1"}]}`,
			"", chat.PairResult{}},
		{"openai result without call, call without result", chat.APIOpenAI,
			`{"model":"m","messages":[{"role":"user","content":"a"},{"role":"tool","tool_call_id":"x","content":"r"},{"role":"assistant","content":null,"tool_calls":[` + y + `]},{"role":"user","content":"b"}],"stream":true}`,
			`{"model":"m","messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}],"stream":true}`,
			chat.PairResult{CallsDropped: 1, ResultsDropped: 1, Messages: 2}},
		{"openai call without result keeps its text", chat.APIOpenAI,
			`{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"hi","tool_calls":[` + y + `]},{"role":"user","content":"b"}]}`,
			`{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"hi"},{"role":"user","content":"b"}]}`,
			chat.PairResult{CallsDropped: 1}},
		{"openai call restored from a later message", chat.APIOpenAI,
			`{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"ok","tool_calls":[` + p + `]},{"role":"tool","tool_call_id":"p","content":"1"},{"role":"tool","tool_call_id":"q","content":"2"},{"role":"user","content":"b"},{"role":"assistant","content":"","tool_calls":[` + q + `]}]}`,
			`{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"ok","tool_calls":[` + p + `,` + q + `]},{"role":"tool","tool_call_id":"p","content":"1"},{"role":"tool","tool_call_id":"q","content":"2"},{"role":"user","content":"b"}]}`,
			chat.PairResult{CallsRestored: 1, Messages: 1}},
		{"anthropic orphans on both sides", chat.APIAnthropic,
			`{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"text","text":"t"},` + u1 + `]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"u2","content":"r"},{"type":"text","text":"next"}]}]}`,
			`{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"text","text":"t"}]},{"role":"user","content":[{"type":"text","text":"next"}]}]}`,
			chat.PairResult{CallsDropped: 1, ResultsDropped: 1}},
		{"anthropic call restored, emptied message removed", chat.APIAnthropic,
			`{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[` + u1 + `]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"u1","content":"1"},{"type":"tool_result","tool_use_id":"u2","content":"2"}]},{"role":"assistant","content":[` + u2 + `]}]}`,
			`{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[` + u1 + `,` + u2 + `]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"u1","content":"1"},{"type":"tool_result","tool_use_id":"u2","content":"2"}]}]}`,
			chat.PairResult{CallsRestored: 1, Messages: 1}},
		{"anthropic result only message removed", chat.APIAnthropic,
			`{"messages":[{"role":"user","content":"a"},{"role":"user","content":[{"type":"tool_result","tool_use_id":"gone","content":"r"}]}]}`,
			`{"messages":[{"role":"user","content":"a"}]}`,
			chat.PairResult{ResultsDropped: 1, Messages: 1}},
		{"responses", chat.APIResponses,
			`{"input":[{"role":"user","content":"a"},{"type":"function_call_output","call_id":"c1","output":"r"},` + c1 + `,` + c2 + `,{"type":"function_call_output","call_id":"c3","output":"z"}]}`,
			`{"input":[{"role":"user","content":"a"},` + c1 + `,{"type":"function_call_output","call_id":"c1","output":"r"}]}`,
			chat.PairResult{CallsRestored: 1, CallsDropped: 1, ResultsDropped: 1, Messages: 2}},
		{"responses paired", chat.APIResponses,
			`{"input":[{"role":"user","content":"a"},` + c1 + `,{"type":"function_call_output","call_id":"c1","output":"r"}]}`,
			"", chat.PairResult{}},
	} {
		got, res := chat.PairHistory([]byte(tc.in), tc.api)
		require.Equal(t, tc.want, res, tc.name)
		if tc.out == "" {
			require.Equal(t, tc.in, string(got), tc.name)
			continue
		}
		require.Equal(t, tc.out, string(got), tc.name)
		require.True(t, json.Valid(got), tc.name)
		again, res := chat.PairHistory(got, tc.api)
		require.False(t, res.Changed(), tc.name+": mended once for all")
		require.Equal(t, string(got), string(again))
	}
}
