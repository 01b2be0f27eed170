package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// accumulate puts a rewritten capture of api together.
func accumulate(t *testing.T, api chat.API, doc bool, out []byte) chattest.Response {
	t.Helper()
	switch {
	case doc:
		return chattest.AccumulateDoc(t, api, out)
	case api == chat.APIAnthropic:
		return chattest.AccumulateAnthropic(t, out)
	}
	return chattest.AccumulateOpenAI(t, out)
}

// callIDs matches the random part of generated call ids.
var callIDs = regexp.MustCompile(`call_[A-Za-z0-9]{16}_`)

func sameButIDs(t *testing.T, want, got string) {
	t.Helper()
	assert.Equal(t, callIDs.ReplaceAllString(want, "call_ID_"), callIDs.ReplaceAllString(got, "call_ID_"))
}

func TestRewriteSummary(t *testing.T) {
	in := chattest.OpenAIStream([]string{"Let me look.\n<tool_", "call>get_time</tool_call>"})
	code, stdout, stderr := runCmd(t, bytes.NewReader(in), "rewrite")
	require.Equal(t, exitOK, code, stderr)
	got := chattest.AccumulateOpenAI(t, []byte(stdout))
	assert.Equal(t, "Let me look.", strings.TrimSpace(got.Text))
	require.Len(t, got.Calls, 1)
	assert.Equal(t, "get_time", got.Calls[0].Name)
	assert.Equal(t, fmt.Sprintf("toolsieve rewrite: 1 call made native, 0 repairs, 0 runaways; %d bytes read, %d bytes written\n", len(in), len(stdout)), stderr)

	code, quiet, stderr := runCmd(t, bytes.NewReader(in), "rewrite", "--quiet")
	require.Equal(t, exitOK, code)
	assert.Empty(t, stderr)
	sameButIDs(t, stdout, quiet)

	// A capture with HTTP response headers: the body is rewritten.
	const headers = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
	code, withHeaders, stderr := runCmd(t, strings.NewReader(headers+string(in)), "rewrite")
	require.Equal(t, exitOK, code)
	sameButIDs(t, stdout, withHeaders)
	assert.Equal(t, fmt.Sprintf("toolsieve rewrite: skipped 52 bytes of HTTP response headers: the body is rewritten\n"+
		"toolsieve rewrite: 1 call made native, 0 repairs, 0 runaways; %d bytes read, %d bytes written\n", len(headers)+len(in), len(stdout)), stderr)
}

