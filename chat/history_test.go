package chat_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

func TestCleanHistoryOpenAI(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		res            chat.HistoryResult
	}{
		{
			name: "string content, matched tool result",
			in: `{"model":"m","messages":[{"role":"user","content":"read main.go"},` +
				`{"role":"assistant","content":` + chattest.Quote(chattest.LeakedDSML) + `},` +
				`{"role":"tool","tool_call_id":"call_abc","content":"package main"},` +
				`{"role":"user","content":"thanks"}]}`,
			want: `{"model":"m","messages":[{"role":"user","content":"read main.go"},` +
				`{"role":"assistant","content":"I'll read it.","tool_calls":[{"id":"call_abc","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"main.go\"}"}}]},` +
				`{"role":"tool","tool_call_id":"call_abc","content":"package main"},` +
				`{"role":"user","content":"thanks"}]}`,
			res: chat.HistoryResult{Messages: 1, Calls: 1},
		},
		{
			name: "two calls, native call kept, results matched in order",
			in: `{"messages":[{"role":"assistant","content":` + chattest.Quote("<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>\n<tool_call>\n{\"name\": \"b\", \"arguments\": {\"x\": 1}}\n</tool_call>") +
				`,"tool_calls":[{"id":"n1","type":"function","function":{"name":"c","arguments":"{}"}}]},` +
				`{"role":"tool","tool_call_id":"n1","content":"c done"},{"role":"tool","tool_call_id":"r1","content":"a done"},{"role":"tool","tool_call_id":"r2","content":"b done"}]}`,
			want: `{"messages":[{"role":"assistant","content":null` +
				`,"tool_calls":[{"id":"n1","type":"function","function":{"name":"c","arguments":"{}"}},` +
				`{"id":"r1","type":"function","function":{"name":"a","arguments":"{}"}},{"id":"r2","type":"function","function":{"name":"b","arguments":"{\"x\":1}"}}]},` +
				`{"role":"tool","tool_call_id":"n1","content":"c done"},{"role":"tool","tool_call_id":"r1","content":"a done"},{"role":"tool","tool_call_id":"r2","content":"b done"}]}`,
			res: chat.HistoryResult{Messages: 1, Calls: 2},
		},
		{
			name: "no result: the call is dropped with its markup",
			in:   `{"messages":[{"role":"assistant","content":` + chattest.Quote(chattest.LeakedDSML) + `},{"role":"user","content":"go on"}]}`,
			want: `{"messages":[{"role":"assistant","content":"I'll read it."},{"role":"user","content":"go on"}]}`,
			res:  chat.HistoryResult{Messages: 1, Dropped: 1},
		},
		{
			name: "content parts",
			in: `{"messages":[{"role":"assistant","content":[{"type":"text","text":"Sure."},{"type":"text","text":` +
				chattest.Quote("<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>") + `}]},{"role":"tool","tool_call_id":"x9","content":"ok"}]}`,
			want: `{"messages":[{"role":"assistant","content":[{"type":"text","text":"Sure."}],"tool_calls":[{"id":"x9","type":"function","function":{"name":"a","arguments":"{}"}}]},{"role":"tool","tool_call_id":"x9","content":"ok"}]}`,
			res:  chat.HistoryResult{Messages: 1, Calls: 1},
		},
		{
			name: "leftover markup only",
			in:   `{"messages":[{"role":"assistant","content":"Done.</tool_call>"}]}`,
			want: `{"messages":[{"role":"assistant","content":"Done."}]}`,
			res:  chat.HistoryResult{Messages: 1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, res := chat.CleanHistory([]byte(tc.in), chat.APIOpenAI, toolsieve.Options{})
			require.True(t, json.Valid(out), string(out))
			require.Equal(t, tc.want, string(out))
			require.Equal(t, tc.res, res)
		})
	}
}

func TestCleanHistoryAnthropic(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		res            chat.HistoryResult
	}{
		{
			name: "string content",
			in: `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"read"},{"role":"assistant","content":` + chattest.Quote(chattest.LeakedDSML) + `},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"package main"},{"type":"text","text":"and?"}]}]}`,
			want: `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"read"},{"role":"assistant","content":[{"type":"text","text":"I'll read it."},` +
				`{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"main.go"}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"package main"},{"type":"text","text":"and?"}]}]}`,
			res: chat.HistoryResult{Messages: 1, Calls: 1},
		},
		{
			name: "blocks, own tool_use kept, cache_control kept",
			in: `{"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"text","text":` + chattest.Quote("Two.\n<function_calls>\n<invoke name=\"a\">\n</invoke>\n</function_calls>") + `,"cache_control":{"type":"ephemeral"}},` +
				`{"type":"tool_use","id":"own","name":"b","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"own","content":"b"},{"type":"tool_result","tool_use_id":"new1","content":"a"}]}]}`,
			want: `{"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"text","text":"Two.","cache_control":{"type":"ephemeral"}},` +
				`{"type":"tool_use","id":"new1","name":"a","input":{}},{"type":"tool_use","id":"own","name":"b","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"own","content":"b"},{"type":"tool_result","tool_use_id":"new1","content":"a"}]}]}`,
			res: chat.HistoryResult{Messages: 1, Calls: 1},
		},
		{
			name: "nothing left: the message goes",
			in:   `{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>"},{"role":"user","content":"b"}]}`,
			want: `{"messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}]}`,
			res:  chat.HistoryResult{Messages: 1, Dropped: 1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, res := chat.CleanHistory([]byte(tc.in), chat.APIAnthropic, toolsieve.Options{})
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
		for _, api := range []chat.API{chat.APIOpenAI, chat.APIAnthropic} {
			out, res := chat.CleanHistory([]byte(in), api, toolsieve.Options{})
			require.Equal(t, in, string(out))
			require.Zero(t, res)
		}
	}
}
