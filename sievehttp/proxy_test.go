package sievehttp

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// TestProxyPassThrough: non-chat requests go to upstream + path unchanged,
// with method, query, headers and body; the response comes back as it was.
func TestProxyPassThrough(t *testing.T) {
	chattest.NoLeaks(t)
	var seen *http.Request
	var seenBody string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r.Clone(r.Context())
		b, _ := io.ReadAll(r.Body)
		seenBody = string(b)
		w.Header().Set("X-Upstream", "yes")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTeapot)
		io.WriteString(w, `{"data":[{"id":"m1"}]}`)
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL + "/base")
	ps := httptest.NewServer(NewProxy(u, toolsieve.Options{}))
	defer ps.Close()
	client := chattest.LoopbackClient(t, nil)
	req, _ := http.NewRequest(http.MethodPut, ps.URL+"/v1/models/a%2Fb?x=1", strings.NewReader("hello"))
	req.Header.Set("Authorization", "Bearer sk-abc")
	resp, err := client.Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusTeapot, resp.StatusCode)
	require.Equal(t, `{"data":[{"id":"m1"}]}`, string(b))
	require.Equal(t, "yes", resp.Header.Get("X-Upstream"))
	require.Equal(t, http.MethodPut, seen.Method)
	require.Equal(t, "/base/v1/models/a%2Fb", seen.URL.EscapedPath())
	require.Equal(t, "x=1", seen.URL.RawQuery)
	require.Equal(t, "Bearer sk-abc", seen.Header.Get("Authorization"))
	require.Equal(t, "hello", seenBody)
}

// TestProxyLogsNoSecrets: logs never hold Authorization, x-api-key or keys
// in the query, on success or on upstream failure.
func TestProxyLogsNoSecrets(t *testing.T) {
	chattest.NoLeaks(t)
	env := newE2E(t)
	client := chattest.LoopbackClient(t, nil)
	const bearer, xkey, qkey = "sk-SECRET-bearer-111", "SECRET-xkey-222", "SECRET-query-333"
	send := func(base, path, body string) {
		req, _ := http.NewRequest(http.MethodPost, base+path+"?key="+qkey, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+bearer)
		req.Header.Set("X-Api-Key", xkey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		require.NoError(t, err)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	body := `{"model":"echo","stream":true,"messages":[{"role":"user","content":"<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>"}]}`
	send(env.proxy.URL, "/v1/chat/completions", body)
	send(env.proxy.URL, "/v1/messages", body)
	send(env.proxy.URL, "/v1/models", "")
	// An upstream that refuses connections: the error path logs too.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead, _ := url.Parse("http://" + qkey + ":" + bearer + "@" + l.Addr().String() + "/?key=" + qkey)
	l.Close()
	logs := &chattest.SyncBuffer{}
	p := NewProxy(dead, toolsieve.Options{})
	p.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ps := httptest.NewServer(p)
	defer ps.Close()
	send(ps.URL, "/v1/chat/completions", body)
	all := env.logs.String() + logs.String()
	require.Contains(t, env.logs.String(), "calls=1")
	require.Contains(t, logs.String(), `"status":502`)
	for _, secret := range []string{bearer, xkey, qkey, "SECRET"} {
		require.NotContains(t, all, secret)
	}
	require.Equal(t, "http://127.0.0.1:1/p", redactURL(&url.URL{Scheme: "http", User: url.UserPassword("u", "SECRET"), Host: "127.0.0.1:1", Path: "/p", RawQuery: "key=SECRET"}))
}

// TestProxyToolsFromRequest: tools declared in the request enable the
// dialects that need them (here a bare JSON call).
func TestProxyToolsFromRequest(t *testing.T) {
	chattest.NoLeaks(t)
	env := newE2E(t)
	client := chattest.LoopbackClient(t, nil)
	content := `Running it.\n{\"tool\": \"shell\", \"args\": {\"command\": \"echo test\"}}`
	tools := `"tools":[{"type":"function","function":{"name":"shell","parameters":{"type":"object","properties":{"command":{"type":"string"}}}}}]`
	with := chattest.Post(t, client, env.proxy.URL+"/v1/chat/completions", `{"model":"echo",`+tools+`,"messages":[{"role":"user","content":"`+content+`"}]}`)
	require.Contains(t, string(with), `"tool_calls":[{"id":`)
	require.Contains(t, string(with), `"name":"shell"`)
	without := chattest.Post(t, client, env.proxy.URL+"/v1/chat/completions", `{"model":"echo","messages":[{"role":"user","content":"`+content+`"}]}`)
	require.NotContains(t, string(without), `"tool_calls"`)
}
