package sievehttp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/sse"
)

// Contents the scripted upstream answers with.
const (
	// polLoop is a DSML runaway: invoke openers without closers.
	polLoop = "<｜DSML｜function_calls>\n" + "<｜DSML｜invoke name=\"read_file\">\n<｜DSML｜invoke name=\"read_file\">\n" +
		"<｜DSML｜invoke name=\"read_file\">\n<｜DSML｜invoke name=\"read_file\">\n<｜DSML｜invoke name=\"read_file\">\n" +
		"<｜DSML｜invoke name=\"read_file\">\n<｜DSML｜invoke name=\"read_file\">\n"
	// polGood is a well-formed DSML call.
	polGood = "Reading it.\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"read_file\">\n" +
		"<｜DSML｜parameter name=\"path\" string=\"true\">main.go</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"
	// polCut is a call cut off by the end of the answer after its last
	// value (closed_at_eof).
	polCut = "Writing now.\n<tool_call>\n<function=write>\n<parameter=path>\na.go\n</parameter>\n<parameter=content>\npackage main\n</parameter>\n"
)

// polUpstream answers request i with the content script[i] (the last one
// repeats), streamed or not as the request asks, in the API of the path.
type polUpstream struct {
	srv     *httptest.Server
	mu      sync.Mutex
	script  []string
	bodies  []string
	headers []http.Header
	seen    chan int // the number of each request, as it arrives
}

func newPolUpstream(t *testing.T, script ...string) *polUpstream {
	u := &polUpstream{script: script, seen: make(chan int, 64)}
	u.srv = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *polUpstream) requests() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.bodies)
}

func (u *polUpstream) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	i := len(u.bodies)
	u.bodies = append(u.bodies, string(body))
	u.headers = append(u.headers, r.Header.Clone())
	content := u.script[min(i, len(u.script)-1)]
	u.mu.Unlock()
	u.seen <- i
	var req struct {
		Stream bool `json:"stream"`
	}
	json.Unmarshal(body, &req)
	anth := strings.HasSuffix(r.URL.Path, "/messages")
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		if anth {
			w.Write(chattest.AnthropicDoc(content))
		} else {
			w.Write(chattest.OpenAIDoc(content))
		}
		return
	}
	pieces := chattest.SplitContent(rand.New(rand.NewPCG(uint64(i), 3)), content, 8, false)
	stream := chattest.OpenAIStream(pieces)
	if anth {
		stream = chattest.AnthropicStream(pieces)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	var d sse.Decoder
	evs, _ := d.Feed(stream)
	for _, ev := range evs {
		if _, err := w.Write(ev.Raw); err != nil || rc.Flush() != nil {
			return
		}
	}
}

// polEnv is a scripted upstream behind a proxy with a policy.
type polEnv struct {
	up      *polUpstream
	proxy   *httptest.Server
	metrics *Metrics
	logs    *chattest.SyncBuffer
	client  *http.Client
}

func newPolEnv(t *testing.T, pol *Policy, script ...string) *polEnv {
	up := newPolUpstream(t, script...)
	u, _ := url.Parse(up.srv.URL)
	p := NewProxy(u, toolsieve.Options{IDPrefix: "t_"})
	p.Policy = pol
	p.Metrics = NewMetrics()
	logs := &chattest.SyncBuffer{}
	p.Logger = slog.New(slog.NewTextHandler(logs, nil))
	ps := httptest.NewServer(p)
	t.Cleanup(ps.Close)
	return &polEnv{up: up, proxy: ps, metrics: p.Metrics, logs: logs, client: chattest.LoopbackClient(t, nil)}
}

// counted returns the retries the proxy counted and the requests it is
// handling, for tests that wait for either.
func (e *polEnv) counted() (retries uint64, inFlight int64) {
	m := e.metrics
	if !m.lock() {
		return 0, 0
	}
	defer m.mu.Unlock()
	for _, n := range m.retries {
		retries += n
	}
	return retries, m.inFlight
}

