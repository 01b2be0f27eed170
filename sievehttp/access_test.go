package sievehttp

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// rawRequest sends a request line, headers and body as written (no client
// cleans or escapes them) and returns the response and its body.
func rawRequest(t *testing.T, addr, method, target string, hdr map[string]string, body string) (*http.Response, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n", method, target, len(body))
	for k, v := range hdr {
		fmt.Fprintf(c, "%s: %s\r\n", k, v)
	}
	fmt.Fprintf(c, "\r\n%s", body)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// TestProxyRefusesClimbingPaths: a path with a ".." segment, raw or
// escaped (once, twice, with backslashes, %2f, "..;"), gets 400 in the
// API's error shape and nothing goes upstream; ".." inside a segment is
// fine.
func TestProxyRefusesClimbingPaths(t *testing.T) {
	chattest.NoLeaks(t)
	up := newScripted(t, func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) })
	env := newHardEnv(t, up, nil, nil)
	addr := strings.TrimPrefix(env.srv.URL, "http://")
	for _, p := range []string{
		"/v1/../admin", "/../v1/chat/completions", "/v1/%2e%2e/admin", "/v1/%2E%2e/admin", "/v1/.%2e/x", "/v1/%2e./x",
		"/v1/%252e%252e/x", "/v1/%25252e%25252e/x", "/v1/..%2fx", "/v1/..%2Fx", "/v1/..%5cx", "/v1/..\\x",
		"/v1/..;/x", "/v1/messages/..", "/v1/x/%2e%2e%2f%2e%2e%2fsecret",
	} {
		resp, body := rawRequest(t, addr, http.MethodPost, p, nil, "{}")
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, p)
		api := chat.APIOpenAI
		if strings.Contains(p, "/messages/") {
			api = chat.APIAnthropic
		}
		requireErrorBody(t, api, []byte(body), "invalid_request_error", "invalid_request_error", "bad_path")
	}
	require.Zero(t, up.requests.Load())
	for _, p := range []string{"/v1/models/a..b", "/v1/.../x", "/v1/x..", "/v1/..x"} {
		resp, _ := rawRequest(t, addr, http.MethodGet, p, nil, "")
		require.Equal(t, http.StatusOK, resp.StatusCode, p)
	}
	require.EqualValues(t, 4, up.requests.Load())
	require.Contains(t, env.logs.String(), "failure=bad_path")
}

// TestProxyRefusesMethods: CONNECT (which would go upstream as
// "CONNECT /") and TRACE (which would echo the credentials the proxy
// adds) get 405 with Allow; nothing goes upstream.
func TestProxyRefusesMethods(t *testing.T) {
	chattest.NoLeaks(t)
	up := newScripted(t, func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) })
	env := newHardEnv(t, up, nil, nil)
	addr := strings.TrimPrefix(env.srv.URL, "http://")
	for _, tc := range [][2]string{{http.MethodConnect, "api.example.com:443"}, {http.MethodTrace, "/v1/models"}, {http.MethodConnect, "/v1/chat/completions"}} {
		resp, body := rawRequest(t, addr, tc[0], tc[1], nil, "")
		require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode, tc)
		require.Equal(t, allowedMethods, resp.Header.Get("Allow"))
		requireErrorBody(t, chat.APIOpenAI, []byte(body), "invalid_request_error", "", "bad_method")
		require.Contains(t, body, "method "+tc[0]+" is not forwarded")
	}
	require.Zero(t, up.requests.Load())
}

// TestProxyClientKeys: with client keys, every request but GET /healthz
// presents one (401 in the API's shape otherwise, with WWW-Authenticate).
// A key in Authorization or x-api-key is the proxy's: removed, and the
// upstream gets the operator's credentials; a key in X-Toolsieve-Key
// leaves the client's own headers. Keys never reach the log.
func TestProxyClientKeys(t *testing.T) {
	chattest.NoLeaks(t)
	seen := make(chan http.Header, 8)
	up := newScripted(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		seen <- r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		w.Write(chattest.OpenAIDoc("Hi"))
	})
	keys, err := NewClientKeys([]string{"ck-first-KEY-111", "ck-second-KEY-222"})
	require.NoError(t, err)
	env := newHardEnv(t, up, nil, func(p *Proxy) {
		p.ClientKeys = keys
		u, _ := url.Parse(up.srv.URL)
		u.User = url.UserPassword("operator", "op-PASSWORD-999")
		p.Upstream = u
	})
	do := func(path string, hdr ...string) (*http.Response, []byte) {
		resp, body, err := env.doBody(t, path, strings.NewReader(`{"model":"m","messages":[]}`), hdr...)
		require.NoError(t, err)
		return resp, body
	}
	for _, hdr := range [][]string{nil, {"Authorization", "Bearer wrong"}, {"X-Api-Key", "ck-first-KEY-11"}, {HeaderKey, "ck-first-KEY-1111"}, {"Authorization", "ck-first-KEY-111"}} {
		resp, body := do("/v1/chat/completions", hdr...)
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, hdr)
		require.Equal(t, `Bearer realm="toolsieve"`, resp.Header.Get("WWW-Authenticate"))
		requireErrorBody(t, chat.APIOpenAI, body, "invalid_request_error", "", "unauthorized")
	}
	resp, body := do("/v1/messages")
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	requireErrorBody(t, chat.APIAnthropic, body, "", "authentication_error", "")
	require.Zero(t, up.requests.Load())

	basic := "Basic " + "b3BlcmF0b3I6b3AtUEFTU1dPUkQtOTk5" // operator:op-PASSWORD-999
	resp, _ = do("/v1/chat/completions", "Authorization", "Bearer ck-second-KEY-222")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, basic, (<-seen).Get("Authorization"), "the key is the proxy's: the operator's credentials go upstream")
	resp, _ = do("/v1/chat/completions", "X-Api-Key", "ck-first-KEY-111")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	h := <-seen
	require.Empty(t, h.Get("X-Api-Key"))
	require.Equal(t, basic, h.Get("Authorization"))
	resp, _ = do("/v1/chat/completions", HeaderKey, "ck-first-KEY-111", "Authorization", "Bearer sk-clients-own")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	h = <-seen
	require.Equal(t, "Bearer sk-clients-own", h.Get("Authorization"))
	require.Empty(t, h.Get(HeaderKey))

	// Health needs no key; metrics do.
	hc := chattest.LoopbackClient(t, nil)
	r, err := hc.Get(env.srv.URL + "/healthz")
	require.NoError(t, err)
	r.Body.Close()
	require.Equal(t, http.StatusOK, r.StatusCode)
	r, err = hc.Get(env.srv.URL + "/metrics")
	require.NoError(t, err)
	r.Body.Close()
	require.Equal(t, http.StatusUnauthorized, r.StatusCode)
	req, _ := http.NewRequest(http.MethodGet, env.srv.URL+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer ck-first-KEY-111")
	r, err = hc.Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	require.Contains(t, string(b), `toolsieve_requests_total{api="openai",model="other",code="401"} 5`)

	logs := env.logs.String()
	require.Contains(t, logs, "failure=unauthorized")
	require.NotContains(t, logs, "ck-first")
	require.NotContains(t, logs, "ck-second")
	require.NotContains(t, logs, "PASSWORD")
	require.NotContains(t, logs, "sk-clients-own")
}

