package sievehttp

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// TestClientHeadersOnlyTighten: under a strict policy with one retry, a
// client's X-Toolsieve-Mode: lenient does not make a cut-off call
// executable, X-Toolsieve-Retries: 10 does not make 11 upstream requests,
// and hold-text stays off; the refusal is logged at debug level and
// counted. With "client_overrides": true the headers apply.
func TestClientHeadersOnlyTighten(t *testing.T) {
	chattest.NoLeaks(t)
	pol, err := ParsePolicy([]byte(`{"default": {"mode": "strict", "retries": 1}, "builtin": false, "backoff_ms": 1}`))
	require.NoError(t, err)
	for _, api := range polAPIs {
		env := newPolEnv(t, pol, polCut)
		a := env.send(t, api, false, "x", HeaderMode, "lenient", HeaderRetries, "10", HeaderHoldText, "true")
		require.Empty(t, a.got.Calls, "the cut call stays text: %s", a.body)
		require.Equal(t, "1", a.signal(HeaderRefused))
		require.Equal(t, 2, env.up.requests(), "the operator's one retry, not the client's ten")
		require.Equal(t, "1", a.resp.Header.Get(HeaderRetriesOut))
		logs := env.logs.String()
		require.Contains(t, logs, "mode=strict")
		require.Contains(t, logs, `headers_refused=X-Toolsieve-Mode,X-Toolsieve-Retries,X-Toolsieve-Hold-Text`)
		m := scrape(t, env.client, env.proxy.URL)
		require.EqualValues(t, 1, m[`toolsieve_request_headers_refused_total{header="X-Toolsieve-Mode"}`])
		require.EqualValues(t, 1, m[`toolsieve_request_headers_refused_total{header="X-Toolsieve-Retries"}`])

		// Tightening is always taken: no retry at all.
		env = newPolEnv(t, pol, polCut)
		env.send(t, api, false, "x", HeaderRetries, "0")
		require.Equal(t, 1, env.up.requests())

		open := *pol
		open.ClientOverrides = true
		env = newPolEnv(t, &open, polCut)
		a = env.send(t, api, false, "x", HeaderMode, "lenient", HeaderRetries, "0")
		require.Len(t, a.got.Calls, 1, "client_overrides: the header loosens")
		require.Equal(t, 1, env.up.requests())
	}
	// The refusal is a debug record of its own.
	env := newHardEnv(t, newScripted(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(chattest.OpenAIDoc("fine"))
	}), pol, nil)
	resp, _, err := env.do(t, chat.APIOpenAI, false, "x", HeaderDialects, "all", HeaderMode, "lenient")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, env.logs.String(), `level=DEBUG msg="request headers would loosen the policy; ignored" path=/v1/chat/completions headers=X-Toolsieve-Mode`)
}

// TestHealthz: /healthz is answered by the proxy, never forwarded.
func TestHealthz(t *testing.T) {
	chattest.NoLeaks(t)
	up := newScripted(t, func(w http.ResponseWriter, r *http.Request) {})
	env := newHardEnv(t, up, nil, nil)
	resp, err := env.client.Get(env.srv.URL + "/healthz")
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.JSONEq(t, `{"status":"ok"}`, string(b))
	require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	resp, err = env.client.Head(env.srv.URL + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Zero(t, up.requests.Load())
}

// TestErrorShapes: the proxy's own errors come in the shape of the API of
// the path: Anthropic's for …/messages and below, OpenAI's otherwise.
func TestErrorShapes(t *testing.T) {
	chattest.NoLeaks(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead, _ := url.Parse("http://" + l.Addr().String())
	l.Close()
	p := NewProxy(dead, toolsieve.Options{})
	logs := &chattest.SyncBuffer{}
	p.Logger = slog.New(slog.NewTextHandler(logs, nil))
	p.Metrics = NewMetrics()
	srv := httptest.NewServer(p)
	defer srv.Close()
	client := chattest.LoopbackClient(t, nil)
	for _, tc := range []struct {
		method, path string
		api          chat.API
	}{
		{http.MethodPost, "/v1/chat/completions", chat.APIOpenAI},
		{http.MethodPost, "/v1/messages", chat.APIAnthropic},
		{http.MethodPost, "/v1/messages/count_tokens", chat.APIAnthropic},
		{http.MethodGet, "/v1/models", chat.APIOpenAI},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, nil)
		if tc.method == http.MethodPost {
			req.Body = io.NopCloser(strings.NewReader(`{"model":"m","messages":[]}`))
		}
		resp, err := client.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusBadGateway, resp.StatusCode, tc.path)
		requireErrorBody(t, tc.api, b, "server_error", "api_error", "unreachable")
		require.Contains(t, string(b), "upstream request failed", tc.path)
	}
	require.Contains(t, logs.String(), "level=ERROR msg=request method=GET path=/v1/models status=502")
	require.Contains(t, logs.String(), "failure=unreachable")
	m := scrape(t, client, srv.URL)
	require.EqualValues(t, 4, m[`toolsieve_upstream_failures_total{reason="unreachable"}`])
	require.EqualValues(t, 2, m[`toolsieve_requests_total{api="other",model="other",code="502"}`])
}

