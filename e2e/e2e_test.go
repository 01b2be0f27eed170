package e2e

// End-to-end tests over loopback: a test upstream that streams back, as the
// model's content, the text of the last user message (an "echo model"), the
// proxy in front of it, and the official SDKs as clients.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	anthropic "github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
	"github.com/toolsieve/toolsieve/sievehttp"
)

// e2eDialects are the fixture files whose cases are served end to end.
var e2eDialects = []string{"anthropic", "dsml", "qwen3_coder", "hermes", "glm", "kimi_k2",
	"deepseek_v31", "deepseek_v3", "harmony", "mistral", "llama3", "minimax", "invoke_tool_call"}

// e2eEnv is an upstream with the proxy in front of it.
type e2eEnv struct {
	up    *chattest.EchoUpstream
	proxy *httptest.Server
	logs  *chattest.SyncBuffer
}

func newE2E(t *testing.T) *e2eEnv {
	up := chattest.NewEchoUpstream(t)
	u, _ := url.Parse(up.Server.URL)
	logs := &chattest.SyncBuffer{}
	p := sievehttp.NewProxy(u, toolsieve.Options{})
	p.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ps := httptest.NewServer(p)
	t.Cleanup(ps.Close)
	return &e2eEnv{up: up, proxy: ps, logs: logs}
}

func e2eCases(t *testing.T) []chattest.Case {
	var out []chattest.Case
	for _, c := range chattest.LoadCases(t, "../testdata/cases", e2eDialects...) {
		if len(c.Tools) > 0 || c.Options.Dialects != nil || c.Options.MarkupInCode || c.Options.MaxCallBytes > 0 {
			continue
		}
		out = append(out, c)
	}
	return out
}

// openAIResult reads the SDK's view of a completion.
func openAIResult(cc *openai.ChatCompletion) chattest.Response {
	var a chattest.Response
	ch := cc.Choices[0]
	a.Text = ch.Message.Content
	a.Finish = ch.FinishReason
	for _, tc := range ch.Message.ToolCalls {
		a.Calls = append(a.Calls, chattest.Call{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
	}
	return a
}

func anthropicResult(m *anthropic.Message) chattest.Response {
	var a chattest.Response
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			a.Text += b.Text
			a.Segments = append(a.Segments, b.Text)
		case "thinking":
			a.Reasoning += b.Thinking
		case "tool_use":
			a.Calls = append(a.Calls, chattest.Call{ID: b.ID, Name: b.Name, Args: string(b.Input)})
		}
	}
	a.Finish = string(m.StopReason)
	return a
}

// checkSDK compares the SDK's result with the parser's reading of content.
func checkSDK(t *testing.T, api chat.API, content string, got chattest.Response, msg string) {
	t.Helper()
	want := chattest.Expected(content, toolsieve.Options{})
	chattest.SameCalls(t, want.Calls, got.Calls, msg)
	for _, c := range got.Calls {
		require.NotEmpty(t, c.ID, msg)
	}
	if api == chat.APIAnthropic {
		require.Equal(t, chattest.NonBlank(want.Segments), chattest.NonBlank(got.Segments), "%s: text", msg)
		require.Equal(t, want.Reasoning, got.Reasoning, "%s: reasoning", msg)
		if len(want.Calls) > 0 {
			require.Equal(t, "tool_use", got.Finish, msg)
		} else {
			require.Equal(t, "end_turn", got.Finish, msg)
		}
		return
	}
	if !(got.Text == "" && len(want.Calls) > 0 && strings.TrimSpace(want.Text) == "") {
		require.Equal(t, want.Text, got.Text, "%s: text", msg)
	}
	if len(want.Calls) > 0 {
		require.Equal(t, "tool_calls", got.Finish, msg)
	} else {
		require.Equal(t, "stop", got.Finish, msg)
	}
}

func openAIClient(t *testing.T, base string, opts ...ooption.RequestOption) openai.Client {
	return openai.NewClient(append([]ooption.RequestOption{ooption.WithBaseURL(base), ooption.WithAPIKey("sk-test-key-0123456789"),
		ooption.WithMaxRetries(0), ooption.WithHTTPClient(chattest.LoopbackClient(t, nil))}, opts...)...)
}

