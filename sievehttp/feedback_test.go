package sievehttp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// lastTurn returns the role and text of the last message of a request
// body's history (messages, or a Responses request's input list).
func lastTurn(body string) (role, text string) {
	var req struct {
		Messages []json.RawMessage `json:"messages"`
		Input    json.RawMessage   `json:"input"`
	}
	json.Unmarshal([]byte(body), &req)
	hist := req.Messages
	if len(req.Input) > 0 && req.Input[0] == '[' {
		json.Unmarshal(req.Input, &hist)
	}
	if len(hist) == 0 {
		return "", ""
	}
	var m struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	}
	json.Unmarshal(hist[len(hist)-1], &m)
	s, _ := m.Content.(string)
	return m.Role, s
}

// feedbackCase is a model that breaks its answer one way and mends it only
// when the last turn of the request is a user turn that names the problem.
type feedbackCase struct {
	name   string
	strict bool
	extra  func(api chat.API) string // request members
	bad    string
	fix    []string // what the feedback must say for the model to mend
	// message is the feedback the proxy sends.
	message string
	reason  string // the retry's reason
}

// feedbackModel answers with c.bad unless the request's last turn is a
// user turn holding every string of c.fix; then with polGood.
func (c *feedbackCase) model(i int, body string) string {
	role, text := lastTurn(body)
	if role != "user" {
		return c.bad
	}
	for _, f := range c.fix {
		if !strings.Contains(text, f) {
			return c.bad
		}
	}
	return polGood
}

// polMissingPath calls read_file without its required path.
const polMissingPath = "Reading it.\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"read_file\">\n" +
	"<｜DSML｜parameter name=\"file\" string=\"true\">main.go</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"

// polUndeclared calls a tool the request did not declare.
const polUndeclared = "Reading it.\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"cat\">\n" +
	"<｜DSML｜parameter name=\"path\" string=\"true\">main.go</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"

func readFileTool(api chat.API) string {
	switch api {
	case chat.APIAnthropic:
		return `"tools":[{"name":"read_file","input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]`
	case chat.APIResponses:
		return `"tools":[{"type":"function","name":"read_file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]`
	}
	return `"tools":[{"type":"function","function":{"name":"read_file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}]`
}

var feedbackCases = []feedbackCase{
	{name: "missing_required", strict: true, extra: readFileTool, bad: polMissingPath, fix: []string{"read_file", "path"},
		message: "Your call to read_file lacks the required argument path. Call read_file again with every required argument.", reason: "refused"},
	{name: "undeclared", extra: readFileTool, bad: polUndeclared, fix: []string{"cat", "read_file"},
		message: "There is no tool named cat. Call one of these tools: read_file.", reason: "unrecovered"},
	{name: "runaway", extra: func(chat.API) string { return "" }, bad: polLoop, fix: []string{"Stop repeating"},
		message: "Your answer kept repeating itself and was stopped. Stop repeating: make each call once.", reason: "runaway"},
	{name: "tool_choice", extra: func(api chat.API) string { return choiceMember(api, "required") }, bad: choicePlain, fix: []string{"must call a tool"},
		message: "You must call a tool to answer. Write the tool call as a native call.", reason: "tool_choice"},
}

func feedbackPolicy(strict, feedback bool) *Policy {
	one, hold := 1, true
	r := Rule{Retries: &one, HoldText: &hold, RetryFeedback: &feedback}
	if strict {
		r.Mode = ModeStrict
	}
	return &Policy{NoBuiltin: true, Default: r, Backoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond}
}

// TestRetryFeedback: with feedback on, the retry carries the failed answer
// and the message after the client's own messages, and the model mends its
// answer; off, the retry is the same request and fails as before.
func TestRetryFeedback(t *testing.T) {
	chattest.NoLeaks(t)
	for _, c := range feedbackCases {
		forEachAPI(t, func(t *testing.T, api chat.API, stream bool) {
			t.Run(c.name, func(t *testing.T) {
				env := newAPIEnv(t, feedbackPolicy(c.strict, true), c.model)
				path, body := apiRequest(api, stream, "read main.go", c.extra(api))
				a := env.post(t, api, stream, path, body)
				require.Len(t, a.got.Calls, 1, a.body)
				require.Equal(t, "read_file", a.got.Calls[0].Name)
				require.JSONEq(t, `{"path":"main.go"}`, a.got.Calls[0].Args)
				require.Equal(t, 2, env.up.requests())
				sent, _ := askUsage([]byte(body), api, stream, 1) // OpenAI streams: the usage chunk asked for
				require.Equal(t, string(sent), env.up.body(0), "the first request goes as the client sent it")
				answer := c.bad
				if c.name == "runaway" && stream {
					// The stream was cut at the runaway: the answer is what
					// came before the cut, a part of the loop.
					answer = sentAnswer(t, env.up.body(1))
					require.True(t, len(answer) > 100 && strings.HasPrefix(c.bad, answer), answer)
				}
				want, ok := chat.AppendTurns(sent, api, []byte(answer), []byte(c.message))
				require.True(t, ok)
				require.Equal(t, string(want), env.up.body(1))
				require.Contains(t, env.logs.String(), "retries=1 retry_reasons="+c.reason)
				require.Contains(t, env.logs.String(), "retry_feedback=1")
				m := scrape(t, env.client, env.proxy.URL)
				require.EqualValues(t, 1, series(m, "toolsieve_retries_total", `reason="`+c.reason+`"`))

				env = newAPIEnv(t, feedbackPolicy(c.strict, false), c.model)
				a = env.post(t, api, stream, path, body)
				require.Empty(t, a.got.Calls)
				require.Equal(t, 2, env.up.requests())
				require.Equal(t, string(sent), env.up.body(1), "without feedback the retry is the same request")
				m = scrape(t, env.client, env.proxy.URL)
				require.EqualValues(t, 1, m[`toolsieve_retries_exhausted_total`])
			})
		})
	}
}

