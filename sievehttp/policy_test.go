package sievehttp

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// TestPolicyResolution: headers, then the first matching model rule, then
// the first matching built-in family, then the global default, then the
// defaults; field by field.
func TestPolicyResolution(t *testing.T) {
	pol, err := ParsePolicy([]byte(`{
		"default": {"mode": "strict", "retries": 1, "hold_text": true},
		"rules": [
			{"model": "deepseek-reasoner*", "name": "reasoner", "mode": "strict", "retries": 3},
			{"model": "deepseek-*", "dialects": ["dsml"]},
			{"model": "deepseek-chat", "retries": 9},
			{"model": "acme/*", "code_guard": false, "runaway": {"repeated_calls": 2}},
			{"model": "local-?", "clean_history": false, "max_call_bytes": 1000, "stream_calls": true}
		]
	}`))
	require.NoError(t, err)
	overridable := *pol
	overridable.ClientOverrides = true
	yes := true
	hdr := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	tests := []struct {
		name    string
		pol     *Policy
		model   string
		h       http.Header
		want    Settings
		wantErr string
	}{
		{name: "nil policy", pol: nil, model: "deepseek-chat",
			want: Settings{StreamCalls: true, CodeGuard: true}},
		{name: "nil policy with headers: only tightening ones apply", pol: nil, model: "x", h: hdr(HeaderMode, "STRICT", HeaderRetries, "2", HeaderHoldText, "1"),
			want: Settings{Strict: true, CodeGuard: true, From: []string{"header"}, Refused: []string{HeaderRetries, HeaderHoldText}}},
		{name: "zero policy, unknown model", pol: &Policy{}, model: "gpt-4o",
			want: Settings{StreamCalls: true, CodeGuard: true, CleanHistory: true}},
		{name: "zero policy, builtin deepseek", pol: &Policy{}, model: "DeepSeek-V3.2",
			want: Settings{StreamCalls: true, Retries: 2, CodeGuard: true, CleanHistory: true, From: []string{"builtin:deepseek"}}},
		{name: "builtin matches after a slash", pol: &Policy{}, model: "Qwen/Qwen3-Coder-480B",
			want: Settings{StreamCalls: true, Retries: 2, CodeGuard: true, CleanHistory: true, From: []string{"builtin:qwen"}}},
		{name: "deepseek distill of qwen is deepseek", pol: &Policy{}, model: "deepseek-r1-distill-qwen-32b",
			want: Settings{StreamCalls: true, Retries: 2, CodeGuard: true, CleanHistory: true, From: []string{"builtin:deepseek"}}},
		{name: "builtin off", pol: &Policy{NoBuiltin: true}, model: "deepseek-chat",
			want: Settings{StreamCalls: true, CodeGuard: true, CleanHistory: true}},
		{name: "builtin lenient beats global strict", pol: pol, model: "deepseek-coder",
			want: Settings{StreamCalls: true, Dialects: []string{"dsml"}, Retries: 2, HoldText: true, CodeGuard: true, CleanHistory: true,
				From: []string{"rule:deepseek-*", "builtin:deepseek", "global"}}},
		{name: "first matching rule wins", pol: pol, model: "deepseek-reasoner-v2",
			want: Settings{Strict: true, Retries: 3, HoldText: true, CodeGuard: true, CleanHistory: true,
				From: []string{"reasoner", "builtin:deepseek", "global"}}},
		{name: "later rule shadowed", pol: pol, model: "deepseek-chat",
			want: Settings{StreamCalls: true, Dialects: []string{"dsml"}, Retries: 2, HoldText: true, CodeGuard: true, CleanHistory: true,
				From: []string{"rule:deepseek-*", "builtin:deepseek", "global"}}},
		{name: "rule with a slash, case-insensitive", pol: pol, model: "ACME/Model-7",
			want: Settings{Strict: true, Retries: 1, HoldText: true, CodeGuard: false, CleanHistory: true,
				Runaway: toolsieve.RunawayLimits{RepeatedCalls: 2}, From: []string{"rule:acme/*", "global"}}},
		{name: "? glob", pol: pol, model: "local-7",
			want: Settings{Strict: true, StreamCalls: true, Retries: 1, HoldText: true, CodeGuard: true, MaxCallBytes: 1000,
				From: []string{"rule:local-?", "global"}}},
		{name: "global default", pol: pol, model: "gpt-4o",
			want: Settings{Strict: true, Retries: 1, HoldText: true, CodeGuard: true, CleanHistory: true, From: []string{"global"}}},
		{name: "headers tighten", pol: pol, model: "deepseek-reasoner",
			h: hdr(HeaderRetries, "1", HeaderDialects, "glm, hermes", HeaderHoldText, "false", HeaderCleanHistory, "no"),
			want: Settings{Strict: true, Dialects: []string{"glm", "hermes"}, Retries: 1, CodeGuard: true,
				From: []string{"header", "reasoner", "builtin:deepseek", "global"}}},
		{name: "headers cannot loosen", pol: pol, model: "deepseek-reasoner",
			h: hdr(HeaderMode, "lenient", HeaderRetries, "4", HeaderHoldText, "true"),
			want: Settings{Strict: true, Retries: 3, HoldText: true, CodeGuard: true, CleanHistory: true,
				From: []string{"header", "reasoner", "builtin:deepseek", "global"}, Refused: []string{HeaderMode, HeaderRetries}}},
		{name: "header dialects outside the operator's", pol: pol, model: "deepseek-chat", h: hdr(HeaderDialects, "dsml,hermes"),
			want: Settings{StreamCalls: true, Dialects: []string{"dsml"}, Retries: 2, HoldText: true, CodeGuard: true, CleanHistory: true,
				From: []string{"rule:deepseek-*", "builtin:deepseek", "global"}, Refused: []string{HeaderDialects}}},
		{name: "header dialects all over a narrowed set", pol: pol, model: "deepseek-chat", h: hdr(HeaderDialects, "all"),
			want: Settings{StreamCalls: true, Dialects: []string{"dsml"}, Retries: 2, HoldText: true, CodeGuard: true, CleanHistory: true,
				From: []string{"rule:deepseek-*", "builtin:deepseek", "global"}, Refused: []string{HeaderDialects}}},
		{name: "hold-text off from a client, and a subset of all dialects", pol: &Policy{Default: Rule{HoldText: &yes}}, model: "x",
			h:    hdr(HeaderHoldText, "off", HeaderDialects, "dsml"),
			want: Settings{StreamCalls: true, Dialects: []string{"dsml"}, CodeGuard: true, CleanHistory: true, From: []string{"header", "global"}}},
		{name: "client overrides: headers beat everything", pol: &overridable, model: "deepseek-reasoner",
			h: hdr(HeaderMode, "lenient", HeaderRetries, "9", HeaderDialects, "glm, hermes", HeaderHoldText, "false", HeaderCleanHistory, "no"),
			want: Settings{StreamCalls: true, Dialects: []string{"glm", "hermes"}, Retries: 9, CodeGuard: true,
				From: []string{"header", "reasoner", "builtin:deepseek", "global"}}},
		{name: "bad mode header", pol: pol, h: hdr(HeaderMode, "paranoid"), wantErr: "X-Toolsieve-Mode"},
		{name: "bad retries header", pol: pol, h: hdr(HeaderRetries, "11"), wantErr: "X-Toolsieve-Retries"},
		{name: "negative retries header", pol: pol, h: hdr(HeaderRetries, "-1"), wantErr: "X-Toolsieve-Retries"},
		{name: "bad dialect header", pol: pol, h: hdr(HeaderDialects, "dsml,xml"), wantErr: `unknown dialect "xml"`},
		{name: "bad hold header", pol: pol, h: hdr(HeaderHoldText, "maybe"), wantErr: "X-Toolsieve-Hold-Text"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.pol.Resolve(tc.model, tc.h)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestParsePolicyErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"rules":[{"model":"a","modes":"strict"}]}`, "unknown field"},
		{`{"default":{"mode":"strict"}} {}`, "after the JSON"},
		{`{"rules":[{"mode":"strict"}]}`, "no model pattern"},
		{`{"rules":[{"model":"[a","mode":"strict"}]}`, "bad model pattern"},
		{`{"rules":[{"model":"a","dialects":["dsml","nope"]}]}`, `unknown dialect "nope"`},
		{`{"default":{"mode":"loose"}}`, `mode "loose"`},
		{`{"default":{"retries":11}}`, "retries 11"},
		{`{"default":{"allow_repairs":["all"]}}`, `unknown repair "all"`},
		{`{"backoff_ms":-1}`, "backoff_ms"},
		{`{"default":{"runaway":{"nested_blocks":-2}}}`, "runaway"},
		{`{"rules":[{"model":"a","idle_timeout_ms":-1}]}`, "timeouts must not be negative"},
		{`{"client_overrides":"yes"}`, "client_overrides"},
	} {
		_, err := ParsePolicy([]byte(tc.in))
		require.ErrorContains(t, err, tc.want, tc.in)
	}
}

// TestExamplePolicy: the documented example file loads and says what the
// documentation says.
func TestExamplePolicy(t *testing.T) {
	pol, err := LoadPolicy(filepath.Join("..", "testdata", "policy", "example.json"))
	require.NoError(t, err)
	require.Equal(t, 250*time.Millisecond, pol.Backoff)
	require.Equal(t, 4*time.Second, pol.MaxBackoff)
	s, err := pol.Resolve("deepseek-reasoner", nil)
	require.NoError(t, err)
	require.True(t, s.Strict)
	require.Equal(t, 3, s.Retries)
	require.True(t, s.HoldText)
	require.Equal(t, 10*time.Minute, s.IdleTimeout)
	require.Equal(t, DefaultHeaderTimeout, s.upstreamTimeouts(true).header)
	require.Equal(t, DefaultResponseTimeout, s.upstreamTimeouts(false).header)
	s, err = pol.Resolve("deepseek-chat", nil)
	require.NoError(t, err)
	require.False(t, s.Strict, "DeepSeek stays lenient")
	require.Equal(t, 2, s.Retries)
	s, err = pol.Resolve("my-finetune-v1", nil)
	require.NoError(t, err)
	require.Equal(t, []string{"hermes", "qwen3_coder"}, s.Dialects)
	require.False(t, s.CodeGuard)
	require.Equal(t, 6, s.Runaway.RepeatedCalls)
	s, err = pol.Resolve("gpt-4o", nil)
	require.NoError(t, err)
	require.True(t, s.Strict)
	require.Equal(t, 1, s.Retries)
	require.False(t, s.CleanHistory)
	entries, err := os.ReadDir(filepath.Join("..", "testdata", "policy"))
	require.NoError(t, err)
	for _, e := range entries {
		_, err := LoadPolicy(filepath.Join("..", "testdata", "policy", e.Name()))
		require.NoError(t, err, e.Name())
	}
}

func TestBackoff(t *testing.T) {
	var nilPol *Policy
	require.Equal(t, DefaultBackoff, nilPol.backoff(0))
	require.Equal(t, 2*DefaultBackoff, nilPol.backoff(1))
	require.Equal(t, DefaultMaxBackoff, nilPol.backoff(30))
	p := &Policy{Backoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond}
	require.Equal(t, []time.Duration{1, 2, 4, 5, 5}, []time.Duration{
		p.backoff(0) / time.Millisecond, p.backoff(1) / time.Millisecond, p.backoff(2) / time.Millisecond,
		p.backoff(3) / time.Millisecond, p.backoff(4) / time.Millisecond})
}

func TestBuiltinRules(t *testing.T) {
	for model, family := range map[string]string{
		"deepseek-chat": "deepseek", "deepseek-ai/DeepSeek-V3.1": "deepseek", "qwen3-coder-plus": "qwen",
		"QwQ-32B": "qwen", "glm-4.6": "glm", "zai-org/GLM-4.5-Air": "glm", "deepseek-r1-distill-qwen-32b": "deepseek",
		"kimi-k2-instruct": "", "MiniMax-M2": "", "gpt-4o": "", "claude-sonnet-4": "",
	} {
		got := ""
		for _, r := range BuiltinRules() {
			if r.Match(model) {
				got = r.Name
				break
			}
		}
		require.Equal(t, family, got, model)
	}
	for _, r := range BuiltinRules() {
		require.NoError(t, r.Rule.validate(), r.Name)
		require.Empty(t, r.Dialects, "a built-in rule tunes, it does not narrow the dialects")
	}
	require.True(t, strings.HasPrefix(BuiltinRules()[0].Model, "*deepseek"))
}

// TestProxyBadPolicyHeader: a bad X-Toolsieve-* value is the client's
// error (400); nothing goes upstream.
func TestProxyBadPolicyHeader(t *testing.T) {
	chattest.NoLeaks(t)
	env := newPolEnv(t, &Policy{}, "x")
	path, body := chatBody(chat.APIOpenAI, false, "x")
	req, _ := http.NewRequest(http.MethodPost, env.proxy.URL+path, strings.NewReader(body))
	req.Header.Set(HeaderMode, "paranoid")
	resp, err := env.client.Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.JSONEq(t, `{"error":{"type":"invalid_request_error","message":"toolsieve: X-Toolsieve-Mode: \"paranoid\" (want strict or lenient)","param":null,"code":"bad_header"}}`, string(b))
	require.Zero(t, env.up.requests())
	require.Contains(t, env.logs.String(), `failure=bad_header`)
}
