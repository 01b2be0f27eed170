package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readSSE(t *testing.T, name string) []byte {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sse", name))
	require.NoError(t, err)
	return b
}

func TestRewriteCommand(t *testing.T) {
	in := readSSE(t, "openai_chat.sse")
	code, stdout, stderr := runCmd(t, bytes.NewReader(in), "rewrite")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, `"tool_calls":[{"index":0,`)
	assert.Contains(t, stdout, `"finish_reason":"tool_calls"`)
	assert.True(t, strings.HasSuffix(stdout, "data: [DONE]\n\n"))
	assert.NotContains(t, stdout, "<tool_call>")

	dir := t.TempDir()
	f := filepath.Join(dir, "a.sse")
	require.NoError(t, os.WriteFile(f, readSSE(t, "anthropic_messages.sse"), 0o644))
	code, stdout, _ = runCmd(t, nil, "rewrite", "--api", "anthropic", f)
	require.Equal(t, exitOK, code)
	assert.Contains(t, stdout, `"type":"tool_use"`)
	assert.Contains(t, stdout, `"stop_reason":"tool_use"`)

	code, _, stderr = runCmd(t, nil, "rewrite", "--api", "gemini")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "Usage: toolsieve rewrite")
	code, _, _ = runCmd(t, nil, "rewrite", filepath.Join(dir, "missing.sse"))
	assert.Equal(t, exitIO, code)
}

func TestParseInputSSE(t *testing.T) {
	for _, kind := range []string{"sse", "auto"} {
		for _, name := range []string{"openai_chat.sse", "anthropic_messages.sse"} {
			code, stdout, stderr := runCmd(t, bytes.NewReader(readSSE(t, name)), "parse", "--input", kind, "--chunk", "3")
			require.Equal(t, exitOK, code, stderr)
			assert.Contains(t, stdout, `"type":"tool_call"`, name)
			assert.Contains(t, stdout, `"name":"get_weather"`, name)
		}
	}
	// auto reads text as text.
	code, stdout, _ := runCmd(t, strings.NewReader("\xEF\xBB\xBFHello <tool_call>get_time</tool_call>"), "parse", "--input", "auto")
	require.Equal(t, exitOK, code)
	assert.Contains(t, stdout, `"name":"get_time"`)
}

// lockedBuffer collects log output written from server goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestProxyCommand(t *testing.T) {
	const secret = "sk-cmd-SECRET-4242"
	stream := readSSE(t, "openai_chat.sse")
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.Header.Get("Authorization") != "Bearer "+secret {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(stream)
	}))
	defer up.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrs := make(chan net.Addr, 1)
	oldSignals, oldListening := proxySignals, proxyListening
	proxySignals = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	proxyListening = func(a net.Addr) { addrs <- a }
	defer func() { proxySignals, proxyListening = oldSignals, oldListening }()

	logs := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"proxy", "--listen", "127.0.0.1:0", "--upstream", up.URL + "/?key=" + secret}, strings.NewReader(""), io.Discard, logs)
	}()
	var addr net.Addr
	select {
	case addr = <-addrs:
	case code := <-done:
		t.Fatalf("proxy exited with %d: %s", code, logs.String())
	case <-time.After(5 * time.Second):
		t.Fatal("proxy did not start")
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr.String()+"/v1/chat/completions", strings.NewReader(`{"stream":true}`))
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("X-Api-Key", secret)
	resp, err := (&http.Client{Transport: tr}).Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.Contains(t, string(body), `"tool_calls":[{"index":0,`)

	cancel()
	select {
	case code := <-done:
		assert.Equal(t, exitOK, code)
	case <-time.After(15 * time.Second):
		t.Fatal("proxy did not stop")
	}
	out := logs.String()
	assert.Contains(t, out, "proxy listening")
	assert.Contains(t, out, "calls=1")
	assert.NotContains(t, out, "SECRET")
}

func TestProxyCommandUsage(t *testing.T) {
	for _, args := range [][]string{
		{"proxy"},
		{"proxy", "--upstream", "ftp://x"},
		{"proxy", "--upstream", "http://x", "--log-format", "xml"},
		{"proxy", "--upstream", "http://x", "extra"},
	} {
		code, _, stderr := runCmd(t, nil, args...)
		assert.Equal(t, exitUsage, code, args)
		assert.Contains(t, stderr, "Usage: toolsieve proxy", args)
	}
	code, _, _ := runCmd(t, nil, "proxy", "--upstream", "http://x", "--listen", "256.0.0.1:99999")
	assert.Equal(t, exitIO, code)
}

