package sievehttp

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/sse"
)

// scripted is an upstream run by a test's handler, that counts its
// requests, the requests cancelled by the proxy while the handler ran, and
// the connections opened to it.
type scripted struct {
	srv       *httptest.Server
	requests  atomic.Int32
	conns     atomic.Int32
	cancelled chan struct{}
}

func newScripted(t *testing.T, h http.HandlerFunc) *scripted {
	u := &scripted{cancelled: make(chan struct{}, 512)}
	u.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.requests.Add(1)
		h(w, r)
		if r.Context().Err() != nil {
			u.cancelled <- struct{}{}
		}
	}))
	u.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			u.conns.Add(1)
		}
	}
	u.srv.Start()
	t.Cleanup(u.srv.Close)
	return u
}

// waitCancelled fails the test unless the proxy cancelled an upstream
// request within a few seconds.
func (u *scripted) waitCancelled(t *testing.T) {
	t.Helper()
	select {
	case <-u.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream request was not cancelled")
	}
}

// hardEnv is a proxy with a policy in front of a scripted upstream.
type hardEnv struct {
	up      *scripted
	p       *Proxy
	srv     *httptest.Server
	logs    *chattest.SyncBuffer
	client  *http.Client
	metrics *Metrics
}

func newHardEnv(t *testing.T, up *scripted, pol *Policy, configure func(*Proxy)) *hardEnv {
	u, _ := url.Parse(up.srv.URL)
	p := NewProxy(u, toolsieve.Options{IDPrefix: "t_"})
	p.Policy = pol
	p.Metrics = NewMetrics()
	logs := &chattest.SyncBuffer{}
	p.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if configure != nil {
		configure(p)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return &hardEnv{up: up, p: p, srv: srv, logs: logs, client: chattest.LoopbackClient(t, nil), metrics: p.Metrics}
}

// do posts a chat request for api and returns the response with its body
// read (a read error is returned, not fatal).
func (e *hardEnv) do(t *testing.T, api chat.API, stream bool, content string, hdr ...string) (*http.Response, []byte, error) {
	t.Helper()
	path, body := chatBody(api, stream, content)
	return e.doBody(t, path, strings.NewReader(body), hdr...)
}

func (e *hardEnv) doBody(t *testing.T, path string, body io.Reader, hdr ...string) (*http.Response, []byte, error) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+path, body)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := e.client.Do(req)
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, b, err
}

// scrape returns the proxy's metrics.
func (e *hardEnv) scrape(t *testing.T) map[string]int64 { return scrape(t, e.client, e.srv.URL) }

// streamHead writes a stream's response headers and its first events: the
// role chunk and text (OpenAI), or message_start, the text block's start
// and text (Anthropic).
func streamHead(w http.ResponseWriter, anth bool, text string) {
	w.Header().Set("Content-Type", "text/event-stream")
	var b []byte
	if anth {
		b = chattest.AnthropicStream([]string{text})
		b = b[:bytes.Index(b, []byte("event: content_block_stop"))]
	} else {
		b = chattest.OpenAIStream([]string{text})
		b = b[:bytes.Index(b, []byte(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{},`))]
	}
	w.Write(b)
	http.NewResponseController(w).Flush()
}

// textEvent is one more text delta of a stream.
func textEvent(anth bool, text string) []byte {
	if anth {
		return sse.AppendEvent(nil, "content_block_delta",
			append(jsonspan.AppendQuoted([]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`), text), "}}"...))
	}
	return sse.AppendEvent(nil, "", []byte(chattest.OpenAIChunk(string(jsonspan.AppendQuoted([]byte(`{"content":`), text))+"}", "")))
}

// isAnthropic tells a request for the Anthropic API.
func isAnthropic(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/messages") }

// lastEvent is the last SSE event of a stream.
func lastEvent(t *testing.T, stream []byte) sse.Event {
	t.Helper()
	var d sse.Decoder
	evs, _ := d.Feed(stream)
	more, _ := d.Close()
	evs = append(evs, more...)
	require.NotEmpty(t, evs)
	return evs[len(evs)-1]
}

// requireErrorEvent checks that a stream ends with an error event of the
// API's shape for the failure named reason.
func requireErrorEvent(t *testing.T, api chat.API, stream []byte, reason, anthType string) {
	t.Helper()
	ev := lastEvent(t, stream)
	if api == chat.APIAnthropic {
		require.Equal(t, "error", ev.Type, "%s", stream)
		require.Contains(t, string(ev.Data), `{"type":"error","error":{"type":"`+anthType+`","message":"toolsieve: `)
		return
	}
	require.Equal(t, "", ev.Type)
	require.Contains(t, string(ev.Data), `{"error":{"message":"toolsieve: `, "%s", stream)
	require.Contains(t, string(ev.Data), `"type":"server_error","param":null,"code":"`+reason+`"}}`)
	require.NotContains(t, string(stream), "[DONE]")
}

// requireErrorBody checks an error response in the API's shape.
func requireErrorBody(t *testing.T, api chat.API, body []byte, openaiType, anthType, code string) {
	t.Helper()
	if api == chat.APIAnthropic {
		require.Contains(t, string(body), `{"type":"error","error":{"type":"`+anthType+`","message":"toolsieve: `, "%s", body)
		return
	}
	require.Contains(t, string(body), `{"error":{"message":"toolsieve: `, "%s", body)
	require.Contains(t, string(body), `"type":"`+openaiType+`","param":null,"code":"`+code+`"}}`)
}

// heapPeak samples the heap in use until stop is called, which returns
// the peak growth over the heap at the start, in bytes.
func heapPeak() (stop func() uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > base && ms.HeapAlloc-base > peak.Load() {
				peak.Store(ms.HeapAlloc - base)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		return peak.Load()
	}
}