// TestUpstreamBasicAuth: user information in the upstream URL is sent as
// Basic authentication when the request has no Authorization of its own,
// and never logged.
func TestUpstreamBasicAuth(t *testing.T) {
	chattest.NoLeaks(t)
	var mu sync.Mutex
	var seen []string
	up := newScripted(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write(chattest.OpenAIDoc("ok"))
	})
	env := newHardEnv(t, up, nil, func(p *Proxy) { p.Upstream.User = url.UserPassword("gate", "SECRET-pw") })
	env.do(t, chat.APIOpenAI, false, "x")
	env.do(t, chat.APIOpenAI, false, "x", "Authorization", "Bearer sk-own")
	resp, err := env.client.Get(env.srv.URL + "/v1/models")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, []string{"Basic Z2F0ZTpTRUNSRVQtcHc=", "Bearer sk-own", "Basic Z2F0ZTpTRUNSRVQtcHc="}, seen)
	require.NotContains(t, env.logs.String(), "SECRET")
}

// TestLogFields: the request's model, the dialects and repairs of the
// calls delivered are readable fields of the log record.
func TestLogFields(t *testing.T) {
	chattest.NoLeaks(t)
	env := newPolEnv(t, &Policy{NoBuiltin: true}, polCut)
	env.sendAs(t, "qwen3-coder-plus", chat.APIOpenAI, false, "x")
	logs := env.logs.String()
	require.Contains(t, logs, "model=qwen3-coder-plus")
	require.Contains(t, logs, `calls=1 dialects=qwen3_coder repaired=1 repairs="closed_at_eof=1,missing_closer=1"`)
	require.NotContains(t, logs, "map[")
}

