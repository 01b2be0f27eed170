package chat_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// TestAppendTurns: the failed answer and the feedback come after the
// client's messages, which stay byte for byte.
func TestAppendTurns(t *testing.T) {
	for _, tc := range []struct {
		api        chat.API
		body, want string
	}{
		{chat.APIOpenAI, `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
			`{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"bad \"x\""},{"role":"user","content":"fix it"}]}`},
		{chat.APIAnthropic, `{"messages":[ {"role":"user","content":[{"type":"text","text":"hi"}]} ],"max_tokens":5}`,
			`{"messages":[ {"role":"user","content":[{"type":"text","text":"hi"}]} ,{"role":"assistant","content":"bad \"x\""},{"role":"user","content":"fix it"}],"max_tokens":5}`},
		{chat.APIResponses, `{"input":"hi","model":"m"}`,
			`{"input":[{"role":"user","content":"hi"},{"role":"assistant","content":"bad \"x\""},{"role":"user","content":"fix it"}],"model":"m"}`},
		{chat.APIOpenAI, `{"messages":[]}`, `{"messages":[{"role":"assistant","content":"bad \"x\""},{"role":"user","content":"fix it"}]}`},
	} {
		out, ok := chat.AppendTurns([]byte(tc.body), tc.api, []byte(`bad "x"`), []byte("fix it"))
		require.True(t, ok, tc.api.String())
		require.Equal(t, tc.want, string(out))
		require.True(t, json.Valid(out))
	}
	out, ok := chat.AppendTurns([]byte(`{"messages":[{"role":"user","content":"hi"}]}`), chat.APIOpenAI, nil, []byte("again"))
	require.True(t, ok)
	require.Equal(t, `{"messages":[{"role":"user","content":"hi"},{"role":"user","content":"again"}]}`, string(out), "no empty assistant turn")
	_, ok = chat.AppendTurns([]byte(`{"model":"m"}`), chat.APIOpenAI, nil, []byte("x"))
	require.False(t, ok)
}

// TestAnswerText: the content of a stream or a document of each API.
func TestAnswerText(t *testing.T) {
	content := "Reading é.\n<tool_call>{\"name\":\"x\"}</tool_call>"
	pieces := []string{content[:5], content[5:20], content[20:]}
	for _, tc := range []struct {
		api  chat.API
		body []byte
	}{
		{chat.APIOpenAI, chattest.OpenAIStream(pieces)},
		{chat.APIOpenAI, chattest.OpenAIDoc(content)},
		{chat.APIAnthropic, chattest.AnthropicStream(pieces)},
		{chat.APIAnthropic, chattest.AnthropicDoc(content)},
		{chat.APIResponses, chattest.ResponsesStream(pieces)},
		{chat.APIResponses, chattest.ResponsesDoc(content)},
	} {
		require.Equal(t, content, string(chat.AnswerText(tc.body, tc.api, 1<<10)), tc.api.String())
		require.Equal(t, "Reading ", string(chat.AnswerText(tc.body, tc.api, 9)), "cut inside é: "+tc.api.String())
	}
}