// TestClientKeysFile: the keys file format, and what is refused.
func TestClientKeysFile(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := dir + "/keys"
		require.NoError(t, os.WriteFile(p, []byte(s), 0o600))
		return p
	}
	k, err := LoadClientKeys(write("# clients\nkey-one\n\n  key-two  \n# gone\n"))
	require.NoError(t, err)
	require.Equal(t, 2, k.Len())
	require.True(t, k.match("key-two"))
	require.False(t, k.match("key-tw"))
	require.False(t, k.match(""))
	_, err = LoadClientKeys(write("# nothing\n\n"))
	require.ErrorContains(t, err, "no client key")
	_, err = LoadClientKeys(dir + "/missing")
	require.Error(t, err)
	_, err = NewClientKeys([]string{"a b"})
	require.Error(t, err)
	require.Zero(t, (*ClientKeys)(nil).Len())
}

// TestErrorsNameNoAddress: the proxy's error answers and events say what
// failed, never where: no IP, port or host of the upstream, the proxy or
// the client (the log keeps the whole cause).
func TestErrorsNameNoAddress(t *testing.T) {
	chattest.NoLeaks(t)
	// An upstream that refuses connections.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := ln.Addr().String()
	ln.Close()
	u, _ := url.Parse("http://" + dead)
	p := NewProxy(u, toolsieve.Options{})
	logs := &chattest.SyncBuffer{}
	p.Logger = slog.New(slog.NewTextHandler(logs, nil))
	srv := httptest.NewUnstartedServer(p)
	srv.Config.ReadTimeout = 300 * time.Millisecond // a client that stalls in its body
	srv.Start()
	t.Cleanup(srv.Close)
	addr := strings.TrimPrefix(srv.URL, "http://")
	_, port, _ := net.SplitHostPort(dead)
	_, myPort, _ := net.SplitHostPort(addr)

	for _, path := range []string{"/v1/chat/completions", "/v1/messages", "/v1/models"} {
		resp, body := rawRequest(t, addr, http.MethodPost, path, map[string]string{"Content-Type": "application/json"}, `{"model":"m","stream":true}`)
		require.Equal(t, http.StatusBadGateway, resp.StatusCode, path)
		require.Contains(t, body, "connection refused", path)
		for _, s := range []string{"127.0.0.1", port, myPort, "tcp"} {
			require.NotContains(t, body, s, path)
		}
	}
	require.Contains(t, logs.String(), dead, "the log has the cause")

	// The client stalls in its body: bad_body, without the proxy's or the
	// client's address.
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"model\":")
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, string(b), "i/o timeout")
	require.NotContains(t, string(b), "127.0.0.1")
	require.NotContains(t, string(b), myPort)

	for _, tc := range [][2]string{
		{"dial tcp 10.1.2.3:443: connect: connection refused", "dial tcp [address]: connect: connection refused"},
		{"read tcp 127.0.0.1:8080->127.0.0.1:51234: i/o timeout", "read tcp [address]->[address]: i/o timeout"},
		{"dial tcp [::1]:8443: connect: connection refused", "dial tcp [address]: connect: connection refused"},
		{"dial tcp [fe80::1%eth0]:443: no route", "dial tcp [address]: no route"},
		{"lookup internal.corp:443 failed", "lookup [address] failed"},
		{"sse: event at offset 10 is 20 bytes", "sse: event at offset 10 is 20 bytes"},
	} {
		require.Equal(t, tc[1], scrubAddresses(tc[0]))
	}
}
