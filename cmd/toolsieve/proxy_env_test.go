package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve/chat/chattest"
)

// captureUpstream answers every chat request with a stream whose content
// holds a Qwen3-Coder call and a <think> block, in small pieces, and
// records the Authorization header it got.
func captureUpstream(t *testing.T) (*httptest.Server, func() []string) {
	content := "<think>the file first</think>Reading it.\n<tool_call>\n<function=read_file>\n<parameter=path>\nmain.go\n</parameter>\n</function>\n</tool_call>"
	pieces := []string{}
	for i := 0; i < len(content); i += 7 {
		pieces = append(pieces, content[i:min(i+7, len(content))])
	}
	var mu sync.Mutex
	var auth []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(chattest.OpenAIStream(pieces))
	}))
	t.Cleanup(up.Close)
	return up, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), auth...) }
}

// TestProxyEnvAndCapture: the proxy configured from TOOLSIEVE_* variables
// (the flags given on the command line win), its upstream key from the
// environment in place of the client's, and --capture: the exchange
// saved, without credentials, replays with rewrite --policy to the bytes
// the client received.
func TestProxyEnvAndCapture(t *testing.T) {
	up, auths := captureUpstream(t)
	dir := t.TempDir()
	pf := filepath.Join(dir, "policy.json")
	require.NoError(t, os.WriteFile(pf, []byte(`{"rules":[{"model":"local-*","name":"local","dialects":["qwen3_coder"]}]}`), 0o644))
	capDir := filepath.Join(dir, "capture")
	t.Setenv("TOOLSIEVE_UPSTREAM", up.URL)
	t.Setenv("TOOLSIEVE_POLICY", pf)
	t.Setenv("TOOLSIEVE_CAPTURE", capDir)
	t.Setenv("TOOLSIEVE_METRICS", "true")
	t.Setenv("TOOLSIEVE_LOG_FORMAT", "json")
	t.Setenv("TOOLSIEVE_LISTEN", "256.0.0.1:1") // --listen is given: the flag wins
	t.Setenv("TOOLSIEVE_UPSTREAM_KEY", "sk-proxy-secret")
	logs := &chattest.SyncBuffer{}
	addr, stop := startProxyCmd(t, logs)
	c := chattest.LoopbackClient(t, nil)
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/v1/chat/completions",
		strings.NewReader(`{"model":"local-7","stream":true,"messages":[{"role":"user","content":"read main.go"}]}`))
	req.Header.Set("Authorization", "Bearer sk-client")
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	require.NoError(t, err)
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	acc := chattest.AccumulateOpenAI(t, got)
	require.Len(t, acc.Calls, 1)
	require.Equal(t, "the file first", acc.Reasoning, "reasoning split by default")

	resp, err = c.Get("http://" + addr + "/metrics")
	require.NoError(t, err)
	m, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Contains(t, string(m), `toolsieve_requests_total{api="openai",model="local",code="200"} 1`)
	require.Equal(t, exitOK, stop())
	require.Equal(t, []string{"Bearer sk-proxy-secret"}, auths(), "the proxy's key replaces the client's")
	require.Contains(t, logs.String(), `"duration_seconds":`)
	require.NotContains(t, logs.String(), "sk-proxy-secret")

	files, err := filepath.Glob(filepath.Join(capDir, "*"))
	require.NoError(t, err)
	require.Len(t, files, 4, "%v", files)
	base := strings.TrimSuffix(files[0], filepath.Ext(files[0]))
	base = strings.TrimSuffix(base, ".request")
	base = strings.TrimSuffix(base, ".meta")
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NotContains(t, string(b), "sk-client", f)
		require.NotContains(t, string(b), "sk-proxy", f)
		st, err := os.Stat(f)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), st.Mode().Perm(), f)
	}
	saved, err := os.ReadFile(base + ".response")
	require.NoError(t, err)
	require.Equal(t, string(got), string(saved), "the response file holds what the client got")
	var meta struct {
		Model, Label string
		Status       int
		Header       map[string]string `json:"request_headers"`
	}
	b, err := os.ReadFile(base + ".meta.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &meta))
	require.Equal(t, "local-7", meta.Model)
	require.Equal(t, http.StatusOK, meta.Status)
	require.Equal(t, "application/json", meta.Header["Content-Type"])
	require.NotContains(t, meta.Header, "Authorization")

	var out, errOut strings.Builder
	code := run([]string{"rewrite", "--policy", pf, "--model", meta.Model, "--tools", base + ".request.json", base + ".upstream"}, strings.NewReader(""), &out, &errOut)
	require.Equal(t, exitOK, code, errOut.String())
	require.Contains(t, errOut.String(), "decided by local")
	// Call IDs are drawn at random for each answer; everything else is the same.
	ids := regexp.MustCompile(`"call_[A-Za-z0-9]+_`)
	require.Equal(t, ids.ReplaceAllString(string(got), `"call_X_`), ids.ReplaceAllString(out.String(), `"call_X_`), "the capture replays to the same output")
	require.Equal(t, 1, strings.Count(out.String(), `"call_`))
}

