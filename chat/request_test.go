package chat_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve/chat"
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
