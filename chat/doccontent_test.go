package chat_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve/chat"
)

func TestReadDocument(t *testing.T) {
	type text struct {
		msg                int
		reasoning, content string
	}
	tests := []struct {
		name    string
		doc     string
		ok      bool
		api     chat.API
		request bool
		model   string
		texts   []text
	}{
		{
			name: "openai response",
			doc: `{"id":"c1","object":"chat.completion","model":"deepseek-chat","choices":[` +
				`{"index":1,"message":{"role":"assistant","content":"other"}},` +
				`{"index":0,"message":{"role":"assistant","reasoning_content":"think \"hard\"","content":"Hi\n<tool_call>get_time</tool_call>"},"finish_reason":"stop"}]}`,
			ok: true, api: chat.APIOpenAI, model: "deepseek-chat",
			texts: []text{{-1, `think "hard"`, "Hi\n<tool_call>get_time</tool_call>"}},
		},
		{
			name: "responses response",
			doc: `{"id":"resp_1","object":"response","model":"gpt-oss","output":[` +
				`{"type":"reasoning","content":[{"type":"reasoning_text","text":"plan"}]},` +
				`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi "},{"type":"output_text","text":"<tool_call>get_time</tool_call>"}]}]}`,
			ok: true, api: chat.APIResponses, model: "gpt-oss",
			texts: []text{{-1, "plan", "Hi <tool_call>get_time</tool_call>"}},
		},
		{
			name: "openai response, null content",
			doc:  `{"model":"m","choices":[{"message":{"role":"assistant","content":null,"tool_calls":[]}}]}`,
			ok:   true, api: chat.APIOpenAI, model: "m",
			texts: []text{{-1, "", ""}},
		},
		{
			name: "anthropic response",
			doc: `{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[` +
				`{"type":"thinking","thinking":"plan","signature":"s"},{"type":"text","text":"A "},` +
				`{"type":"tool_use","id":"t","name":"n","input":{}},{"type":"text","text":"<｜DSML｜x"}],"stop_reason":"end_turn"}`,
			ok: true, api: chat.APIAnthropic, model: "claude-x",
			texts: []text{{-1, "plan", "A <｜DSML｜x"}},
		},
		{
			name: "openai request",
			doc: `{"model":"qwen3-coder","messages":[{"role":"system","content":"s"},{"role":"user","content":"u"},` +
				`{"role":"assistant","content":"one"},{"role":"tool","tool_call_id":"x","content":"r"},` +
				`{"role":"assistant","content":[{"type":"text","text":"two "},{"type":"text","text":"parts"}]},` +
				`{"role":"assistant","content":null,"tool_calls":[]}]}`,
			ok: true, request: true, model: "qwen3-coder",
			texts: []text{{2, "", "one"}, {4, "", "two parts"}},
		},
		{
			name: "anthropic request",
			doc: `{"model":"claude","max_tokens":10,"system":"s","messages":[{"role":"user","content":"u"},` +
				`{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"<tool_call>"}]}]}`,
			ok: true, request: true, model: "claude",
			texts: []text{{1, "t", "<tool_call>"}},
		},
		{name: "other JSON", doc: `{"hello":"world"}`},
		{name: "array", doc: `[1,2]`},
		{name: "invalid", doc: `{"choices":[`},
		{name: "text", doc: `Hello`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := chat.ReadDocument([]byte(tt.doc))
			require.Equal(t, tt.ok, ok)
			if !tt.ok {
				return
			}
			assert.Equal(t, tt.api, d.API)
			assert.Equal(t, tt.request, d.Request)
			assert.Equal(t, tt.model, d.Model)
			var got []text
			for _, x := range d.Texts {
				got = append(got, text{x.Message, string(x.Reasoning), string(x.Content)})
			}
			assert.Equal(t, tt.texts, got)
		})
	}
}
