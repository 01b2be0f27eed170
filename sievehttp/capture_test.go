package sievehttp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// TestCaptureRetried: a retried exchange is captured whole: the request,
// each upstream answer as received, the client's answer, and the meta
// without credentials.
func TestCaptureRetried(t *testing.T) {
	chattest.NoLeaks(t)
	env := newPolEnv(t, &Policy{NoBuiltin: true, Backoff: 1, Default: Rule{Retries: ptr(1)}}, polLoop, polGood)
	dir := filepath.Join(t.TempDir(), "cap")
	env.proxy.Config.Handler.(*Proxy).CaptureDir = dir
	got := env.send(t, chat.APIOpenAI, true, "x", HeaderKey, "never-saved")
	require.Len(t, got.got.Calls, 1)

	names, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	var suffixes []string
	for _, n := range names {
		_, suffix, _ := strings.Cut(filepath.Base(n), ".")
		suffixes = append(suffixes, suffix)
		b, err := os.ReadFile(n)
		require.NoError(t, err)
		require.NotContains(t, string(b), "sk-test", n)
		require.NotContains(t, string(b), "never-saved", n)
	}
	require.ElementsMatch(t, []string{"000Z-000001.request.json", "000Z-000001.upstream", "000Z-000001.upstream.2",
		"000Z-000001.response", "000Z-000001.meta.json"}, trimTime(suffixes))
	base := strings.TrimSuffix(names[0], filepath.Ext(names[0]))
	for _, ext := range []string{".json", ".2", ".request", ".meta", ".upstream", ".response"} {
		base = strings.TrimSuffix(base, ext)
	}
	first, _ := os.ReadFile(base + ".upstream")
	second, _ := os.ReadFile(base + ".upstream.2")
	// The looping answer as received: the proxy stops reading it at the
	// runaway, so how much of the rest came in the same read is timing.
	loop := chattest.AccumulateOpenAI(t, first).Text
	require.True(t, len(loop) > 0 && strings.HasPrefix(polLoop, loop), "the looping answer, as received: %q", loop)
	require.Equal(t, polGood, chattest.AccumulateOpenAI(t, second).Text)
	resp, _ := os.ReadFile(base + ".response")
	require.Equal(t, got.body, string(resp))
	var meta captureMeta
	b, _ := os.ReadFile(base + ".meta.json")
	require.NoError(t, json.Unmarshal(b, &meta))
	require.Equal(t, 2, meta.Attempts)
	require.Equal(t, "test-model", meta.Model)
	require.Equal(t, LabelOther, meta.Label)
	require.NotContains(t, meta.Header, "Authorization")
	require.NotContains(t, meta.Header, HeaderKey)
}

// trimTime drops the capture ids' time up to its milliseconds' last digit,
// which differs between runs.
func trimTime(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		if j := strings.Index(x, "Z-"); j >= 0 {
			x = "000" + x[j:]
		}
		out[i] = x
	}
	return out
}

func ptr[T any](v T) *T { return &v }