// polAnswer is what the client got.
type polAnswer struct {
	resp *http.Response
	body string
	got  chattest.Response
}

// send posts a chat request for api with the given headers.
func (e *polEnv) send(t *testing.T, api chat.API, stream bool, content string, hdr ...string) polAnswer {
	t.Helper()
	return e.sendAs(t, "test-model", api, stream, content, hdr...)
}

// sendAs is send for a request naming model.
func (e *polEnv) sendAs(t *testing.T, model string, api chat.API, stream bool, content string, hdr ...string) polAnswer {
	t.Helper()
	path, body := chatBody(api, stream, content)
	body = strings.Replace(body, `"model":"test-model"`, `"model":`+strconv.Quote(model), 1)
	return e.post(t, api, stream, path, body, hdr...)
}

// post sends a request body to path and decodes the answer.
func (e *polEnv) post(t *testing.T, api chat.API, stream bool, path, body string, hdr ...string) polAnswer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.proxy.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sk-test")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := e.client.Do(req)
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	a := polAnswer{resp: resp, body: string(b)}
	switch {
	case stream && api == chat.APIOpenAI:
		a.got = chattest.AccumulateOpenAI(t, b)
	case stream:
		a.got = chattest.AccumulateAnthropic(t, b)
	default:
		a.got = chattest.AccumulateDoc(t, api, b)
	}
	return a
}

func chatBody(api chat.API, stream bool, content string) (path, body string) {
	s := "false"
	if stream {
		s = "true"
	}
	msg := `{"role":"user","content":` + string(jsonspan.AppendQuoted(nil, content)) + `}`
	if api == chat.APIAnthropic {
		return "/v1/messages", `{"model":"test-model","max_tokens":1000,"stream":` + s + `,"messages":[` + msg + `]}`
	}
	return "/v1/chat/completions", `{"model":"test-model","max_tokens":1000,"stream":` + s + `,"messages":[` + msg + `]}`
}

// signal reads an X-Toolsieve-* value from the headers or, for streams
// whose headers went out first, the trailers.
func (a polAnswer) signal(name string) string {
	if v := a.resp.Header.Get(name); v != "" {
		return v
	}
	return a.resp.Trailer.Get(name)
}

func polRetries(n int) *Policy {
	return &Policy{NoBuiltin: true, Default: Rule{Retries: &n}, Backoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond}
}

var polAPIs = []chat.API{chat.APIOpenAI, chat.APIAnthropic}

// TestRetryBadThenGood: the upstream loops first and answers well on the
// retry; the client sees only the good answer, streamed or not, in both
// APIs, and the upstream got the same body and headers twice.
func TestRetryBadThenGood(t *testing.T) {
	chattest.NoLeaks(t)
	for _, api := range polAPIs {
		for _, stream := range []bool{false, true} {
			name := api.String() + map[bool]string{false: " unary", true: " stream"}[stream]
			t.Run(name, func(t *testing.T) {
				env := newPolEnv(t, polRetries(2), polLoop, polGood)
				a := env.send(t, api, stream, "read main.go", HeaderHoldText, "false")
				require.Len(t, a.got.Calls, 1, a.body)
				require.Equal(t, "read_file", a.got.Calls[0].Name)
				require.JSONEq(t, `{"path":"main.go"}`, a.got.Calls[0].Args)
				require.Equal(t, "Reading it.\n", a.got.Text)
				require.NotContains(t, a.body, "DSML")
				require.Equal(t, "1", a.resp.Header.Get(HeaderRetriesOut))
				require.Empty(t, a.signal(HeaderRunaway))
				require.Equal(t, 2, env.up.requests())
				require.Equal(t, env.up.bodies[0], env.up.bodies[1])
				_, sent := chatBody(api, stream, "read main.go")
				// Unchanged, but for the usage chunk an OpenAI stream that may be
				// retried is asked for (usage.go).
				want, _ := askUsage([]byte(sent), api, stream, 2)
				require.Equal(t, string(want), env.up.bodies[0], "the body goes upstream unchanged")
				for _, h := range env.up.headers {
					require.Equal(t, "Bearer sk-test", h.Get("Authorization"))
					require.Empty(t, h.Get(HeaderHoldText), "X-Toolsieve-* headers are not forwarded")
				}
				require.Contains(t, env.logs.String(), "retries=1 retry_reasons=runaway")
			})
		}
	}
}