func anthropicClient(t *testing.T, base string, opts ...aoption.RequestOption) anthropic.Client {
	return anthropic.NewClient(append([]aoption.RequestOption{aoption.WithBaseURL(base), aoption.WithAPIKey("ant-test-key-0123456789"),
		aoption.WithMaxRetries(0), aoption.WithHTTPClient(chattest.LoopbackClient(t, nil))}, opts...)...)
}

func openAIStreamed(ctx context.Context, c openai.Client, model, content string) (chattest.Response, error) {
	s := c.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{Model: openai.ChatModel(model),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(content)}})
	defer s.Close()
	var acc openai.ChatCompletionAccumulator
	for s.Next() {
		if !acc.AddChunk(s.Current()) {
			return chattest.Response{}, fmt.Errorf("chunk refused by the accumulator: %s", s.Current().RawJSON())
		}
	}
	if err := s.Err(); err != nil {
		return chattest.Response{}, err
	}
	if len(acc.Choices) == 0 {
		return chattest.Response{}, fmt.Errorf("no choices")
	}
	return openAIResult(&acc.ChatCompletion), nil
}

func openAIUnary(ctx context.Context, c openai.Client, model, content string) (chattest.Response, error) {
	cc, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: openai.ChatModel(model),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(content)}})
	if err != nil {
		return chattest.Response{}, err
	}
	return openAIResult(cc), nil
}

func anthropicParams(model, content string) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: 1024,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(content))}}
}

func anthropicStreamed(ctx context.Context, c anthropic.Client, model, content string) (chattest.Response, error) {
	s := c.Messages.NewStreaming(ctx, anthropicParams(model, content))
	defer s.Close()
	var m anthropic.Message
	for s.Next() {
		if err := m.Accumulate(s.Current()); err != nil {
			return chattest.Response{}, err
		}
	}
	if err := s.Err(); err != nil {
		return anthropicResult(&m), err
	}
	return anthropicResult(&m), nil
}

func anthropicUnary(ctx context.Context, c anthropic.Client, model, content string) (chattest.Response, error) {
	m, err := c.Messages.New(ctx, anthropicParams(model, content))
	if err != nil {
		return chattest.Response{}, err
	}
	return anthropicResult(m), nil
}

// TestE2EProxySDKs: every dialect, both APIs, streamed and not, through the
// proxy, read by the official SDKs.
func TestE2EProxySDKs(t *testing.T) {
	chattest.NoLeaks(t)
	env := newE2E(t)
	ctx := context.Background()
	oc := openAIClient(t, env.proxy.URL+"/v1/")
	ac := anthropicClient(t, env.proxy.URL)
	matrix := map[string]int{}
	for _, c := range e2eCases(t) {
		for _, model := range []string{"echo", "bytes"} {
			msg := fmt.Sprintf("%s/%s (%s)", c.File, c.Name, model)
			got, err := openAIStreamed(ctx, oc, model, c.Input)
			require.NoError(t, err, msg)
			checkSDK(t, chat.APIOpenAI, c.Input, got, msg+" openai stream")
			got, err = anthropicStreamed(ctx, ac, model, c.Input)
			require.NoError(t, err, msg)
			checkSDK(t, chat.APIAnthropic, c.Input, got, msg+" anthropic stream")
			if model == "echo" {
				got, err = openAIUnary(ctx, oc, model, c.Input)
				require.NoError(t, err, msg)
				checkSDK(t, chat.APIOpenAI, c.Input, got, msg+" openai")
				got, err = anthropicUnary(ctx, ac, model, c.Input)
				require.NoError(t, err, msg)
				checkSDK(t, chat.APIAnthropic, c.Input, got, msg+" anthropic")
			}
		}
		if len(chattest.Expected(c.Input, toolsieve.Options{}).Calls) > 0 {
			matrix[c.File]++
		}
	}
	for _, d := range e2eDialects {
		require.NotZero(t, matrix[d], "no case of %s made a call", d)
	}
	// The proxy forwards the client's credentials unchanged.
	require.Equal(t, "|ant-test-key-0123456789", env.up.Auth.Load())
}

