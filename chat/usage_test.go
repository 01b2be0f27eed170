package chat_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// TestRewriteUsage: the usage every API reports, streamed or whole, is in
// the stats; DropUsageChunk keeps an OpenAI stream's usage chunk from the
// output.
func TestRewriteUsage(t *testing.T) {
	pieces := []string{"Hello ", "there."}
	for _, tc := range []struct {
		api  chat.API
		body []byte
	}{
		{chat.APIOpenAI, chattest.OpenAIStream(pieces)},
		{chat.APIOpenAI, chattest.OpenAIDoc("Hello there.")},
		{chat.APIAnthropic, chattest.AnthropicStream(pieces)},
		{chat.APIAnthropic, chattest.AnthropicDoc("Hello there.")},
		{chat.APIResponses, chattest.ResponsesStream(pieces)},
		{chat.APIResponses, chattest.ResponsesDoc("Hello there.")},
	} {
		out, st := chattest.RewriteAll(t, tc.body, tc.api, toolsieve.Options{}, 7)
		require.Equal(t, chat.Usage{Input: 5, Output: 7, Seen: true}, st.Usage, tc.api.String())
		require.Equal(t, string(tc.body), string(out))
	}
	in := chattest.OpenAIStream(pieces)
	rw := chat.NewRewriter(io.NopCloser(bytes.NewReader(in)), chat.APIOpenAI, toolsieve.Options{})
	rw.DropUsageChunk()
	out, err := io.ReadAll(rw)
	require.NoError(t, err)
	require.Equal(t, chat.Usage{Input: 5, Output: 7, Seen: true}, rw.Stats().Usage)
	require.NotContains(t, string(out), "usage")
	require.Equal(t, chattest.AccumulateOpenAI(t, in).Text, chattest.AccumulateOpenAI(t, out).Text)
}