// TestRetryStreamCommitted: once text has gone to the client a stream is
// not retried (the runaway is passed on with its signal), unless the rule
// holds text back.
func TestRetryStreamCommitted(t *testing.T) {
	chattest.NoLeaks(t)
	bad := "Let me read the file.\n" + polLoop
	for _, api := range polAPIs {
		t.Run(api.String(), func(t *testing.T) {
			env := newPolEnv(t, polRetries(2), bad, polGood)
			a := env.send(t, api, true, "x")
			require.Equal(t, 1, env.up.requests())
			require.Equal(t, "0", a.resp.Header.Get(HeaderRetriesOut))
			require.Equal(t, "Let me read the file.\n", a.got.Text)
			require.Empty(t, a.resp.Header.Get(HeaderRunaway), "a trailer, not a header")
			require.NotEmpty(t, a.resp.Trailer.Get(HeaderRunaway))

			hold := polRetries(2)
			hold.Default.HoldText = &hold.ClientOverrides
			hold.ClientOverrides = true
			env = newPolEnv(t, hold, bad, polGood)
			a = env.send(t, api, true, "x")
			require.Equal(t, 2, env.up.requests())
			require.Equal(t, "1", a.resp.Header.Get(HeaderRetriesOut))
			require.Len(t, a.got.Calls, 1)
			require.Equal(t, "Reading it.\n", a.got.Text)
		})
	}
}

// TestRetryExhausted: the last answer is passed on with its signals.
func TestRetryExhausted(t *testing.T) {
	chattest.NoLeaks(t)
	for _, api := range polAPIs {
		for _, stream := range []bool{false, true} {
			env := newPolEnv(t, polRetries(2), polLoop)
			a := env.send(t, api, stream, "x")
			require.Equal(t, 3, env.up.requests())
			require.Equal(t, "2", a.resp.Header.Get(HeaderRetriesOut))
			require.Equal(t, "unclosed_openers", a.signal(HeaderRunaway), a.body)
			if stream {
				require.Empty(t, a.resp.Header.Get(HeaderRunaway), "the last stream is not held: its signals are trailers")
			}
			var out strings.Builder
			env.metrics.WriteTo(&out)
			require.Contains(t, out.String(), `toolsieve_retries_total{reason="runaway",model="other"} 2`)
			require.Contains(t, out.String(), "toolsieve_retries_exhausted_total 1")
			require.Contains(t, out.String(), `toolsieve_runaways_total{reason="unclosed_openers",model="other"} 3`)
		}
	}
}

