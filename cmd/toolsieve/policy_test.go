package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startProxyCmd runs the proxy command in-process and returns its address
// and a function that stops it and returns its exit status.
func startProxyCmd(t *testing.T, logs io.Writer, args ...string) (addr string, stop func() int) {
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan net.Addr, 1)
	oldSignals, oldListening := proxySignals, proxyListening
	proxySignals = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	proxyListening = func(a net.Addr) { addrs <- a }
	done := make(chan int, 1)
	go func() {
		done <- run(append([]string{"proxy", "--listen", "127.0.0.1:0"}, args...), strings.NewReader(""), io.Discard, logs)
	}()
	select {
	case a := <-addrs:
		addr = a.String()
	case code := <-done:
		t.Fatalf("proxy exited with %d", code)
	case <-time.After(5 * time.Second):
		t.Fatal("proxy did not start")
	}
	return addr, func() int {
		defer func() { proxySignals, proxyListening = oldSignals, oldListening }()
		cancel()
		select {
		case code := <-done:
			return code
		case <-time.After(15 * time.Second):
			t.Fatal("proxy did not stop")
		}
		return -1
	}
}

// TestProxyCommandPolicy: --policy, the global default flags and
// --metrics: a runaway answer is retried and the metrics say so.
func TestProxyCommandPolicy(t *testing.T) {
	loop := strings.Repeat("<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>\n", 8)
	good := "<tool_call>\n<function=read_file>\n<parameter=path>\nmain.go\n</parameter>\n</function>\n</tool_call>"
	var n atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		content := good
		if n.Add(1) == 1 {
			content = loop
		}
		b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0,
			"message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}}})
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}))
	defer up.Close()
	dir := t.TempDir()
	pf := filepath.Join(dir, "p.json")
	require.NoError(t, os.WriteFile(pf, []byte(`{"rules":[{"model":"local-*","dialects":["qwen3_coder"]}]}`), 0o644))

	logs := &lockedBuffer{}
	addr, stop := startProxyCmd(t, logs, "--upstream", up.URL, "--policy", pf, "--retries", "1", "--backoff", "1ms", "--metrics")
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	resp, err := c.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"local-7","messages":[]}`))
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, "1", resp.Header.Get("X-Toolsieve-Retries"))
	assert.Contains(t, string(body), `"name":"read_file"`)
	assert.EqualValues(t, 2, n.Load())

	resp, err = c.Get("http://" + addr + "/metrics")
	require.NoError(t, err)
	m, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(m), `toolsieve_retries_total{reason="runaway",model="local-*"} 1`)
	assert.Contains(t, string(m), `toolsieve_recovered_calls_total{dialect="qwen3_coder",model="local-*"} 1`)
	assert.Equal(t, exitOK, stop())
	assert.Contains(t, logs.String(), `level=WARN msg="--retries 1 does not apply to models matching \"*deepseek*\"`)
	assert.Contains(t, logs.String(), "retries=1 retry_reasons=runaway")
	assert.Contains(t, logs.String(), "policy=rule:local-*,global")
}