// TestProxyCommandClientTimeout: the listener closes connections that are
// idle between requests, or that send their request too slowly, after
// --client-timeout; nothing of a slow request goes upstream.
func TestProxyCommandClientTimeout(t *testing.T) {
	var requests atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		io.Copy(io.Discard, r.Body)
	}))
	defer up.Close()
	addr, stop := startProxyCmd(t, io.Discard, "--upstream", up.URL, "--client-timeout", "300ms")
	const n = 50
	start := time.Now()
	var wg sync.WaitGroup
	closed := make(chan time.Duration, 2*n)
	for i := range 2 * n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			if i%2 == 0 { // a kept-alive connection, idle after one request
				fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
			} else { // a body that never comes whole
				fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"model\":")
			}
			c.SetReadDeadline(time.Now().Add(time.Minute))
			io.Copy(io.Discard, c) // until the proxy closes the connection
			closed <- time.Since(start)
		}()
	}
	wg.Wait()
	close(closed)
	var last time.Duration
	for d := range closed {
		last = max(last, d)
	}
	assert.Less(t, last, 30*time.Second, "connections still open (the timeout is 300ms; a loaded machine takes seconds at most)")
	assert.Zero(t, requests.Load())
	assert.Equal(t, exitOK, stop())
}

func TestProxyCommandLimitsUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--memory-budget", "0"}, `bad size "0"`},
		{[]string{"--memory-budget", "12XB"}, `bad size "12XB"`},
		{[]string{"--max-request-body", "-1"}, `bad size "-1"`},
		{[]string{"--client-timeout", "0s"}, "bad --client-timeout value 0s"},
		{[]string{"--header-timeout", "0s"}, "bad --header-timeout value 0s"},
		{[]string{"--idle-timeout", "-1s"}, "bad --idle-timeout value -1s"},
	} {
		code, _, stderr := runCmd(t, nil, append([]string{"proxy", "--upstream", "http://x"}, tc.args...)...)
		assert.Equal(t, exitUsage, code, tc.args)
		assert.Contains(t, stderr, tc.want, tc.args)
	}
	var b byteSize
	for in, want := range map[string]int64{"512": 512, "64KiB": 64 << 10, "256MiB": 256 << 20, "1GiB": 1 << 30, "2MB": 2e6, "3 KB": 3000} {
		require.NoError(t, b.Set(in), in)
		assert.EqualValues(t, want, b, in)
	}
}

// TestProxyCommandOpenListen: listening beyond loopback is logged as a
// warning; with credentials in --upstream the proxy refuses to start
// unless --client-keys-file names the keys, which every request must then
// present (and which never reach the log).
func TestProxyCommandOpenListen(t *testing.T) {
	var auth atomic.Value
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		auth.Store(r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":[]}`)
	}))
	defer up.Close()
	withCreds := strings.Replace(up.URL, "http://", "http://op:op-PASS-77@", 1)
	for _, tc := range []struct{ upstream, listen string }{
		{withCreds, "0.0.0.0:0"},
		{withCreds, ":0"},
		{up.URL + "/?api_key=k", "[::]:0"},
	} {
		code, _, stderr := runCmd(t, nil, "proxy", "--upstream", tc.upstream, "--listen", tc.listen)
		require.Equal(t, exitUsage, code, tc)
		require.Contains(t, stderr, "--upstream holds credentials and --listen "+tc.listen+" is not a loopback address", tc)
		require.NotContains(t, stderr, "op-PASS")
	}
	for in, want := range map[string]bool{"127.0.0.1:80": true, "[::1]:80": true, "localhost:8080": true, "0.0.0.0:80": false, ":80": false, "192.168.1.2:80": false, "[::]:80": false, "proxy.internal:80": false} {
		require.Equal(t, want, loopback(in), in)
	}

	// Open, without credentials: a warning.
	logs := &lockedBuffer{}
	_, stop := startProxyCmd(t, logs, "--upstream", up.URL, "--listen", "0.0.0.0:0")
	require.Equal(t, exitOK, stop())
	require.Contains(t, logs.String(), "level=WARN msg=\"listening on an address other than loopback: anyone who can reach it can use the proxy\"")

	// Open, with credentials and client keys: starts; requests need a key.
	keys := filepath.Join(t.TempDir(), "keys")
	require.NoError(t, os.WriteFile(keys, []byte("# agents\nck-agent-SECRET-1\n"), 0o600))
	logs = &lockedBuffer{}
	addr, stop := startProxyCmd(t, logs, "--upstream", withCreds, "--listen", "0.0.0.0:0", "--client-keys-file", keys)
	_, port, _ := net.SplitHostPort(addr)
	url := "http://127.0.0.1:" + port + "/v1/models"
	resp, err := http.Get(url)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer ck-agent-SECRET-1")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "Basic b3A6b3AtUEFTUy03Nw==", auth.Load(), "the operator's credentials, not the client's key")
	require.Equal(t, exitOK, stop())
	require.Contains(t, logs.String(), "client_keys=1")
	require.NotContains(t, logs.String(), "SECRET")
	require.NotContains(t, logs.String(), "op-PASS")

	code, _, stderr := runCmd(t, nil, "proxy", "--upstream", up.URL, "--client-keys-file", filepath.Join(t.TempDir(), "none"))
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "--client-keys-file:")
}
