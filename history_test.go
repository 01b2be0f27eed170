package toolsieve

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A leaked DSML call, as DeepSeek writes it into its content.
const histDSML = "I'll read it.\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"read_file\">\n" +
	"<｜DSML｜parameter name=\"path\" string=\"true\">main.go</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"

func histQ(s string) string { return string(appendQuoted(nil, s)) }

func TestCleanHistoryOpenAI(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		res            HistoryResult
	}{
		{
			name: "string content, matched tool result",
			in: `{"model":"m","messages":[{"role":"user","content":"read main.go"},` +
				`{"role":"assistant","content":` + histQ(histDSML) + `},` +
				`{"role":"tool","tool_call_id":"call_abc","content":"package main"},` +
				`{"role":"user","content":"thanks"}]}`,
			want: `{"model":"m","messages":[{"role":"user","content":"read main.go"},` +
				`{"role":"assistant","content":"I'll read it.","tool_calls":[{"id":"call_abc","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"main.go\"}"}}]},` +
				`{"role":"tool","tool_call_id":"call_abc","content":"package main"},` +
				`{"role":"user","content":"thanks"}]}`,
			res: HistoryResult{Messages: 1, Calls: 1},
		},
		{
			name: "two calls, native call kept, results matched in order",
			in: `{"messages":[{"role":"assistant","content":` + histQ("<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>\n<tool_call>\n{\"name\": \"b\", \"arguments\": {\"x\": 1}}\n</tool_call>") +
				`,"tool_calls":[{"id":"n1","type":"function","function":{"name":"c","arguments":"{}"}}]},` +
				`{"role":"tool","tool_call_id":"n1","content":"c done"},{"role":"tool","tool_call_id":"r1","content":"a done"},{"role":"tool","tool_call_id":"r2","content":"b done"}]}`,
			want: `{"messages":[{"role":"assistant","content":null` +
				`,"tool_calls":[{"id":"n1","type":"function","function":{"name":"c","arguments":"{}"}},` +
				`{"id":"r1","type":"function","function":{"name":"a","arguments":"{}"}},{"id":"r2","type":"function","function":{"name":"b","arguments":"{\"x\":1}"}}]},` +
				`{"role":"tool","tool_call_id":"n1","content":"c done"},{"role":"tool","tool_call_id":"r1","content":"a done"},{"role":"tool","tool_call_id":"r2","content":"b done"}]}`,
			res: HistoryResult{Messages: 1, Calls: 2},
		},
		{
			name: "no result: the call is dropped with its markup",
			in:   `{"messages":[{"role":"assistant","content":` + histQ(histDSML) + `},{"role":"user","content":"go on"}]}`,
			want: `{"messages":[{"role":"assistant","content":"I'll read it."},{"role":"user","content":"go on"}]}`,
			res:  HistoryResult{Messages: 1, Dropped: 1},
		},
		{
			name: "content parts",
			in: `{"messages":[{"role":"assistant","content":[{"type":"text","text":"Sure."},{"type":"text","text":` +
				histQ("<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>") + `}]},{"role":"tool","tool_call_id":"x9","content":"ok"}]}`,
			want: `{"messages":[{"role":"assistant","content":[{"type":"text","text":"Sure."}],"tool_calls":[{"id":"x9","type":"function","function":{"name":"a","arguments":"{}"}}]},{"role":"tool","tool_call_id":"x9","content":"ok"}]}`,
			res:  HistoryResult{Messages: 1, Calls: 1},
		},
		{
			name: "leftover markup only",
			in:   `{"messages":[{"role":"assistant","content":"Done.</tool_call>"}]}`,
			want: `{"messages":[{"role":"assistant","content":"Done."}]}`,
			res:  HistoryResult{Messages: 1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, res := CleanHistory([]byte(tc.in), APIOpenAI, Options{})
			require.True(t, json.Valid(out), string(out))
			require.Equal(t, tc.want, string(out))
			require.Equal(t, tc.res, res)
		})
	}
}