// TestMetricsOperations: status codes, latency histograms, requests in
// flight and the build information, in the Prometheus conventions.
func TestMetricsOperations(t *testing.T) {
	chattest.NoLeaks(t)
	env := newPolEnv(t, nil, polGood)
	env.send(t, chat.APIOpenAI, true, "x")
	env.send(t, chat.APIOpenAI, false, "x")
	resp, err := env.client.Post(env.proxy.URL+"/v1/chat/completions", "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	resp.Body.Close()
	resp, err = env.client.Get(env.proxy.URL + "/metrics")
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(b)
	for _, want := range []string{
		"# TYPE toolsieve_request_duration_seconds histogram",
		`toolsieve_request_duration_seconds_bucket{api="openai",le="0.005"} `,
		`toolsieve_request_duration_seconds_bucket{api="openai",le="+Inf"} 3`,
		`toolsieve_request_duration_seconds_count{api="openai"} 3`,
		`toolsieve_request_duration_seconds_sum{api="openai"} `,
		"# TYPE toolsieve_time_to_first_byte_seconds histogram",
		`toolsieve_time_to_first_byte_seconds_count{api="openai"} 3`,
		"# TYPE toolsieve_build_info gauge",
		`toolsieve_build_info{version="`,
		`goversion="go`,
		"# TYPE toolsieve_requests_in_flight gauge",
		"toolsieve_requests_in_flight 0",
	} {
		require.Contains(t, text, want)
	}
	m := scrape(t, env.client, env.proxy.URL)
	require.EqualValues(t, 3, m[`toolsieve_requests_total{api="openai",model="other",code="200"}`])
	// Buckets are cumulative and end at the count.
	require.LessOrEqual(t, m[`toolsieve_request_duration_seconds_bucket{api="openai",le="0.005"}`], m[`toolsieve_request_duration_seconds_bucket{api="openai",le="600"}`])
	env.proxy.Config.Handler.(*Proxy).Metrics.Version = "v9.9.9"
	require.Contains(t, func() string {
		var sb strings.Builder
		env.metrics.WriteTo(&sb)
		return sb.String()
	}(), `toolsieve_build_info{version="v9.9.9",`)
}

// TestUpstreamPoolReuse: the proxy's transport keeps enough idle
// connections for a burst of concurrent streams: a second burst opens no
// new upstream connection (the default transport keeps 2 per host).
func TestUpstreamPoolReuse(t *testing.T) {
	chattest.NoLeaks(t)
	// Each stream of a burst waits, its head sent, until all 64 are open:
	// the burst needs 64 connections at once.
	var mu sync.Mutex
	arrived := 0
	gates := [2]chan struct{}{make(chan struct{}), make(chan struct{})}
	up := newScripted(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		streamHead(w, false, "Hello")
		mu.Lock()
		gate := gates[min(arrived/64, 1)]
		if arrived++; arrived%64 == 0 {
			close(gate)
		}
		mu.Unlock()
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
		w.Write(textEvent(false, " there"))
	})
	env := newHardEnv(t, up, nil, nil)
	burst := func() {
		var wg sync.WaitGroup
		for range 64 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, body, err := env.do(t, chat.APIOpenAI, true, "x")
				if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), " there") {
					t.Errorf("stream failed: %v %d %s", err, resp.StatusCode, body)
				}
			}()
		}
		wg.Wait()
	}
	burst()
	first := up.conns.Load()
	require.LessOrEqual(t, first, int32(64))
	burst()
	// Connections of the first burst are kept for the second: it opens
	// only what the first did not need at once.
	require.LessOrEqual(t, up.conns.Load(), int32(64+2), "upstream connections for two bursts")
	t.Logf("upstream connections: %d for the first burst of 64 streams, %d more for the second", first, up.conns.Load()-first)
	env.p.rt.(*http.Transport).CloseIdleConnections()
}

// TestUpstreamHTTP2: the upstream transport speaks HTTP/2 where the
// upstream offers it, streams included.
func TestUpstreamHTTP2(t *testing.T) {
	chattest.NoLeaks(t)
	protos := make(chan string, 4)
	up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		protos <- r.Proto
		streamHead(w, false, "over h2")
		w.Write(textEvent(false, " done"))
	}))
	up.EnableHTTP2 = true
	up.StartTLS()
	defer up.Close()
	tr := NewUpstreamTransport()
	tr.TLSClientConfig = up.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	defer tr.CloseIdleConnections()
	u, _ := url.Parse(up.URL)
	p := NewProxy(u, toolsieve.Options{})
	p.Transport = tr
	p.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := httptest.NewServer(p)
	defer srv.Close()
	path, body := chatBody(chat.APIOpenAI, true, "x")
	b := chattest.Post(t, chattest.LoopbackClient(t, nil), srv.URL+path, body)
	require.Contains(t, string(b), "over h2")
	require.Contains(t, string(b), " done")
	require.Equal(t, "HTTP/2.0", <-protos)
}

// TestErrorEventShapes: the event that ends a stream on a failure is each
// API's own: OpenAI chat a data event with an error object, Anthropic and
// Responses an error event of their shapes.
func TestErrorEventShapes(t *testing.T) {
	for _, tc := range []struct {
		api  chat.API
		want string
	}{
		{chat.APIOpenAI, "data: {\"error\":{\"message\":\"boom\",\"type\":\"server_error\",\"param\":null,\"code\":\"idle_timeout\"}}\n\n"},
		{chat.APIAnthropic, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"timeout_error\",\"message\":\"boom\"}}\n\n"},
		{chat.APIResponses, "event: error\ndata: {\"type\":\"error\",\"code\":\"idle_timeout\",\"message\":\"boom\",\"param\":null}\n\n"},
	} {
		require.Equal(t, tc.want, string(appendErrorEvent(nil, tc.api, failIdleTimeout, "boom")), tc.api.String())
	}
}
