package chat_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// TestReadRequestDuplicateKeys: a key named twice is read as upstreams
// read it: the last one wins (model, the token cap, tools), escaped keys
// included.
func TestReadRequestDuplicateKeys(t *testing.T) {
	r := chat.ReadRequest([]byte(`{"model":"x","max_tokens":10,"tools":[{"name":"a","input_schema":{}}],` +
		`"model":"y","max_tokens":20,"tools":[{"name":"b","input_schema":{}}],"mod\u0065l":"z"}`))
	require.Equal(t, "z", r.Model)
	require.EqualValues(t, 20, r.MaxTokens)
	require.Equal(t, []string{"b"}, r.Tools.Names())
}

// TestCleanHistoryDuplicateKeys: a history named twice is cleaned where the
// upstream reads it, the last one (messages of both chat APIs, a
// Responses request's input).
func TestCleanHistoryDuplicateKeys(t *testing.T) {
	leaked := chattest.Quote(chattest.LeakedDSML)
	for _, tc := range []struct {
		api       chat.API
		key, hist string
	}{
		{chat.APIOpenAI, "messages", `[{"role":"assistant","content":` + leaked + `},{"role":"tool","tool_call_id":"c1","content":"x"}]`},
		{chat.APIAnthropic, "messages", `[{"role":"assistant","content":` + leaked + `},{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"x"}]}]`},
		{chat.APIResponses, "input", `[{"role":"assistant","content":` + leaked + `},{"type":"function_call_output","call_id":"c1","output":"x"}]`},
	} {
		body := `{"model":"m","` + tc.key + `":[{"role":"user","content":"hi"}],"` + tc.key + `":` + tc.hist + `}`
		out, res := chat.CleanHistory([]byte(body), tc.api, toolsieve.Options{})
		require.Equal(t, 1, res.Messages, tc.api.String())
		var v map[string]json.RawMessage // encoding/json: the last one wins, as upstreams read it
		require.NoError(t, json.Unmarshal(out, &v))
		require.NotContains(t, string(v[tc.key]), "DSML", tc.api.String())
		require.Contains(t, string(v[tc.key]), `read_file`, tc.api.String())
	}
}

// TestReadToolChoice: tool_choice and parallel calls in the three APIs'
// shapes (Responses names its tool at the top of the object).
func TestReadToolChoice(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       chat.ToolChoice
		noParallel bool
	}{
		{"absent", `{"model":"m"}`, chat.ToolChoice{}, false},
		{"openai auto", `{"tool_choice":"auto"}`, chat.ToolChoice{}, false},
		{"openai none", `{"tool_choice":"none"}`, chat.ToolChoice{Mode: chat.ChoiceNone}, false},
		{"openai required", `{"tool_choice":"required","parallel_tool_calls":false}`, chat.ToolChoice{Mode: chat.ChoiceRequired}, true},
		{"openai named", `{"tool_choice":{"type":"function","function":{"name":"read"}}}`, chat.ToolChoice{Mode: chat.ChoiceTool, Name: "read"}, false},
		{"responses named", `{"tool_choice":{"type":"function","name":"re\u0061d"},"parallel_tool_calls":true}`, chat.ToolChoice{Mode: chat.ChoiceTool, Name: "read"}, false},
		{"anthropic auto", `{"tool_choice":{"type":"auto","disable_parallel_tool_use":true}}`, chat.ToolChoice{}, true},
		{"anthropic any", `{"tool_choice":{"type":"any"}}`, chat.ToolChoice{Mode: chat.ChoiceRequired}, false},
		{"anthropic tool", `{"tool_choice":{"type":"tool","name":"read","disable_parallel_tool_use":false}}`, chat.ToolChoice{Mode: chat.ChoiceTool, Name: "read"}, false},
		{"anthropic none", `{"tool_choice":{"type":"none"}}`, chat.ToolChoice{Mode: chat.ChoiceNone}, false},
		{"last wins", `{"tool_choice":"none","tool_choice":"required"}`, chat.ToolChoice{Mode: chat.ChoiceRequired}, false},
		{"named without a name", `{"tool_choice":{"type":"function"}}`, chat.ToolChoice{}, false},
	} {
		r := chat.ReadRequest([]byte(tc.body))
		require.Equal(t, tc.want, r.ToolChoice, tc.name)
		require.Equal(t, tc.noParallel, r.NoParallel, tc.name)
	}
}