func TestProxyCommandExplain(t *testing.T) {
	code, stdout, stderr := runCmd(t, nil, "proxy", "--policy", filepath.Join("..", "..", "testdata", "policy", "example.json"), "--explain", "deepseek-reasoner")
	require.Equal(t, exitOK, code, stderr)
	var got struct {
		Mode      string   `json:"mode"`
		Retries   int      `json:"retries"`
		HoldText  bool     `json:"hold_text"`
		DecidedBy []string `json:"decided_by"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	assert.Equal(t, "strict", got.Mode)
	assert.Equal(t, 3, got.Retries)
	assert.True(t, got.HoldText)
	assert.Equal(t, []string{"deepseek-reasoner", "builtin:deepseek", "global", "defaults"}, got.DecidedBy)

	assert.Contains(t, stdout, `"retry_feedback": false`)

	code, stdout, stderr = runCmd(t, nil, "proxy", "--mode", "strict", "--no-builtin", "--dialects", "dsml,hermes", "--retry-feedback", "--explain", "deepseek-chat")
	require.Equal(t, exitOK, code)
	assert.Contains(t, stdout, `"retry_feedback": true`)
	assert.Contains(t, stdout, `"mode": "strict"`)
	assert.Contains(t, stdout, `"dsml",`)
	assert.Contains(t, stdout, `"stream_calls": false`, "strict: calls go out when complete")
	assert.Empty(t, stderr)

	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, `"stream_calls": true`}, // lenient by default
		{[]string{"--stream-calls=false"}, `"stream_calls": false`},
		{[]string{"--mode", "strict", "--stream-calls"}, `"stream_calls": true`},
	} {
		code, stdout, stderr = runCmd(t, nil, append(append([]string{"proxy", "--no-builtin"}, tc.args...), "--explain", "m")...)
		require.Equal(t, exitOK, code, stderr)
		assert.Contains(t, stdout, tc.want, "%v", tc.args)
	}
}

// TestProxyCommandOutranked: a command-line mode or retry budget that a
// built-in family rule overrides is warned about, with what to do; one
// "defaults" layer ends decided_by; the timeouts are shown.
func TestProxyCommandOutranked(t *testing.T) {
	code, stdout, stderr := runCmd(t, nil, "proxy", "--mode", "strict", "--retries", "0", "--idle-timeout", "90s", "--explain", "deepseek-chat")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, `toolsieve proxy: warning: --mode strict does not apply to models matching "*deepseek*": the built-in rule deepseek sets mode lenient`)
	assert.Contains(t, stderr, `add a policy rule {"model": "*deepseek*", "mode": "strict"} or use --no-builtin`)
	assert.Contains(t, stderr, `--retries 0 does not apply to models matching "*deepseek*"`)
	assert.NotContains(t, stderr, "qwen", "only the rules that match the model")
	var got struct {
		Mode            string   `json:"mode"`
		DecidedBy       []string `json:"decided_by"`
		HeaderTimeout   string   `json:"header_timeout"`
		IdleTimeout     string   `json:"idle_timeout"`
		ResponseTimeout string   `json:"response_timeout"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	assert.Equal(t, "lenient", got.Mode)
	assert.Equal(t, []string{"builtin:deepseek", "global", "defaults"}, got.DecidedBy)
	assert.Equal(t, []string{"2m0s", "1m30s", "10m0s"}, []string{got.HeaderTimeout, got.IdleTimeout, got.ResponseTimeout})

	code, _, stderr = runCmd(t, nil, "proxy", "--mode", "lenient", "--explain", "deepseek-chat")
	require.Equal(t, exitOK, code)
	assert.Empty(t, stderr, "the built-in rule agrees")
	code, _, stderr = runCmd(t, nil, "proxy", "--retries", "1", "--explain", "glm-4.6")
	require.Equal(t, exitOK, code)
	assert.Contains(t, stderr, `--retries 1 does not apply to models matching "*glm*": the built-in rule glm sets retries 2`)
}

func TestProxyCommandPolicyUsage(t *testing.T) {
	for _, args := range [][]string{
		{"proxy", "--upstream", "http://x", "--mode", "paranoid"},
		{"proxy", "--upstream", "http://x", "--retries", "11"},
		{"proxy", "--upstream", "http://x", "--dialects", "dsml,nope"},
		{"proxy", "--upstream", "http://x", "--backoff", "0s"},
		{"proxy", "--upstream", "http://x", "--policy", "missing.json"},
		{"proxy", "--upstream", "http://x", "--retries", "x"},
	} {
		code, _, stderr := runCmd(t, nil, args...)
		assert.Equal(t, exitUsage, code, args)
		assert.Contains(t, stderr, "Usage: toolsieve proxy", args)
	}
}

func TestDemoProxyScenarios(t *testing.T) {
	code, stdout, stderr := runCmd(t, nil, "demo", "proxy_retry", "history_clean")
	require.Equal(t, exitOK, code, stderr)
	secs := demoSections(t, strings.TrimSuffix(stdout, "\n"))
	retry := secs["proxy_retry"]
	assert.Contains(t, retry, "2 upstream requests; X-Toolsieve-Retries: 1")
	assert.Contains(t, retry, "cut at the runaway")
	assert.Contains(t, retry, "call get_weather {\"city\":\"杭州\",\"days\":3}")
	assert.Contains(t, retry, "nothing of the loop reached the client: true")
	hist := secs["history_clean"]
	assert.Contains(t, hist, "(id call_hz_01)")
	assert.Contains(t, hist, "(id call_sh_02)")
	assert.Contains(t, hist, "other messages unchanged: true")
	assert.Contains(t, stdout, "total: 0 samples")

	_, all, _ := runCmd(t, nil, "demo")
	assert.Contains(t, all, "== proxy_retry: ")
	assert.Contains(t, all, "== history_clean: ")
	_, js, _ := runCmd(t, nil, "demo", "--json")
	assert.NotContains(t, js, "proxy_retry")
}