func TestCleanHistoryAnthropic(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		res            HistoryResult
	}{
		{
			name: "string content",
			in: `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"read"},{"role":"assistant","content":` + histQ(histDSML) + `},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"package main"},{"type":"text","text":"and?"}]}]}`,
			want: `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"read"},{"role":"assistant","content":[{"type":"text","text":"I'll read it."},` +
				`{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"main.go"}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"package main"},{"type":"text","text":"and?"}]}]}`,
			res: HistoryResult{Messages: 1, Calls: 1},
		},
		{
			name: "blocks, own tool_use kept, cache_control kept",
			in: `{"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"text","text":` + histQ("Two.\n<function_calls>\n<invoke name=\"a\">\n</invoke>\n</function_calls>") + `,"cache_control":{"type":"ephemeral"}},` +
				`{"type":"tool_use","id":"own","name":"b","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"own","content":"b"},{"type":"tool_result","tool_use_id":"new1","content":"a"}]}]}`,
			want: `{"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"text","text":"Two.","cache_control":{"type":"ephemeral"}},` +
				`{"type":"tool_use","id":"new1","name":"a","input":{}},{"type":"tool_use","id":"own","name":"b","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"own","content":"b"},{"type":"tool_result","tool_use_id":"new1","content":"a"}]}]}`,
			res: HistoryResult{Messages: 1, Calls: 1},
		},
		{
			name: "nothing left: the message goes",
			in:   `{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>"},{"role":"user","content":"b"}]}`,
			want: `{"messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}]}`,
			res:  HistoryResult{Messages: 1, Dropped: 1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, res := CleanHistory([]byte(tc.in), APIAnthropic, Options{})
			require.True(t, json.Valid(out), string(out))
			require.Equal(t, tc.want, string(out))
			require.Equal(t, tc.res, res)
		})
	}
}

// TestCleanHistoryUnchanged: bodies without markup in assistant messages
// come back as the same bytes.
func TestCleanHistoryUnchanged(t *testing.T) {
	for _, in := range []string{
		``, `not json`, `{"messages":"x"}`, `[1,2]`,
		"{ \"model\" : \"m\",\n \"messages\" : [ {\"role\":\"assistant\", \"content\":\"plain \\u00e9 text\"},{\"role\":\"user\",\"content\":\"<tool_call>{\\\"name\\\":\\\"a\\\"}</tool_call>\"} ] }",
		`{"messages":[{"role":"assistant","content":"quoted: ` + "`<tool_call>`" + ` in code"}]}`,
		`{"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]}]}`,
	} {
		for _, api := range []API{APIOpenAI, APIAnthropic} {
			out, res := CleanHistory([]byte(in), api, Options{})
			require.Equal(t, in, string(out))
			require.Zero(t, res)
		}
	}
}

// TestProxyCleansHistory: a transcript with leaked DSML in its history
// reaches the upstream clean, with the ids of its tool results; a request
// without leaked markup reaches it byte for byte; the rewrite is logged as
// counts, never with content.
func TestProxyCleansHistory(t *testing.T) {
	noLeaks(t)
	env := newPolEnv(t, &Policy{}, "ok")
	oa := `{"model":"deepseek-chat","messages":[{"role":"user","content":"read main.go"},` +
		`{"role":"assistant","content":` + histQ(histDSML) + `},` +
		`{"role":"tool","tool_call_id":"call_abc","content":"package main"},{"role":"user","content":"thanks"}]}`
	an := `{"model":"deepseek-chat","max_tokens":100,"messages":[{"role":"user","content":"read main.go"},` +
		`{"role":"assistant","content":` + histQ(histDSML) + `},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_abc","content":"package main"}]}]}`
	post := func(path, body string, hdr ...string) {
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
	post("/v1/chat/completions", oa)
	post("/v1/messages", an)
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
	post("/v1/chat/completions", oa, HeaderCleanHistory, "false")
	require.Equal(t, oa, env.up.bodies[2])
	plain := "{ \"model\": \"deepseek-chat\",\n  \"messages\": [{\"role\":\"assistant\",\"content\":\"fine\"}, {\"role\":\"user\",\"content\":\"\\u003ctool_call>\"}] }"
	post("/v1/chat/completions", plain)
	require.Equal(t, plain, env.up.bodies[3])

	var m strings.Builder
	env.metrics.WriteTo(&m)
	require.Contains(t, m.String(), "toolsieve_history_messages_rewritten_total 2")
	require.Contains(t, m.String(), "toolsieve_history_calls_total 2")
}