// TestE2ETransportAndMiddleware: the same through Transport (openai-go) and
// Middleware (anthropic-sdk-go), without a proxy.
func TestE2ETransportAndMiddleware(t *testing.T) {
	chattest.NoLeaks(t)
	up := chattest.NewEchoUpstream(t)
	ctx := context.Background()
	oc := openai.NewClient(ooption.WithBaseURL(up.Server.URL+"/v1/"), ooption.WithAPIKey("k"), ooption.WithMaxRetries(0),
		ooption.WithHTTPClient(chattest.LoopbackClient(t, &sievehttp.Transport{})))
	ac := anthropicClient(t, up.Server.URL, aoption.WithMiddleware(sievehttp.Middleware(toolsieve.Options{})))
	oc2 := openAIClient(t, up.Server.URL+"/v1/", ooption.WithMiddleware(sievehttp.Middleware(toolsieve.Options{})))
	for _, c := range e2eCases(t) {
		got, err := openAIStreamed(ctx, oc, "bytes", c.Input)
		require.NoError(t, err)
		checkSDK(t, chat.APIOpenAI, c.Input, got, c.Name+" transport stream")
		got, err = openAIUnary(ctx, oc2, "echo", c.Input)
		require.NoError(t, err)
		checkSDK(t, chat.APIOpenAI, c.Input, got, c.Name+" middleware")
		got, err = anthropicStreamed(ctx, ac, "bytes", c.Input)
		require.NoError(t, err)
		checkSDK(t, chat.APIAnthropic, c.Input, got, c.Name+" middleware stream")
	}
}

// TestE2EPlainIdentical: a plain-text stream comes through the proxy byte
// for byte.
func TestE2EPlainIdentical(t *testing.T) {
	chattest.NoLeaks(t)
	env := newE2E(t)
	client := chattest.LoopbackClient(t, nil)
	text := "Plain answer.\nSecond line with 杭州 and 🙂 — nothing to recover.\n\nThe end"
	for _, tc := range []struct{ path, body string }{
		{"/v1/chat/completions", `{"model":"echo","stream":true,"messages":[{"role":"user","content":` + chattest.Quote(text) + `}]}`},
		{"/v1/messages", `{"model":"echo","stream":true,"max_tokens":10,"messages":[{"role":"user","content":` + chattest.Quote(text) + `}]}`},
		{"/v1/chat/completions", `{"model":"echo","messages":[{"role":"user","content":` + chattest.Quote(text) + `}]}`},
	} {
		direct := chattest.Post(t, client, env.up.Server.URL+tc.path, tc.body)
		proxied := chattest.Post(t, client, env.proxy.URL+tc.path, tc.body)
		require.Equal(t, string(direct), string(proxied), tc.path)
	}
}

