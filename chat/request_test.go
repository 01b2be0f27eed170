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