// TestStrictRefusesClosedAtEOF: in strict mode a call cut off by the end
// of the answer is not a native call: its markup stays in the content and
// X-Toolsieve-Refused counts it; lenient forwards it with its repairs.
func TestStrictRefusesClosedAtEOF(t *testing.T) {
	chattest.NoLeaks(t)
	for _, api := range polAPIs {
		for _, stream := range []bool{false, true} {
			env := newPolEnv(t, nil, polCut)
			a := env.send(t, api, stream, "x", HeaderMode, "strict")
			require.Empty(t, a.got.Calls, a.body)
			require.Equal(t, polCut, a.got.Text)
			require.Equal(t, "1", a.signal(HeaderRefused))
			if api == chat.APIOpenAI {
				require.Equal(t, "stop", a.got.Finish)
			} else {
				require.Equal(t, "end_turn", a.got.Finish)
			}
			require.Contains(t, env.logs.String(), "refused=1")
			require.Contains(t, env.logs.String(), "mode=strict")

			a = env.send(t, api, stream, "x") // lenient (nil policy)
			require.Len(t, a.got.Calls, 1)
			require.Equal(t, "write", a.got.Calls[0].Name)
			require.Equal(t, "Writing now.\n", a.got.Text)
			require.Equal(t, "closed_at_eof=1,missing_closer=1", a.signal(HeaderRepairsOut))
			require.Empty(t, a.signal(HeaderRefused))
		}
	}
	// Strict with a retry budget: the refused answer is asked for again
	// (streamed: its text is held back, or it would have gone out).
	env := newPolEnv(t, &Policy{ClientOverrides: true}, polCut, polGood)
	a := env.send(t, chat.APIOpenAI, true, "x", HeaderMode, "strict", HeaderRetries, "1", HeaderHoldText, "yes")
	require.Len(t, a.got.Calls, 1)
	require.Equal(t, "read_file", a.got.Calls[0].Name)
	require.Equal(t, "1", a.resp.Header.Get(HeaderRetriesOut))
	require.Contains(t, env.logs.String(), "retry_reasons=refused")
}

// TestRetrySignals: markup that does not become a call and empty call
// wrappers are retried too; a good answer is not.
func TestRetrySignals(t *testing.T) {
	chattest.NoLeaks(t)
	for _, tc := range []struct {
		name, bad, reason string
	}{
		{"no tool name", "<tool_call>\n{\"arguments\": {\"a\": 1}}\n</tool_call>", "unrecovered"},
		{"empty block", "<function_calls>\n</function_calls>", "empty_block"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newPolEnv(t, polRetries(1), tc.bad, polGood)
			a := env.send(t, chat.APIOpenAI, false, "x")
			require.Len(t, a.got.Calls, 1, a.body)
			require.Contains(t, env.logs.String(), "retry_reasons="+tc.reason)
		})
	}
	env := newPolEnv(t, polRetries(3), polGood)
	env.send(t, chat.APIAnthropic, true, "x")
	require.Equal(t, 1, env.up.requests())
}

// TestRetryClientCancel: a client that goes away during the backoff ends
// the exchange: no further upstream request, nothing left running.
func TestRetryClientCancel(t *testing.T) {
	chattest.NoLeaks(t)
	pol := polRetries(3)
	pol.Backoff, pol.MaxBackoff = time.Minute, time.Minute
	env := newPolEnv(t, pol, polLoop)
	for _, stream := range []bool{false, true} {
		env.up.mu.Lock()
		env.up.bodies = nil
		env.up.mu.Unlock()
		retries, _ := env.counted()
		ctx, cancel := context.WithCancel(context.Background())
		path, body := chatBody(chat.APIOpenAI, stream, "x")
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, env.proxy.URL+path, strings.NewReader(body))
		done := make(chan error, 1)
		go func() {
			resp, err := env.client.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			done <- err
		}()
		<-env.up.seen
		// The retry is counted just before the backoff (a minute) starts.
		require.Eventually(t, func() bool { n, _ := env.counted(); return n > retries }, 30*time.Second, time.Millisecond,
			"the proxy did not decide to retry")
		cancel()
		select {
		case err := <-done:
			require.ErrorIs(t, err, context.Canceled)
		case <-time.After(30 * time.Second): // half the backoff
			t.Fatal("the request did not end")
		}
		// Once the proxy's handler has returned, no request can follow.
		require.Eventually(t, func() bool { _, n := env.counted(); return n == 0 }, 30*time.Second, time.Millisecond,
			"the proxy's handler did not return")
		require.Equal(t, 1, env.up.requests(), "no retry after the client left")
	}
}