// TestProxyEnvErrors: a bad value in a variable is a usage error naming
// it; without any upstream the proxy says where one may come from.
func TestProxyEnvErrors(t *testing.T) {
	t.Setenv("TOOLSIEVE_UPSTREAM", "http://127.0.0.1:1")
	t.Setenv("TOOLSIEVE_RETRIES", "many")
	var out, errOut strings.Builder
	require.Equal(t, exitUsage, run([]string{"proxy"}, strings.NewReader(""), &out, &errOut))
	require.Contains(t, errOut.String(), "TOOLSIEVE_RETRIES")

	t.Setenv("TOOLSIEVE_RETRIES", "")
	t.Setenv("TOOLSIEVE_UPSTREAM", "")
	errOut.Reset()
	require.Equal(t, exitUsage, run([]string{"proxy"}, strings.NewReader(""), &out, &errOut))
	require.Contains(t, errOut.String(), "TOOLSIEVE_UPSTREAM")

	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	require.NoError(t, os.WriteFile(keyFile, []byte("\n"), 0o600))
	errOut.Reset()
	require.Equal(t, exitUsage, run([]string{"proxy", "--upstream", "http://127.0.0.1:1", "--upstream-key-file", keyFile}, strings.NewReader(""), &out, &errOut))
	require.Contains(t, errOut.String(), "is empty")
}

// TestProxyExplainUpstream: --explain names the upstream of the model's
// rule and where its key comes from, never the key.
func TestProxyExplainUpstream(t *testing.T) {
	dir := t.TempDir()
	pf := filepath.Join(dir, "policy.json")
	require.NoError(t, os.WriteFile(pf, []byte(`{"rules":[
		{"model":"claude-*","name":"ds-anthropic","upstream":{"url":"https://api.deepseek.com/anthropic","key_env":"DEEPSEEK_API_KEY"}},
		{"model":"qwen*","upstream":{"url":"http://vllm:8000"},"reasoning":"keep"}]}`), 0o644))
	t.Setenv("DEEPSEEK_API_KEY", "sk-never-shown")
	explain := func(model string) map[string]any {
		var out, errOut strings.Builder
		require.Equal(t, exitOK, run([]string{"proxy", "--policy", pf, "--upstream", "http://127.0.0.1:9", "--explain", model}, strings.NewReader(""), &out, &errOut), errOut.String())
		require.NotContains(t, out.String(), "sk-never-shown")
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(out.String()), &m))
		return m
	}
	m := explain("claude-sonnet-4-5")
	require.Equal(t, map[string]any{"url": "https://api.deepseek.com/anthropic", "name": "api.deepseek.com", "key": "env DEEPSEEK_API_KEY"}, m["upstream"])
	require.Equal(t, "ds-anthropic", m["model_label"])
	require.Contains(t, m["decided_by"], "builtin:deepseek", "a claude-* name behind DeepSeek gets DeepSeek's rule")
	m = explain("qwen3-coder-30b")
	require.Equal(t, "http://vllm:8000", m["upstream"].(map[string]any)["url"])
	require.Equal(t, "keep", m["reasoning"])
	m = explain("gpt-5")
	require.Equal(t, "http://127.0.0.1:9", m["upstream"].(map[string]any)["url"])
	require.Equal(t, "split", m["reasoning"])
}
