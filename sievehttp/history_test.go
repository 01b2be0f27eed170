package sievehttp

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// TestProxyCleansHistory: a transcript with leaked DSML in its history
// reaches the upstream clean, with the ids of its tool results; a request
// without leaked markup reaches it byte for byte; the rewrite is logged as
// counts, never with content.
func TestProxyCleansHistory(t *testing.T) {
	chattest.NoLeaks(t)
	env := newPolEnv(t, &Policy{}, "ok")
	oa := `{"model":"deepseek-chat","messages":[{"role":"user","content":"read main.go"},` +
		`{"role":"assistant","content":` + chattest.Quote(chattest.LeakedDSML) + `},` +
		`{"role":"tool","tool_call_id":"call_abc","content":"package main"},{"role":"user","content":"thanks"}]}`
	an := `{"model":"deepseek-chat","max_tokens":100,"messages":[{"role":"user","content":"read main.go"},` +
		`{"role":"assistant","content":` + chattest.Quote(chattest.LeakedDSML) + `},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_abc","content":"package main"}]}]}`
	send := func(path, body string, hdr ...string) {
		req, _ := http.NewRequest(http.MethodPost, env.proxy.URL+path, strings.NewReader(body))
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := env.client.Do(req)
		require.NoError(t, err)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	send("/v1/chat/completions", oa)
	send("/v1/messages", an)
	require.Equal(t, 2, env.up.requests())

	var got struct {
		Messages []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal([]byte(env.up.bodies[0]), &got))
	require.Len(t, got.Messages, 4)
	require.Equal(t, `"I'll read it."`, string(got.Messages[1].Content))
	require.Len(t, got.Messages[1].ToolCalls, 1)
	require.Equal(t, "call_abc", got.Messages[1].ToolCalls[0].ID)
	require.Equal(t, "read_file", got.Messages[1].ToolCalls[0].Function.Name)
	require.JSONEq(t, `{"path":"main.go"}`, got.Messages[1].ToolCalls[0].Function.Arguments)
	require.NotContains(t, env.up.bodies[0], "DSML")

	var gotA struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal([]byte(env.up.bodies[1]), &gotA))
	var blocks []struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
	require.NoError(t, json.Unmarshal(gotA.Messages[1].Content, &blocks))
	require.Len(t, blocks, 2)
	require.Equal(t, "tool_use", blocks[1].Type)
	require.Equal(t, "toolu_abc", blocks[1].ID)
	require.JSONEq(t, `{"path":"main.go"}`, string(blocks[1].Input))
	require.NotContains(t, env.up.bodies[1], "DSML")

	logs := env.logs.String()
	require.Contains(t, logs, "history_rewritten=1 history_calls=1")
	require.NotContains(t, logs, "main.go")
	require.NotContains(t, logs, "read it")

	// Turned off by a header; and a clean body passes byte for byte.
	send("/v1/chat/completions", oa, HeaderCleanHistory, "false")
	require.Equal(t, oa, env.up.bodies[2])
	plain := "{ \"model\": \"deepseek-chat\",\n  \"messages\": [{\"role\":\"assistant\",\"content\":\"fine\"}, {\"role\":\"user\",\"content\":\"\\u003ctool_call>\"}] }"
	send("/v1/chat/completions", plain)
	require.Equal(t, plain, env.up.bodies[3])

	var m strings.Builder
	env.metrics.WriteTo(&m)
	require.Contains(t, m.String(), "toolsieve_history_messages_rewritten_total 2")
	require.Contains(t, m.String(), "toolsieve_history_calls_total 2")
}
