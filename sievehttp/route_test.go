package sievehttp

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// routeEnv is a proxy in front of three scripted upstreams: a and b named
// by rules, c the default (the proxy's Upstream).
type routeEnv struct {
	a, b, c *polUpstream
	env     *polEnv
	p       *Proxy
}

func newRouteEnv(t *testing.T, keys map[string]string) *routeEnv {
	a, b, c := newPolUpstream(t, polGood), newPolUpstream(t, polGood), newPolUpstream(t, "plain answer")
	pol, err := ParsePolicy([]byte(`{"rules": [
		{"model": "alpha-*", "name": "alpha", "upstream": {"url": "` + a.srv.URL + `", "name": "up-a", "key_env": "ROUTE_KEY_A"}},
		{"model": "beta-*", "upstream": {"url": "` + b.srv.URL + `/"}, "reasoning": "keep"}
	]}`))
	require.NoError(t, err)
	require.NoError(t, pol.LoadKeys(func(k string) (string, bool) { v, ok := keys[k]; return v, ok }))
	u, _ := url.Parse(c.srv.URL)
	p := NewProxy(u, toolsieve.Options{IDPrefix: "t_"})
	p.Policy, p.Metrics = pol, NewMetrics()
	logs := &chattest.SyncBuffer{}
	p.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	ps := httptest.NewServer(p)
	t.Cleanup(ps.Close)
	return &routeEnv{a: a, b: b, c: c, p: p,
		env: &polEnv{up: c, proxy: ps, metrics: p.Metrics, logs: logs, client: chattest.LoopbackClient(t, nil)}}
}

// TestRouteByModel: each request goes to the upstream of the rule its
// model matches, with that upstream's key in place of the client's (or
// the client's own when it names none), and comes back rewritten.
func TestRouteByModel(t *testing.T) {
	chattest.NoLeaks(t)
	r := newRouteEnv(t, map[string]string{"ROUTE_KEY_A": " key-a\n"})
	for _, api := range []chat.API{chat.APIOpenAI, chat.APIAnthropic} {
		for _, stream := range []bool{false, true} {
			got := r.env.sendAs(t, "alpha-2", api, stream, "x")
			require.Equal(t, http.StatusOK, got.resp.StatusCode)
			require.Len(t, got.got.Calls, 1, "alpha's answer rewritten")
			require.Equal(t, "read_file", got.got.Calls[0].Name)
			got = r.env.sendAs(t, "beta-1", api, stream, "x")
			require.Len(t, got.got.Calls, 1, "beta's answer rewritten")
			got = r.env.sendAs(t, "gamma", api, stream, "x")
			require.Empty(t, got.got.Calls)
			require.Equal(t, "plain answer", got.got.Text)
		}
	}
	require.Equal(t, 4, r.a.requests())
	require.Equal(t, 4, r.b.requests())
	require.Equal(t, 4, r.c.requests())
	for _, h := range r.a.headers { // in the client's style: Authorization
		require.Equal(t, "Bearer key-a", h.Get("Authorization"), "the proxy's key replaces the client's")
		require.Empty(t, h.Get("X-Api-Key"))
	}
	for _, h := range append(r.b.headers, r.c.headers...) {
		require.Equal(t, "Bearer sk-test", h.Get("Authorization"), "without a key of its own, the client's is forwarded")
	}
	m := scrape(t, r.env.client, r.env.proxy.URL)
	require.EqualValues(t, 2, m[`toolsieve_requests_total{api="openai",model="alpha",code="200"}`])
	require.EqualValues(t, 2, m[`toolsieve_requests_total{api="anthropic",model="beta-*",code="200"}`])
	require.EqualValues(t, 2, m[`toolsieve_requests_total{api="openai",model="other",code="200"}`])
	require.EqualValues(t, 4, m[`toolsieve_recovered_calls_total{dialect="dsml",model="alpha"}`])
	logs := r.env.logs.String()
	require.Contains(t, logs, `"upstream":"up-a"`)
	require.NotContains(t, logs, "key-a")
	require.NotContains(t, logs, `"duration":`, "durations are in seconds")
	require.Contains(t, logs, `"duration_seconds":`)
}

// TestRoutePeekModel: a request that is not a chat request (token
// counting) goes to the upstream of its model's rule too.
func TestRoutePeekModel(t *testing.T) {
	chattest.NoLeaks(t)
	r := newRouteEnv(t, map[string]string{"ROUTE_KEY_A": "key-a"})
	resp, err := r.env.client.Post(r.env.proxy.URL+"/v1/messages/count_tokens", "application/json",
		strings.NewReader(`{"model":"beta-7","messages":[]}`))
	require.NoError(t, err)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.Equal(t, 1, r.b.requests())
	require.Equal(t, `{"model":"beta-7","messages":[]}`, r.b.bodies[0], "the body goes on unchanged")
	require.Zero(t, r.c.requests())
}