func TestRewritePolicy(t *testing.T) {
	// A Hermes call cut off by the end of the stream: it needs repairs,
	// which strict mode refuses.
	const cut = "Checking.\n<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"tz\": \"UTC\""
	const strict = `{"default":{"mode":"strict"}}`
	const byModel = `{"rules":[{"model":"m-strict","mode":"strict"},{"model":"m-dsml","dialects":["dsml"]},{"model":"m-retry","retries":3}]}`
	type capture struct {
		name string
		api  chat.API
		doc  bool
		body []byte
	}
	rng := rand.New(rand.NewPCG(1, 2))
	captures := []capture{
		{"openai stream", chat.APIOpenAI, false, chattest.OpenAIStream(chattest.SplitContent(rng, cut, 9, false))},
		{"anthropic stream", chat.APIAnthropic, false, chattest.AnthropicStream(chattest.SplitContent(rng, cut, 9, false))},
		{"openai document", chat.APIOpenAI, true, chattest.OpenAIDoc(cut)},
		{"anthropic document", chat.APIAnthropic, true, chattest.AnthropicDoc(cut)},
	}
	tests := []struct {
		name    string
		policy  string
		model   string // replaces the captures' model "m"
		note    string
		calls   int
		summary string
	}{
		{name: "strict refuses", policy: strict, model: "m",
			note:  "replaying under the policy for model m: mode strict, dialects all (decided by global)",
			calls: 0, summary: "0 calls made native, 0 repairs, 0 runaways, 1 error, 1 refused by strict mode"},
		{name: "rule for another model", policy: byModel, model: "m",
			note:  "replaying under the policy for model m: mode lenient, dialects all",
			calls: 1, summary: "1 call made native, 3 repairs (closed_at_eof=1, missing_closer=1, truncated_json=1), 0 runaways"},
		{name: "rule for the capture's model", policy: byModel, model: "m-strict",
			note:  "replaying under the policy for model m-strict: mode strict, dialects all (decided by rule:m-strict)",
			calls: 0, summary: "0 calls made native, 0 repairs, 0 runaways, 1 error, 1 refused by strict mode"},
		{name: "dialects", policy: byModel, model: "m-dsml",
			note:  "replaying under the policy for model m-dsml: mode lenient, dialects dsml (decided by rule:m-dsml)",
			calls: 0, summary: "0 calls made native, 0 repairs, 0 runaways"},
		{name: "retries are not replayed", policy: byModel, model: "m-retry",
			note:  "replaying under the policy for model m-retry: mode lenient, dialects all (decided by rule:m-retry); retries (3) are not replayed",
			calls: 1, summary: "1 call made native, 3 repairs (closed_at_eof=1, missing_closer=1, truncated_json=1), 0 runaways"},
		{name: "no model in the capture", policy: byModel, model: "",
			note:  "replaying under the policy's default (the capture names no model): mode lenient, dialects all",
			calls: 1, summary: "1 call made native, 3 repairs (closed_at_eof=1, missing_closer=1, truncated_json=1), 0 runaways"},
	}
	for _, tt := range tests {
		policy := writeFile(t, "policy.json", tt.policy)
		for _, c := range captures {
			t.Run(tt.name+"/"+c.name, func(t *testing.T) {
				body := c.body
				if tt.model == "" {
					body = bytes.ReplaceAll(body, []byte(`"model":"m",`), nil)
				} else {
					body = bytes.ReplaceAll(body, []byte(`"model":"m"`), []byte(`"model":"`+tt.model+`"`))
				}
				code, stdout, stderr := runCmd(t, chattest.NewChunkReader(body, 11), "rewrite", "--policy", policy)
				require.Equal(t, exitOK, code, stderr)
				got := accumulate(t, c.api, c.doc, []byte(stdout))
				require.Len(t, got.Calls, tt.calls)
				if tt.calls == 0 {
					assert.Contains(t, got.Text, `<tool_call>`, "the markup stays text")
				} else {
					assert.Equal(t, "get_time", got.Calls[0].Name)
					assert.JSONEq(t, `{"tz":"UTC"}`, got.Calls[0].Args)
					assert.NotContains(t, got.Text, `<tool_call>`)
				}
				lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
				assert.Equal(t, "toolsieve rewrite: "+tt.note, lines[0])
				assert.Equal(t, fmt.Sprintf("toolsieve rewrite: %s; %d bytes read, %d bytes written", tt.summary, len(body), len(stdout)), lines[len(lines)-1])
			})
		}
	}
}

func TestRewritePolicyBadFile(t *testing.T) {
	bad := writeFile(t, "policy.json", `{"default":{"mode":"paranoid"}}`)
	code, stdout, stderr := runCmd(t, nil, "rewrite", "--policy", bad)
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, `toolsieve rewrite: --policy: policy: default: mode "paranoid"`)
}

