package toolsieve

// End-to-end tests over loopback: a test upstream that streams back, as the
// model's content, the text of the last user message (an "echo model"), the
// proxy in front of it, and the official SDKs as clients.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	anthropic "github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve/sse"
)

// e2eDialects are the fixture files whose cases are served end to end.
var e2eDialects = []string{"anthropic", "dsml", "qwen3_coder", "hermes", "glm", "kimi_k2",
	"deepseek_v31", "deepseek_v3", "harmony", "mistral", "llama3", "minimax", "invoke_tool_call"}

// echoUpstream is the test upstream. The request's model name picks a
// behaviour: "echo" (content split at character boundaries), "bytes"
// (split anywhere, also inside characters), "cut", "hardcut", "malformed",
// "errorevent", "status500", "slow", "runaway".
type echoUpstream struct {
	srv     *httptest.Server
	events  chan string // what fault modes saw happen
	written atomic.Int64
	auth    atomic.Value // the last Authorization / x-api-key seen
}

func newEchoUpstream(t *testing.T) *echoUpstream {
	u := &echoUpstream{events: make(chan string, 16)}
	u.srv = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *echoUpstream) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	u.auth.Store(r.Header.Get("Authorization") + "|" + r.Header.Get("X-Api-Key"))
	var req struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	content := messageText(req.Messages[len(req.Messages)-1].Content)
	anth := strings.HasSuffix(r.URL.Path, "/messages")
	if req.Model == "status500" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"error":{"message":"upstream exploded","type":"server_error"}}`)
		return
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		if anth {
			w.Write(anthropicDoc(content))
		} else {
			w.Write(openAIDoc(content))
		}
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	h := fnv.New64a()
	io.WriteString(h, content)
	rng := rand.New(rand.NewPCG(h.Sum64(), 7))
	if req.Model == "runaway" {
		u.runaway(w, r, anth)
		return
	}
	pieces := splitContent(rng, content, 6, req.Model == "bytes")
	var stream []byte
	if anth {
		stream = anthropicStream(pieces)
	} else {
		stream = openAIStream(pieces)
	}
	switch req.Model {
	case "cut", "hardcut":
		if anth {
			stream = stream[:bytes.Index(stream, []byte("event: content_block_stop"))]
		} else {
			stream = stream[:bytes.Index(stream, []byte(`"finish_reason":"stop"`))]
			stream = stream[:bytes.LastIndex(stream, []byte("data: "))]
		}
	case "malformed":
		i := bytes.Index(stream, []byte("\n\n")) + 2
		stream = append(append(append([]byte(nil), stream[:i]...), "data: {\"choices\":[{oops\n\n"...), stream[i:]...)
	case "errorevent":
		i := bytes.Index(stream, []byte("event: content_block_stop"))
		stream = append(stream[:i:i], "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"...)
	}
	var d sse.Decoder
	evs, _ := d.Feed(stream)
	rc := http.NewResponseController(w)
	for i, ev := range evs {
		raw := ev.Raw
		if len(raw) > 4 && rng.IntN(3) == 0 { // split a write anywhere, even inside a character
			k := 1 + rng.IntN(len(raw)-1)
			w.Write(raw[:k])
			rc.Flush()
			raw = raw[k:]
		}
		w.Write(raw)
		rc.Flush()
		if req.Model == "slow" && i == 3 {
			select {
			case <-r.Context().Done():
				u.events <- "cancelled"
			case <-time.After(5 * time.Second):
				u.events <- "not cancelled"
			}
			return
		}
	}
	if req.Model == "hardcut" {
		conn, _, err := rc.Hijack()
		if err == nil {
			conn.Close()
		}
	}
}

// runaway streams the same call over and over until the client side goes
// away, and reports how many chunks it wrote.
func (u *echoUpstream) runaway(w http.ResponseWriter, r *http.Request, anth bool) {
	loop := "<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>\n"
	head, tail := openAIStream([]string{"Working.\n"}), []byte(nil)
	if anth {
		head = anthropicStream([]string{"Working.\n"})
		head = head[:bytes.Index(head, []byte("event: content_block_stop"))]
	} else {
		head = head[:bytes.Index(head, []byte(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{},`))]
	}
	rc := http.NewResponseController(w)
	w.Write(head)
	rc.Flush()
	const max = 20000
	for i := range max {
		if anth {
			tail = appendQuoted([]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`), loop)
			tail = sse.AppendEvent(nil, "content_block_delta", append(tail, "}}"...))
		} else {
			tail = sse.AppendEvent(nil, "", []byte(oaChunk(string(appendQuoted([]byte(`{"content":`), loop))+"}", "")))
		}
		if _, err := w.Write(tail); err != nil || rc.Flush() != nil || r.Context().Err() != nil {
			u.events <- fmt.Sprintf("stopped after %d", i)
			return
		}
		u.written.Add(1)
		time.Sleep(200 * time.Microsecond)
	}
	u.events <- "never stopped"
}

// messageText is the text of a message's content: a string, or the text
// of an array of blocks.
func messageText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.Text)
	}
	return b.String()
}

// e2eEnv is an upstream with the proxy in front of it.
type e2eEnv struct {
	up    *echoUpstream
	proxy *httptest.Server
	logs  *syncBuffer
}

func newE2E(t *testing.T) *e2eEnv {
	up := newEchoUpstream(t)
	u, _ := url.Parse(up.srv.URL)
	logs := &syncBuffer{}
	p := NewProxy(u, Options{})
	p.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ps := httptest.NewServer(p)
	t.Cleanup(ps.Close)
	return &e2eEnv{up: up, proxy: ps, logs: logs}
}

// noLeaks fails the test if goroutines started during it are still
// running once its servers and clients are closed.
func noLeaks(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Errorf("goroutines: %d before, %d after\n%s", before, n, buf)
		}
	})
}

// loopbackClient is an HTTP client whose idle connections are closed when
// the test ends.
func loopbackClient(t *testing.T, rt http.RoundTripper) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	if rt == nil {
		rt = tr
	} else if x, ok := rt.(*Transport); ok {
		x.Base = tr
	}
	return &http.Client{Transport: rt}
}

func e2eCases(t *testing.T) []streamCase {
	var out []streamCase
	for _, c := range loadStreamCases(t, e2eDialects...) {
		if len(c.Tools) > 0 || c.Options.Dialects != nil || c.Options.MarkupInCode || c.Options.MaxCallBytes > 0 {
			continue
		}
		out = append(out, c)
	}
	return out
}

// openAIResult reads the SDK's view of a completion.
func openAIResult(cc *openai.ChatCompletion) accumulated {
	var a accumulated
	ch := cc.Choices[0]
	a.Text = ch.Message.Content
	a.Finish = ch.FinishReason
	for _, tc := range ch.Message.ToolCalls {
		a.Calls = append(a.Calls, accCall{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
	}
	return a
}

func anthropicResult(m *anthropic.Message) accumulated {
	var a accumulated
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			a.Text += b.Text
			a.Segments = append(a.Segments, b.Text)
		case "thinking":
			a.Reasoning += b.Thinking
		case "tool_use":
			a.Calls = append(a.Calls, accCall{ID: b.ID, Name: b.Name, Args: string(b.Input)})
		}
	}
	a.Finish = string(m.StopReason)
	return a
}

// checkSDK compares the SDK's result with the parser's reading of content.
func checkSDK(t *testing.T, api API, content string, got accumulated, msg string) {
	t.Helper()
	want := expectedFor(content, Options{})
	sameCalls(t, want.Calls, got.Calls, msg)
	for _, c := range got.Calls {
		require.NotEmpty(t, c.ID, msg)
	}
	if api == APIAnthropic {
		require.Equal(t, nonBlank(want.Segments), nonBlank(got.Segments), "%s: text", msg)
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
		ooption.WithMaxRetries(0), ooption.WithHTTPClient(loopbackClient(t, nil))}, opts...)...)
}

func anthropicClient(t *testing.T, base string, opts ...aoption.RequestOption) anthropic.Client {
	return anthropic.NewClient(append([]aoption.RequestOption{aoption.WithBaseURL(base), aoption.WithAPIKey("ant-test-key-0123456789"),
		aoption.WithMaxRetries(0), aoption.WithHTTPClient(loopbackClient(t, nil))}, opts...)...)
}

func openAIStreamed(ctx context.Context, c openai.Client, model, content string) (accumulated, error) {
	s := c.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{Model: openai.ChatModel(model),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(content)}})
	defer s.Close()
	var acc openai.ChatCompletionAccumulator
	for s.Next() {
		if !acc.AddChunk(s.Current()) {
			return accumulated{}, fmt.Errorf("chunk refused by the accumulator: %s", s.Current().RawJSON())
		}
	}
	if err := s.Err(); err != nil {
		return accumulated{}, err
	}
	if len(acc.Choices) == 0 {
		return accumulated{}, fmt.Errorf("no choices")
	}
	return openAIResult(&acc.ChatCompletion), nil
}

func openAIUnary(ctx context.Context, c openai.Client, model, content string) (accumulated, error) {
	cc, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: openai.ChatModel(model),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(content)}})
	if err != nil {
		return accumulated{}, err
	}
	return openAIResult(cc), nil
}

func anthropicParams(model, content string) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: 1024,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(content))}}
}

func anthropicStreamed(ctx context.Context, c anthropic.Client, model, content string) (accumulated, error) {
	s := c.Messages.NewStreaming(ctx, anthropicParams(model, content))
	defer s.Close()
	var m anthropic.Message
	for s.Next() {
		if err := m.Accumulate(s.Current()); err != nil {
			return accumulated{}, err
		}
	}
	if err := s.Err(); err != nil {
		return anthropicResult(&m), err
	}
	return anthropicResult(&m), nil
}

func anthropicUnary(ctx context.Context, c anthropic.Client, model, content string) (accumulated, error) {
	m, err := c.Messages.New(ctx, anthropicParams(model, content))
	if err != nil {
		return accumulated{}, err
	}
	return anthropicResult(m), nil
}

// TestE2EProxySDKs: every dialect, both APIs, streamed and not, through the
// proxy, read by the official SDKs.
func TestE2EProxySDKs(t *testing.T) {
	noLeaks(t)
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
			checkSDK(t, APIOpenAI, c.Input, got, msg+" openai stream")
			got, err = anthropicStreamed(ctx, ac, model, c.Input)
			require.NoError(t, err, msg)
			checkSDK(t, APIAnthropic, c.Input, got, msg+" anthropic stream")
			if model == "echo" {
				got, err = openAIUnary(ctx, oc, model, c.Input)
				require.NoError(t, err, msg)
				checkSDK(t, APIOpenAI, c.Input, got, msg+" openai")
				got, err = anthropicUnary(ctx, ac, model, c.Input)
				require.NoError(t, err, msg)
				checkSDK(t, APIAnthropic, c.Input, got, msg+" anthropic")
			}
		}
		if len(expectedFor(c.Input, Options{}).Calls) > 0 {
			matrix[c.File]++
		}
	}
	for _, d := range e2eDialects {
		require.NotZero(t, matrix[d], "no case of %s made a call", d)
	}
	// The proxy forwards the client's credentials unchanged.
	require.Equal(t, "|ant-test-key-0123456789", env.up.auth.Load())
}

// TestE2ETransportAndMiddleware: the same through Transport (openai-go) and
// Middleware (anthropic-sdk-go), without a proxy.
func TestE2ETransportAndMiddleware(t *testing.T) {
	noLeaks(t)
	up := newEchoUpstream(t)
	ctx := context.Background()
	oc := openai.NewClient(ooption.WithBaseURL(up.srv.URL+"/v1/"), ooption.WithAPIKey("k"), ooption.WithMaxRetries(0),
		ooption.WithHTTPClient(loopbackClient(t, &Transport{})))
	ac := anthropicClient(t, up.srv.URL, aoption.WithMiddleware(Middleware(Options{})))
	oc2 := openAIClient(t, up.srv.URL+"/v1/", ooption.WithMiddleware(Middleware(Options{})))
	for _, c := range e2eCases(t) {
		got, err := openAIStreamed(ctx, oc, "bytes", c.Input)
		require.NoError(t, err)
		checkSDK(t, APIOpenAI, c.Input, got, c.Name+" transport stream")
		got, err = openAIUnary(ctx, oc2, "echo", c.Input)
		require.NoError(t, err)
		checkSDK(t, APIOpenAI, c.Input, got, c.Name+" middleware")
		got, err = anthropicStreamed(ctx, ac, "bytes", c.Input)
		require.NoError(t, err)
		checkSDK(t, APIAnthropic, c.Input, got, c.Name+" middleware stream")
	}
}

// TestE2EPlainIdentical: a plain-text stream comes through the proxy byte
// for byte.
func TestE2EPlainIdentical(t *testing.T) {
	noLeaks(t)
	env := newE2E(t)
	client := loopbackClient(t, nil)
	text := "Plain answer.\nSecond line with 杭州 and 🙂 — nothing to recover.\n\nThe end"
	for _, tc := range []struct{ path, body string }{
		{"/v1/chat/completions", `{"model":"echo","stream":true,"messages":[{"role":"user","content":` + string(appendQuoted(nil, text)) + `}]}`},
		{"/v1/messages", `{"model":"echo","stream":true,"max_tokens":10,"messages":[{"role":"user","content":` + string(appendQuoted(nil, text)) + `}]}`},
		{"/v1/chat/completions", `{"model":"echo","messages":[{"role":"user","content":` + string(appendQuoted(nil, text)) + `}]}`},
	} {
		direct := post(t, client, env.up.srv.URL+tc.path, tc.body)
		proxied := post(t, client, env.proxy.URL+tc.path, tc.body)
		require.Equal(t, string(direct), string(proxied), tc.path)
	}
}

func post(t *testing.T, c *http.Client, url, body string) []byte {
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return b
}

// TestE2EFaults: cut streams, upstream errors, malformed frames, client
// disconnects and runaways.
func TestE2EFaults(t *testing.T) {
	noLeaks(t)
	env := newE2E(t)
	ctx := context.Background()
	oc := openAIClient(t, env.proxy.URL+"/v1/")
	ac := anthropicClient(t, env.proxy.URL)
	cutContent := "Writing now.\n<tool_call>\n<function=write>\n<parameter=path>\na.go\n</parameter>\n<parameter=content>\npackage main\n"

	t.Run("cut mid call", func(t *testing.T) {
		// The upstream ends inside a call: the call is forwarded (it
		// carries closed_at_eof, which the proxy logs).
		got, err := openAIStreamed(ctx, oc, "cut", cutContent)
		require.NoError(t, err)
		require.Len(t, got.Calls, 1)
		require.Equal(t, "write", got.Calls[0].Name)
		require.JSONEq(t, `{"path":"a.go","content":"package main"}`, got.Calls[0].Args)
		require.Equal(t, "Writing now.\n", got.Text)
		gotA, err := anthropicStreamed(ctx, ac, "cut", cutContent)
		require.NoError(t, err)
		require.Len(t, gotA.Calls, 1)
		require.Contains(t, env.logs.String(), "closed_at_eof")
	})
	t.Run("hard cut", func(t *testing.T) {
		// The connection drops: what was recovered still reaches the client
		// before the error.
		client := loopbackClient(t, nil)
		resp, err := client.Post(env.proxy.URL+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"hardcut","stream":true,"messages":[{"role":"user","content":`+string(appendQuoted(nil, cutContent))+`}]}`))
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Error(t, err)
		require.Contains(t, string(b), `"name":"write"`)
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
		client := loopbackClient(t, nil)
		body := post(t, client, env.proxy.URL+"/v1/chat/completions",
			`{"model":"malformed","stream":true,"messages":[{"role":"user","content":"Hi <tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>"}]}`)
		require.Contains(t, string(body), "data: {\"choices\":[{oops\n\n")
		require.Contains(t, string(body), `"tool_calls":[{"index":0,`)
		require.Contains(t, string(body), `"finish_reason":"tool_calls"`)
		require.True(t, bytes.HasSuffix(body, []byte("data: [DONE]\n\n")))
		require.Contains(t, env.logs.String(), "errors=1")
	})
	t.Run("client disconnect", func(t *testing.T) {
		client := loopbackClient(t, nil)
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
		case ev := <-env.up.events:
			require.Equal(t, "cancelled", ev)
		case <-time.After(5 * time.Second):
			t.Fatal("upstream never saw the request end")
		}
	})
	for _, api := range []API{APIOpenAI, APIAnthropic} {
		t.Run("runaway "+api.String(), func(t *testing.T) {
			env.up.written.Store(0)
			var got accumulated
			var err error
			if api == APIOpenAI {
				got, err = openAIStreamed(ctx, oc, "runaway", "x")
			} else {
				got, err = anthropicStreamed(ctx, ac, "runaway", "x")
			}
			require.NoError(t, err)
			require.NotEmpty(t, got.Calls)
			if api == APIOpenAI {
				require.Equal(t, "tool_calls", got.Finish)
			} else {
				require.Equal(t, "tool_use", got.Finish)
			}
			select {
			case ev := <-env.up.events:
				require.True(t, strings.HasPrefix(ev, "stopped after"), ev)
			case <-time.After(10 * time.Second):
				t.Fatal("upstream never stopped")
			}
			require.Less(t, env.up.written.Load(), int64(200), "upstream went on generating")
			require.Contains(t, env.logs.String(), "runaway=true")
		})
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use (logs).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