// TestRouteKeys: a rule's key variable that is not set is an error naming
// it; a key file is read.
func TestRouteKeys(t *testing.T) {
	pol, err := ParsePolicy([]byte(`{"rules": [{"model": "a*", "upstream": {"url": "https://api.deepseek.com", "key_env": "NOPE_KEY"}}]}`))
	require.NoError(t, err)
	err = pol.LoadKeys(func(string) (string, bool) { return "", false })
	require.ErrorContains(t, err, "NOPE_KEY")
	_, err = ParsePolicy([]byte(`{"rules": [{"model": "a*", "upstream": {"url": "ftp://x"}}]}`))
	require.ErrorContains(t, err, "upstream url")
	_, err = ParsePolicy([]byte(`{"rules": [{"model": "a*", "reasoning": "drop"}]}`))
	require.ErrorContains(t, err, "reasoning")
}

// TestRouteFamilyByHost: a claude-* name sent to DeepSeek's Anthropic
// endpoint gets DeepSeek's built-in rule and label.
func TestRouteFamilyByHost(t *testing.T) {
	pol, err := ParsePolicy([]byte(`{"rules": [{"model": "claude-*", "upstream": {"url": "https://api.deepseek.com/anthropic"}}]}`))
	require.NoError(t, err)
	fam, byHost := pol.Family("claude-sonnet-4-5", nil)
	require.Equal(t, "deepseek", fam)
	require.True(t, byHost)
	s, err := pol.Resolve("claude-sonnet-4-5", nil)
	require.NoError(t, err)
	require.Contains(t, s.From, "builtin:deepseek")
	require.Equal(t, "claude-*", pol.ModelLabel("claude-opus-4-1", nil))
	require.Equal(t, "qwen", (&Policy{}).ModelLabel("claude-x", &url.URL{Scheme: "https", Host: "dashscope-intl.aliyuncs.com"}))
	require.Equal(t, LabelOther, (&Policy{}).ModelLabel("my-own-model", nil))
}

// TestReadyz: /readyz probes every upstream and is ready while one answers.
func TestReadyz(t *testing.T) {
	chattest.NoLeaks(t)
	r := newRouteEnv(t, map[string]string{"ROUTE_KEY_A": "key-a"})
	r.p.ReadyCache = -1
	get := func() (int, readyAnswer) {
		resp, err := r.env.client.Get(r.env.proxy.URL + "/readyz")
		require.NoError(t, err)
		defer resp.Body.Close()
		var out readyAnswer
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		return resp.StatusCode, out
	}
	code, out := get()
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "ready", out.Status)
	require.Len(t, out.Upstreams, 3)
	for _, u := range out.Upstreams {
		require.Equal(t, UpstreamOK, u.State, u.Name)
	}
	require.Equal(t, 1, r.a.requests())
	require.Equal(t, "Bearer key-a", r.a.headers[0].Get("Authorization"), "probed with its key")
	r.a.srv.Close()
	r.c.srv.Close()
	code, out = get()
	require.Equal(t, http.StatusOK, code, "b still answers")
	states := map[string]string{}
	for _, u := range out.Upstreams {
		states[u.Name] = u.State
	}
	require.Equal(t, UpstreamUnreachable, states["up-a"])
	r.b.srv.Close()
	code, out = get()
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Equal(t, "not_ready", out.Status)
}

type readyAnswer struct {
	Status    string           `json:"status"`
	Upstreams []UpstreamHealth `json:"upstreams"`
}

// TestReasoningKeep: a rule with "reasoning": "keep" leaves <think> in
// the content; others split it into the API's reasoning field.
func TestReasoningKeep(t *testing.T) {
	chattest.NoLeaks(t)
	pol, err := ParsePolicy([]byte(`{"builtin": false, "rules": [{"model": "keep-*", "reasoning": "keep"}]}`))
	require.NoError(t, err)
	env := newPolEnv(t, pol, "<think>plan it</think>The answer.")
	for _, api := range []chat.API{chat.APIOpenAI, chat.APIAnthropic} {
		for _, stream := range []bool{false, true} {
			got := env.sendAs(t, "keep-1", api, stream, "x")
			require.Equal(t, "<think>plan it</think>The answer.", got.got.Text, "%s stream %v", api, stream)
			require.Empty(t, got.got.Reasoning)
			got = env.sendAs(t, "split-1", api, stream, "x")
			require.Equal(t, "The answer.", got.got.Text, "%s stream %v", api, stream)
			require.Equal(t, "plan it", got.got.Reasoning)
		}
	}
}

// TestPolicyExampleFile: the policy of deploy/compose.yaml is valid and
// routes as its comments say.
func TestPolicyExampleFile(t *testing.T) {
	pol, err := LoadPolicy("../deploy/policy.example.json")
	require.NoError(t, err)
	s, err := pol.Resolve("claude-sonnet-4-5", nil)
	require.NoError(t, err)
	require.Equal(t, "https://api.deepseek.com/anthropic", s.Upstream.URL)
	require.Contains(t, s.From, "builtin:deepseek")
	s, _ = pol.Resolve("gpt-oss:20b", nil)
	require.True(t, s.KeepReasoning)
	require.Equal(t, "ollama", s.Upstream.DisplayName())
}
