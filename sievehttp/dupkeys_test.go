package sievehttp

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// TestDuplicateKeysLastWins: a request that names a top-level key twice is
// read as the upstream reads it (the last one wins, keys compared decoded)
// on every field the proxy reads: model (the policy rule and the log),
// stream (the upstream timeouts), tools (declared tools), messages
// (history cleaning edits what the upstream will read).
func TestDuplicateKeysLastWins(t *testing.T) {
	chattest.NoLeaks(t)
	strict := &Policy{NoBuiltin: true, Rules: []ModelRule{{Model: "deepseek-chat", Rule: Rule{Mode: ModeStrict}}}}
	const user = `[{"role":"user","content":"x"}]`
	for _, body := range []string{
		`{"model":"x","stream":false,"messages":` + user + `,"model":"deepseek-chat"}`,
		`{"model":"x","stream":false,"messages":` + user + `,"mod\u0065l":"deepseek-chat"}`,
		`{"model":"deepseek-chat","stream":false,"messages":` + user + `,"model":"x","model":"deepseek-chat"}`,
	} {
		env := newPolEnv(t, strict, polCut)
		a := env.post(t, chat.APIOpenAI, false, "/v1/chat/completions", body)
		require.Empty(t, a.got.Calls, "strict, as the rule for deepseek-chat says: %s", body)
		require.Equal(t, "1", a.signal(HeaderRefused), body)
		require.Contains(t, env.logs.String(), "model=deepseek-chat mode=strict", body)
	}
	// The other way round: the last model is the lenient one.
	env := newPolEnv(t, strict, polCut)
	a := env.post(t, chat.APIOpenAI, false, "/v1/chat/completions", `{"model":"deepseek-chat","stream":false,"messages":`+user+`,"model":"x"}`)
	require.Len(t, a.got.Calls, 1)
	require.Contains(t, env.logs.String(), "model=x mode=lenient")

	// tools: the last declaration is the one that counts (tool_tag markup
	// is read only for declared tools).
	env = newPolEnv(t, &Policy{NoBuiltin: true}, "Reading.\n<read_file>\n<path>a.go</path>\n</read_file>")
	a = env.post(t, chat.APIOpenAI, false, "/v1/chat/completions", `{"model":"m","stream":false,"messages":`+user+`,`+
		`"tools":[{"type":"function","function":{"name":"other","parameters":{"type":"object"}}}],`+
		`"tools":[{"type":"function","function":{"name":"read_file","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}}]}`)
	require.Len(t, a.got.Calls, 1)
	require.Equal(t, "read_file", a.got.Calls[0].Name)

	// messages: history cleaning edits the messages the upstream reads.
	env = newPolEnv(t, &Policy{NoBuiltin: true}, "Done.")
	leaked := `[{"role":"user","content":"read it"},` +
		`{"role":"assistant","content":"<tool_call>\n<function=read_file>\n<parameter=path>\na.go\n</parameter>\n</function>\n</tool_call>"},` +
		`{"role":"tool","tool_call_id":"call_1","content":"package a"},{"role":"user","content":"go on"}]`
	env.post(t, chat.APIOpenAI, false, "/v1/chat/completions", `{"model":"m","stream":false,"messages":`+user+`,"messages":`+leaked+`}`)
	var sent struct {
		Messages []struct {
			Content   *string           `json:"content"`
			ToolCalls []json.RawMessage `json:"tool_calls"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal([]byte(env.up.bodies[0]), &sent)) // encoding/json: the last wins, as upstreams read it
	require.Len(t, sent.Messages, 4)
	require.Nil(t, sent.Messages[1].Content, env.up.bodies[0])
	require.Len(t, sent.Messages[1].ToolCalls, 1)
	require.Contains(t, env.logs.String(), "history_rewritten=1")

	// stream: the upstream timeouts follow the last value (header timeout
	// for a stream, response timeout for a whole answer).
	up := newScripted(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		stall(r)
	})
	henv := newHardEnv(t, up, &Policy{NoBuiltin: true, Default: Rule{HeaderTimeoutMS: 100, ResponseTimeoutMS: 250}}, nil)
	for body, want := range map[string]string{
		`{"model":"m","stream":false,"messages":` + user + `,"stream":true}`: "within 100ms",
		`{"model":"m","stream":true,"messages":` + user + `,"stream":false}`: "within 250ms",
	} {
		resp, b, err := henv.doBody(t, "/v1/chat/completions", strings.NewReader(body))
		require.NoError(t, err)
		require.Equal(t, http.StatusGatewayTimeout, resp.StatusCode)
		require.Contains(t, string(b), want, body)
		up.waitCancelled(t)
	}
}