// TestFamilyRuleDoesNotBlind: a model named like one family that writes
// another family's markup (a distilled model, a router alias) still gets its
// call as a native one: the built-in rule tunes retries and mode, and
// narrows no dialect.
func TestFamilyRuleDoesNotBlind(t *testing.T) {
	chattest.NoLeaks(t)
	const qwen = "Checking.\n<tool_call>\n<function=read_file>\n<parameter=path>\na.go\n</parameter>\n</function>\n</tool_call>"
	for _, api := range polAPIs {
		for _, stream := range []bool{false, true} {
			env := newPolEnv(t, &Policy{}, qwen)
			a := env.sendAs(t, "deepseek-r1-distill-qwen-32b", api, stream, "x")
			require.Len(t, a.got.Calls, 1, a.body)
			require.Equal(t, "read_file", a.got.Calls[0].Name)
			require.JSONEq(t, `{"path":"a.go"}`, a.got.Calls[0].Args)
			require.Equal(t, "Checking.\n", a.got.Text)
			require.NotContains(t, a.body, "</tool_call>")
		}
	}
}

// TestMissingRequiredThroughProxy: a call that lacks a parameter its
// declared tool requires carries missing_required; strict mode keeps it as
// text (and counts it refused), lenient mode passes it on, marked.
func TestMissingRequiredThroughProxy(t *testing.T) {
	chattest.NoLeaks(t)
	const answer = "Writing.\n<tool_call>\n<function=write_file>\n<parameter=path>\na.go\n</parameter>\n</function>\n</tool_call>"
	schema := `{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`
	tools := map[chat.API]string{
		chat.APIOpenAI:    `"tools":[{"type":"function","function":{"name":"write_file","parameters":` + schema + `}}],`,
		chat.APIAnthropic: `"tools":[{"name":"write_file","input_schema":` + schema + `}],`,
	}
	for _, api := range polAPIs {
		for _, stream := range []bool{false, true} {
			path, body := chatBody(api, stream, "x")
			body = strings.Replace(body, "{", "{"+tools[api], 1)
			env := newPolEnv(t, &Policy{}, answer)
			a := env.post(t, api, stream, path, body, HeaderMode, "strict")
			require.Empty(t, a.got.Calls, a.body)
			require.Equal(t, answer, a.got.Text)
			require.Equal(t, "1", a.signal(HeaderRefused))

			a = env.post(t, api, stream, path, body)
			require.Len(t, a.got.Calls, 1, a.body)
			require.Equal(t, "write_file", a.got.Calls[0].Name)
			require.Equal(t, "missing_required=1", a.signal(HeaderRepairsOut))
		}
	}
}

// TestPolicyTransportAndMiddleware: the Go wrappers retry too, and the
// client sees only the good answer.
func TestPolicyTransportAndMiddleware(t *testing.T) {
	chattest.NoLeaks(t)
	up := newPolUpstream(t, polLoop, polGood)
	m := NewMetrics()
	var notified []string
	tr := &Transport{Policy: polRetries(1), Metrics: m, Options: toolsieve.Options{IDPrefix: "t_"},
		Notify: func(_ *http.Request, e *toolsieve.Event) { notified = append(notified, e.Type.String()+":"+e.Name) }}
	base := &http.Transport{}
	t.Cleanup(base.CloseIdleConnections)
	tr.Base = base
	path, body := chatBody(chat.APIOpenAI, true, "x")
	got := chattest.AccumulateOpenAI(t, chattest.Post(t, &http.Client{Transport: tr}, up.srv.URL+path, body))
	require.Len(t, got.Calls, 1)
	require.Equal(t, "read_file", got.Calls[0].Name)
	require.Equal(t, []string{"tool_call:read_file"}, notified, "events of the dropped answer are not passed on")
	require.Equal(t, 2, up.requests())

	up = newPolUpstream(t, polLoop, polGood)
	mw := PolicyMiddleware(toolsieve.Options{}, polRetries(1))
	path, body = chatBody(chat.APIOpenAI, false, "x")
	req, _ := http.NewRequest(http.MethodPost, up.srv.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := mw(req, base.RoundTrip)
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	got = chattest.AccumulateDoc(t, chat.APIOpenAI, b)
	require.Len(t, got.Calls, 1)
	require.Equal(t, 2, up.requests())
}