// sentAnswer is the text of the assistant turn before the last turn of a
// request body.
func sentAnswer(t *testing.T, body string) string {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Input json.RawMessage `json:"input"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &req))
	if len(req.Input) > 0 {
		require.NoError(t, json.Unmarshal(req.Input, &req.Messages))
	}
	n := len(req.Messages)
	require.GreaterOrEqual(t, n, 2)
	require.Equal(t, "assistant", req.Messages[n-2].Role)
	return req.Messages[n-2].Content
}

// TestFeedbackSuccessRate measures how many exchanges end with the good
// call, over every case, API and mode, with feedback on and off (run with
// -v for the figures): the scripted model mends its answer only when told
// what was wrong.
func TestFeedbackSuccessRate(t *testing.T) {
	chattest.NoLeaks(t)
	for _, on := range []bool{true, false} {
		good, total := 0, 0
		for _, c := range feedbackCases {
			for _, api := range allAPIs {
				for _, stream := range []bool{false, true} {
					env := newAPIEnv(t, feedbackPolicy(c.strict, on), c.model)
					path, body := apiRequest(api, stream, "read main.go", c.extra(api))
					a := env.post(t, api, stream, path, body)
					total++
					if len(a.got.Calls) == 1 && a.got.Calls[0].Name == "read_file" {
						good++
					}
				}
			}
		}
		t.Logf("retry_feedback %v: %d of %d exchanges ended with the good call after one retry", on, good, total)
		want := map[bool]int{true: total, false: 0}[on]
		require.Equal(t, want, good)
	}
}

// TestFeedbackMessage: the message names the tool and the arguments, once
// per problem, in the operator's words where the policy gives them.
func TestFeedbackMessage(t *testing.T) {
	tools, err := toolsieve.ParseTools([]byte(`[{"name":"write","input_schema":{"type":"object","required":["path","content"],` +
		`"properties":{"path":{"type":"string"},"content":{"type":"string"},"mode":{"type":"integer"}}}}]`))
	require.NoError(t, err)
	pol := &Policy{Feedback: map[string]string{FeedbackTruncated: "Shorter, please ({tool})."}}
	x := &chatExchange{policy: pol, opt: toolsieve.Options{Tools: tools}, choice: chat.ToolChoice{Mode: chat.ChoiceTool, Name: "write"}}
	a := &attempt{x: x, pending: []toolsieve.Event{
		{Type: toolsieve.ToolCall, Name: "write", Arguments: []byte(`{"content":"x","mode":"0644"}`)},
		{Type: toolsieve.ToolCall, Name: "write", Arguments: []byte(`{"content":"y","mode":"rw"}`)},
		{Type: toolsieve.Error, Reason: toolsieve.ReasonTruncated, Name: "write"},
		{Type: toolsieve.Error, Reason: toolsieve.ReasonRefused, Name: "write", Repairs: []string{"missing_closer"}},
	}}
	msg, kinds := a.feedbackMessage(retryToolChoice)
	require.Equal(t, "Your call to write lacks the required argument path. Call write again with every required argument.\n"+
		"Your call to write gives mode a value of the wrong type. Call write again with the types its schema declares.\n"+
		"Shorter, please (write).\n"+
		"Your tool call was written as text and could not be read. Write tool calls as native calls.\n"+
		"You must call the tool write, and no other. Write the call as a native call.", msg)
	require.Equal(t, []string{"missing_required", "schema_mismatch", "truncated", "markup", "tool_choice_tool"}, kinds)

	_, err = ParsePolicy([]byte(`{"feedback_messages":{"runaway":"Stop."}}`))
	require.NoError(t, err)
	_, err = ParsePolicy([]byte(`{"feedback_messages":{"loop":"Stop."}}`))
	require.ErrorContains(t, err, `unknown message kind "loop"`)
	_, err = ParsePolicy([]byte(`{"feedback_messages":{"runaway":" "}}`))
	require.ErrorContains(t, err, "empty")
}
