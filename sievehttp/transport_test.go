package sievehttp

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// roundTripFunc adapts a function to http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func response(status int, ct string, body []byte) *http.Response {
	h := http.Header{}
	if ct != "" {
		h.Set("Content-Type", ct)
	}
	h.Set("Content-Length", "123")
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body))}
}

func TestTransportRewrites(t *testing.T) {
	content := "Hi <tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>"
	var sent []byte
	tr := &Transport{Base: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sent, _ = io.ReadAll(r.Body)
		again, _ := r.GetBody()
		b2, _ := io.ReadAll(again)
		require.Equal(t, sent, b2)
		return response(200, "text/event-stream", chattest.OpenAIStream([]string{content})), nil
	})}
	var notified []string
	tr.Notify = func(r *http.Request, e *toolsieve.Event) {
		notified = append(notified, e.Type.String()+" "+e.Name+" "+string(e.Arguments))
	}
	body := `{"model":"m","stream":true,"messages":[]}`
	req, _ := http.NewRequest(http.MethodPost, "http://x/v1/chat/completions", strings.NewReader(body))
	resp, err := tr.RoundTrip(req)
	require.NoError(t, err)
	require.Equal(t, body, string(sent))
	require.Empty(t, resp.Header.Get("Content-Length"))
	require.EqualValues(t, -1, resp.ContentLength)
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	got := chattest.AccumulateOpenAI(t, out)
	require.Len(t, got.Calls, 1)
	assert.Equal(t, "f", got.Calls[0].Name)
	assert.JSONEq(t, `{"a": 1}`, got.Calls[0].Args)
	assert.NotEmpty(t, got.Calls[0].ID)
	assert.Equal(t, "Hi ", got.Text)
	assert.Equal(t, "tool_calls", got.Finish)
	require.Equal(t, []string{"tool_call f {\"a\":1}"}, notified)
}

func TestTransportLeavesAlone(t *testing.T) {
	content := []byte("data: {\"choices\":[{\"delta\":{\"content\":\"<tool_call>get_time</tool_call>\"}}]}\n\n")
	for _, tc := range []struct {
		name, method, path, ct, ce string
		status                     int
	}{
		{"get", http.MethodGet, "/v1/chat/completions", "text/event-stream", "", 200},
		{"other path", http.MethodPost, "/v1/embeddings", "text/event-stream", "", 200},
		{"error status", http.MethodPost, "/v1/chat/completions", "text/event-stream", "", 429},
		{"compressed", http.MethodPost, "/v1/chat/completions", "text/event-stream", "gzip", 200},
		{"html", http.MethodPost, "/v1/chat/completions", "text/html", "", 200},
	} {
		tr := &Transport{Base: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			resp := response(tc.status, tc.ct, content)
			if tc.ce != "" {
				resp.Header.Set("Content-Encoding", tc.ce)
			}
			return resp, nil
		})}
		req, _ := http.NewRequest(tc.method, "http://x"+tc.path, strings.NewReader("{}"))
		resp, err := tr.RoundTrip(req)
		require.NoError(t, err)
		out, _ := io.ReadAll(resp.Body)
		require.Equal(t, string(content), string(out), tc.name)
		require.Equal(t, "123", resp.Header.Get("Content-Length"), tc.name)
	}
}

func TestAPIForPath(t *testing.T) {
	for path, want := range map[string]chat.API{
		"/v1/chat/completions": chat.APIOpenAI, "/chat/completions/": chat.APIOpenAI,
		"/v1/messages": chat.APIAnthropic, "/api/anthropic/v1/messages": chat.APIAnthropic,
	} {
		got, ok := chat.APIForPath(path)
		require.True(t, ok, path)
		require.Equal(t, want, got, path)
	}
	for _, path := range []string{"/v1/messages/count_tokens", "/v1/models", "/v1/completions", "/v1/messages/batches"} {
		_, ok := chat.APIForPath(path)
		require.False(t, ok, path)
	}
}