// TestE2EFaults: cut streams, upstream errors, malformed frames, client
// disconnects and runaways.
func TestE2EFaults(t *testing.T) {
	chattest.NoLeaks(t)
	env := newE2E(t)
	ctx := context.Background()
	oc := openAIClient(t, env.proxy.URL+"/v1/")
	ac := anthropicClient(t, env.proxy.URL)
	cutContent := "Writing now.\n<tool_call>\n<function=write>\n<parameter=path>\na.go\n</parameter>\n<parameter=content>\npackage main\n</parameter>\n" // cut after its last value: closed_at_eof

	t.Run("model ends inside a call", func(t *testing.T) {
		// The model itself ended its answer inside a call (finish_reason
		// stop): the call is forwarded (it carries closed_at_eof, which
		// the proxy logs).
		got, err := openAIStreamed(ctx, oc, "echo", cutContent)
		require.NoError(t, err)
		require.Len(t, got.Calls, 1)
		require.Equal(t, "write", got.Calls[0].Name)
		require.JSONEq(t, `{"path":"a.go","content":"package main"}`, got.Calls[0].Args)
		require.Equal(t, "Writing now.\n", got.Text)
		gotA, err := anthropicStreamed(ctx, ac, "echo", cutContent)
		require.NoError(t, err)
		require.Len(t, gotA.Calls, 1)
		require.Contains(t, env.logs.String(), "closed_at_eof")
	})
	t.Run("cut mid call", func(t *testing.T) {
		// The upstream closes the connection cleanly inside a call, before
		// its finish marker: the SDKs get the error that ends the stream
		// (the call is never a call they could run).
		_, err := openAIStreamed(ctx, oc, "cut", cutContent)
		require.ErrorContains(t, err, `"code":"truncated"`)
		gotA, err := anthropicStreamed(ctx, ac, "cut", cutContent)
		require.ErrorContains(t, err, "before its finish marker")
		require.Equal(t, "Writing now.\n", gotA.Text)
		for _, c := range gotA.Calls {
			require.False(t, json.Valid([]byte(c.Args)), "a call the cut ended: %s", c.Args)
		}
		require.Contains(t, env.logs.String(), "failure=truncated")
		require.Contains(t, env.logs.String(), "truncated=1")
	})
	t.Run("token limit mid call", func(t *testing.T) {
		// The token limit ends the answer inside a call: no call. Whole,
		// the upstream's own ending says so (the markup stays text);
		// streamed (lenient streams calls), the call had started to go
		// out, and the stream ends with an error instead: the SDKs drop
		// the answer (Anthropic's would keep a tool_use block with input
		// {} after a max_tokens ending).
		_, err := openAIStreamed(ctx, oc, "limit", cutContent)
		require.ErrorContains(t, err, `"code":"streamed_call"`)
		_, err = anthropicStreamed(ctx, ac, "limit", cutContent)
		require.ErrorContains(t, err, "the answer was cut (token limit) while it streamed")
		got, err := openAIUnary(ctx, oc, "limit", cutContent)
		require.NoError(t, err)
		require.Empty(t, got.Calls)
		require.Equal(t, cutContent, got.Text)
		require.Equal(t, "length", got.Finish)
		gotA, err := anthropicUnary(ctx, ac, "limit", cutContent)
		require.NoError(t, err)
		require.Empty(t, gotA.Calls)
		require.Equal(t, "max_tokens", gotA.Finish)
	})
	t.Run("hard cut", func(t *testing.T) {
		// The upstream connection drops inside a call: the text before it
		// reaches the client, the cut call is not run, and an error event
		// ends the stream cleanly. Streamed (lenient's default), the call
		// started to go out, and the stream ends with the error, without a
		// finish reason; not streamed, its markup stays text.
		client := chattest.LoopbackClient(t, nil)
		for _, mode := range []string{"lenient", "strict"} {
			req, _ := http.NewRequest(http.MethodPost, env.proxy.URL+"/v1/chat/completions",
				strings.NewReader(`{"model":"hardcut","stream":true,"messages":[{"role":"user","content":`+chattest.Quote(cutContent)+`}]}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(sievehttp.HeaderMode, mode)
			resp, err := client.Do(req)
			require.NoError(t, err)
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.NoError(t, err)
			if mode == "lenient" {
				require.Contains(t, string(b), `"tool_calls"`)
			} else {
				require.NotContains(t, string(b), `"tool_calls"`)
				require.Contains(t, string(b), `<function=write>`)
			}
			require.NotContains(t, string(b), `"finish_reason":"`)
			require.True(t, strings.HasSuffix(string(b), "data: {\"error\":{\"message\":\"toolsieve: upstream answer broke off: unexpected EOF\",\"type\":\"server_error\",\"param\":null,\"code\":\"reset\"}}\n\n"), mode)
		}
		_, err := openAIStreamed(ctx, oc, "hardcut", cutContent)
		require.ErrorContains(t, err, "upstream answer broke off")
		_, err = anthropicStreamed(ctx, ac, "hardcut", cutContent)
		require.ErrorContains(t, err, "upstream answer broke off")
	})
	t.Run("status 500", func(t *testing.T) {
		_, err := openAIStreamed(ctx, oc, "status500", "x")
		var oe *openai.Error
		require.ErrorAs(t, err, &oe)
		require.Equal(t, 500, oe.StatusCode)
		require.Equal(t, "upstream exploded", oe.Message)
		_, err = anthropicUnary(ctx, ac, "status500", "x")
		var ae *anthropic.Error
		require.ErrorAs(t, err, &ae)
		require.Equal(t, 500, ae.StatusCode)
	})
	t.Run("error event", func(t *testing.T) {
		got, err := anthropicStreamed(ctx, ac, "errorevent", "Hi <tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>")
		require.Error(t, err)
		require.Contains(t, err.Error(), "Overloaded")
		require.Len(t, got.Calls, 1)
	})
	t.Run("malformed frame", func(t *testing.T) {
		client := chattest.LoopbackClient(t, nil)
		body := chattest.Post(t, client, env.proxy.URL+"/v1/chat/completions",
			`{"model":"malformed","stream":true,"messages":[{"role":"user","content":"Hi <tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>"}]}`)
		require.Contains(t, string(body), "data: {\"choices\":[{oops\n\n")
		require.Contains(t, string(body), `"tool_calls":[{"index":0,`)
		require.Contains(t, string(body), `"finish_reason":"tool_calls"`)
		require.True(t, bytes.HasSuffix(body, []byte("data: [DONE]\n\n")))
		require.Contains(t, env.logs.String(), "errors=1")
	})
	t.Run("client disconnect", func(t *testing.T) {
		client := chattest.LoopbackClient(t, nil)
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		req, _ := http.NewRequestWithContext(cctx, http.MethodPost, env.proxy.URL+"/v1/chat/completions",
			strings.NewReader(`{"model":"slow","stream":true,"messages":[{"role":"user","content":"one two three four five six seven eight nine ten"}]}`))
		resp, err := client.Do(req)
		require.NoError(t, err)
		line, err := bufio.NewReader(resp.Body).ReadString('\n')
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(line, "data: "))
		cancel()
		resp.Body.Close()
		select {
		case ev := <-env.up.Events:
			require.Equal(t, "cancelled", ev)
		case <-time.After(5 * time.Second):
			t.Fatal("upstream never saw the request end")
		}
	})
	for _, api := range []chat.API{chat.APIOpenAI, chat.APIAnthropic} {
		t.Run("runaway "+api.String(), func(t *testing.T) {
			env.up.Written.Store(0)
			var got chattest.Response
			var err error
			if api == chat.APIOpenAI {
				got, err = openAIStreamed(ctx, oc, "runaway", "x")
			} else {
				got, err = anthropicStreamed(ctx, ac, "runaway", "x")
			}
			require.NoError(t, err)
			require.NotEmpty(t, got.Calls)
			if api == chat.APIOpenAI { // cut short, as by the token limit
				require.Equal(t, "length", got.Finish)
			} else {
				require.Equal(t, "max_tokens", got.Finish)
			}
			select {
			case ev := <-env.up.Events:
				require.True(t, strings.HasPrefix(ev, "stopped after"), ev)
			case <-time.After(10 * time.Second):
				t.Fatal("upstream never stopped")
			}
			require.Less(t, env.up.Written.Load(), int64(200), "upstream went on generating")
			// The client stops at [DONE]; the proxy logs as its handler ends.
			require.Eventually(t, func() bool { return strings.Contains(env.logs.String(), "runaway=true") }, 5*time.Second, 5*time.Millisecond)
		})
	}
}

// TestE2ELoopsRunNothing: through the proxy, as the SDKs see it, a DSML
// block-and-invoke loop hands the agent no call and ends as if cut by the
// token limit, and sixty identical calls hand it one call (issue 11).
func TestE2ELoopsRunNothing(t *testing.T) {
	chattest.NoLeaks(t)
	env := newE2E(t)
	ctx := context.Background()
	oc := openAIClient(t, env.proxy.URL+"/v1/")
	ac := anthropicClient(t, env.proxy.URL)
	dsmlLoop := "Running it.\n" + strings.Repeat("<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"bash\">\n", 400)
	call := "<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>\n</tool_call>\n"
	for _, tc := range []struct {
		name, content string
		calls         int
		text          string // the text before the loop
	}{
		{"dsml loop", dsmlLoop, 0, "Running it."},
		{"sixty identical calls", strings.Repeat(call, 60), 1, ""},
	} {
		type run func(context.Context) (chattest.Response, error)
		for _, r := range []struct {
			api  chat.API
			name string
			do   run
		}{
			{chat.APIOpenAI, "openai stream", func(ctx context.Context) (chattest.Response, error) {
				return openAIStreamed(ctx, oc, "echo", tc.content)
			}},
			{chat.APIOpenAI, "openai", func(ctx context.Context) (chattest.Response, error) {
				return openAIUnary(ctx, oc, "echo", tc.content)
			}},
			{chat.APIAnthropic, "anthropic stream", func(ctx context.Context) (chattest.Response, error) {
				return anthropicStreamed(ctx, ac, "echo", tc.content)
			}},
			{chat.APIAnthropic, "anthropic", func(ctx context.Context) (chattest.Response, error) {
				return anthropicUnary(ctx, ac, "echo", tc.content)
			}},
		} {
			msg := tc.name + ", " + r.name
			got, err := r.do(ctx)
			require.NoError(t, err, msg)
			require.Len(t, got.Calls, tc.calls, msg)
			for _, c := range got.Calls {
				require.Equal(t, "bash", c.Name, msg)
				require.JSONEq(t, `{"command":"ls"}`, c.Args, msg)
			}
			finish := "length"
			if r.api == chat.APIAnthropic {
				finish = "max_tokens"
			}
			require.Equal(t, finish, got.Finish, msg)
			require.Equal(t, strings.TrimSpace(tc.text), strings.TrimSpace(got.Text), msg)
		}
	}
}

// TestE2EPolicyThroughSDKs: under the built-in family rules, a model named
// like DeepSeek that writes Qwen3-Coder markup gets one native call; a call
// that lacks a parameter its declared tool requires runs in lenient mode
// and stays text in strict mode (issue 11).
func TestE2EPolicyThroughSDKs(t *testing.T) {
	chattest.NoLeaks(t)
	up := chattest.NewEchoUpstream(t)
	u, _ := url.Parse(up.Server.URL)
	p := sievehttp.NewProxy(u, toolsieve.Options{})
	p.Policy = &sievehttp.Policy{} // built-in family rules on
	p.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	ps := httptest.NewServer(p)
	t.Cleanup(ps.Close)
	ctx := context.Background()

	const qwen = "Checking.\n<tool_call>\n<function=read_file>\n<parameter=path>\na.go\n</parameter>\n</function>\n</tool_call>"
	const model = "deepseek-r1-distill-qwen-32b"
	oc := openAIClient(t, ps.URL+"/v1/")
	ac := anthropicClient(t, ps.URL)
	for name, do := range map[string]func() (chattest.Response, error){
		"openai stream":    func() (chattest.Response, error) { return openAIStreamed(ctx, oc, model, qwen) },
		"openai":           func() (chattest.Response, error) { return openAIUnary(ctx, oc, model, qwen) },
		"anthropic stream": func() (chattest.Response, error) { return anthropicStreamed(ctx, ac, model, qwen) },
		"anthropic":        func() (chattest.Response, error) { return anthropicUnary(ctx, ac, model, qwen) },
	} {
		got, err := do()
		require.NoError(t, err, name)
		require.Len(t, got.Calls, 1, name)
		require.Equal(t, "read_file", got.Calls[0].Name, name)
		require.JSONEq(t, `{"path":"a.go"}`, got.Calls[0].Args, name)
	}

	const write = "Writing.\n<tool_call>\n<function=write_file>\n<parameter=path>\na.go\n</parameter>\n</function>\n</tool_call>"
	schema := `{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`
	var oTools, aTools any
	require.NoError(t, json.Unmarshal([]byte(`[{"type":"function","function":{"name":"write_file","parameters":`+schema+`}}]`), &oTools))
	require.NoError(t, json.Unmarshal([]byte(`[{"name":"write_file","input_schema":`+schema+`}]`), &aTools))
	for _, mode := range []string{"lenient", "strict"} {
		oc := openAIClient(t, ps.URL+"/v1/", ooption.WithJSONSet("tools", oTools), ooption.WithHeader("X-Toolsieve-Mode", mode))
		ac := anthropicClient(t, ps.URL, aoption.WithJSONSet("tools", aTools), aoption.WithHeader("X-Toolsieve-Mode", mode))
		for name, do := range map[string]func() (chattest.Response, error){
			"openai stream":    func() (chattest.Response, error) { return openAIStreamed(ctx, oc, "m", write) },
			"openai":           func() (chattest.Response, error) { return openAIUnary(ctx, oc, "m", write) },
			"anthropic stream": func() (chattest.Response, error) { return anthropicStreamed(ctx, ac, "m", write) },
			"anthropic":        func() (chattest.Response, error) { return anthropicUnary(ctx, ac, "m", write) },
		} {
			msg := mode + ", " + name
			got, err := do()
			require.NoError(t, err, msg)
			if mode == "lenient" {
				require.Len(t, got.Calls, 1, msg)
				require.JSONEq(t, `{"path":"a.go"}`, got.Calls[0].Args, msg)
				continue
			}
			require.Empty(t, got.Calls, msg)
			require.Contains(t, got.Text, "<function=write_file>", msg)
		}
	}
}
