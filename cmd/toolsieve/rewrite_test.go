package main

import (
	"bytes"
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