// TestRewriteCutByTheLimit: an answer, whole and streamed, whose content
// ends inside a call after its last value (<parameter name="path">/home/user/tmp</parameter>)
// and the token limit ended it (finish_reason length, stop_reason
// max_tokens, an incomplete response). rewrite makes no call of it (its
// markup stays text, the finish reason as the upstream gave it) and says
// so; with the model's own end (stop) the call is recovered. A stream that
// ends before its finish marker is cut too: a warning, exit status 0. The
// issue's answer, cut inside the value (/home/us), is no call even with
// the model's own end.
func TestRewriteCutByTheLimit(t *testing.T) {
	const content = "Removing it.\n<function_calls>\n<invoke name=\"delete_path\">\n<parameter name=\"path\">/home/user/tmp</parameter>\n"
	pieces := chattest.SplitContent(rand.New(rand.NewPCG(5, 5)), content, 7, false)
	for _, tc := range []struct {
		name   string
		api    chat.API
		doc    bool
		in     []byte
		finish string
	}{
		{"openai document", chat.APIOpenAI, true, chattest.LimitEnd(chattest.OpenAIDoc(content)), "length"},
		{"anthropic document", chat.APIAnthropic, true, chattest.LimitEnd(chattest.AnthropicDoc(content)), "max_tokens"},
		{"responses document", chat.APIResponses, true, chattest.LimitEnd(chattest.ResponsesDoc(content)), "incomplete"},
		{"openai stream", chat.APIOpenAI, false, chattest.LimitEnd(chattest.OpenAIStream(pieces)), "length"},
		{"anthropic stream", chat.APIAnthropic, false, chattest.LimitEnd(chattest.AnthropicStream(pieces)), "max_tokens"},
		{"responses stream", chat.APIResponses, false, chattest.LimitEnd(chattest.ResponsesStream(pieces)), "incomplete"},
	} {
		for _, policy := range []string{"", `{"default":{"mode":"lenient"}}`} {
			args := []string{"rewrite"}
			if policy != "" {
				args = append(args, "--policy", writeFile(t, "policy.json", policy))
			}
			code, stdout, stderr := runCmd(t, bytes.NewReader(tc.in), args...)
			require.Equal(t, exitOK, code, "%s: %s", tc.name, stderr)
			var got chattest.Response
			switch {
			case tc.doc:
				got = chattest.AccumulateDoc(t, tc.api, []byte(stdout))
			case tc.api == chat.APIResponses:
				got = chattest.AccumulateResponsesCut(t, []byte(stdout))
			default:
				got = accumulate(t, tc.api, false, []byte(stdout))
			}
			msg := tc.name + " " + policy
			if policy != "" && !tc.doc {
				// Replayed as the proxy answers: lenient streams calls, the
				// call had started to go out, and the stream ends with an
				// error in place of the upstream's ending.
				for _, c := range got.Calls {
					require.False(t, json.Valid([]byte(c.Args)), "%s: %s", msg, c.Args)
				}
				require.Empty(t, got.Finish, msg)
				require.Contains(t, stderr, "warning: toolsieve: a streamed tool call could not complete; the answer is cut: the answer was cut (token limit) while it streamed", msg)
				require.Contains(t, stderr, `tool call "delete_path" cut off before the model finished it (the finish reason says the answer was cut); its arguments were not completed`, msg)
				continue
			}
			require.Empty(t, got.Calls, msg)
			require.Equal(t, tc.finish, got.Finish, msg)
			if tc.api != chat.APIResponses || tc.doc {
				require.Equal(t, content, got.Text, msg)
			}
			require.Contains(t, stderr, `tool call "delete_path" cut off before the model finished it (the finish reason says the answer was cut); kept as text`, msg)
			require.Contains(t, stderr, "1 call cut before the model finished it (truncated)", msg)
		}
	}
	// The model's own end: recovered.
	code, stdout, _ := runCmd(t, bytes.NewReader(chattest.OpenAIDoc(content)), "rewrite")
	require.Equal(t, exitOK, code)
	require.Len(t, chattest.AccumulateDoc(t, chat.APIOpenAI, []byte(stdout)).Calls, 1)
	const inValue = "Removing it.\n<function_calls>\n<invoke name=\"delete_path\">\n<parameter name=\"path\">/home/us"
	code, stdout, _ = runCmd(t, bytes.NewReader(chattest.OpenAIDoc(inValue)), "rewrite")
	require.Equal(t, exitOK, code)
	got := chattest.AccumulateDoc(t, chat.APIOpenAI, []byte(stdout))
	require.Empty(t, got.Calls)
	require.Equal(t, inValue, got.Text)
	// No finish marker at all.
	stream := chattest.OpenAIStream(pieces)
	stream = stream[:bytes.Index(stream, []byte(`{"index":0,"delta":{},`))-len(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[`)]
	code, stdout, stderr := runCmd(t, bytes.NewReader(stream), "rewrite")
	require.Equal(t, exitOK, code, stderr)
	require.Empty(t, chattest.AccumulateOpenAI(t, []byte(stdout)).Calls)
	require.Contains(t, stderr, "warning: toolsieve: the upstream's answer ended before its finish marker; it is incomplete")
}
