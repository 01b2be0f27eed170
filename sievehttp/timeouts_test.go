package sievehttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// stall waits until the request is cancelled (or, failing that, far
// longer than the bounds of the tests that use it: stallBound).
func stall(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(2 * time.Minute):
	}
}

// stallBound is how long a timeout of a few hundred milliseconds may take
// to end an exchange with a stalled upstream: far less than the stall, far
// more than a loaded machine needs.
const stallBound = 30 * time.Second

// TestUpstreamHeaderTimeout: an upstream that sends no response headers
// gets cancelled after the header timeout (streams) or the response
// timeout (whole answers); the client gets a 504 in its API's error
// shape, the log and the metrics say so.
func TestUpstreamHeaderTimeout(t *testing.T) {
	chattest.NoLeaks(t)
	up := newScripted(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		stall(r)
	})
	env := newHardEnv(t, up, &Policy{Default: Rule{HeaderTimeoutMS: 100, ResponseTimeoutMS: 150}}, nil)
	for _, api := range polAPIs {
		for _, stream := range []bool{true, false} {
			start := time.Now()
			resp, body, err := env.do(t, api, stream, "x")
			require.NoError(t, err)
			require.Equal(t, http.StatusGatewayTimeout, resp.StatusCode)
			requireErrorBody(t, api, body, "server_error", "timeout_error", "header_timeout")
			want := map[bool]string{true: "within 100ms", false: "within 150ms"}[stream]
			require.Contains(t, string(body), want)
			require.Less(t, time.Since(start), stallBound)
			up.waitCancelled(t)
		}
	}
	require.EqualValues(t, 4, up.requests.Load(), "no retry of a timeout")
	m := env.scrape(t)
	require.EqualValues(t, 4, m[`toolsieve_upstream_failures_total{reason="header_timeout"}`])
	require.EqualValues(t, 2, m[`toolsieve_requests_total{api="openai",model="other",code="504"}`])
	require.Contains(t, env.logs.String(), "level=WARN msg=request method=POST path=/v1/messages status=504")
	require.Contains(t, env.logs.String(), "failure=header_timeout")
}

// TestUpstreamIdleTimeout: an upstream that goes silent in the middle of a
// stream is cancelled after the idle timeout; the client keeps what came
// and its stream ends with an error event. Silent before anything went
// out (a retry was possible, or a whole answer), the client gets a 504.
func TestUpstreamIdleTimeout(t *testing.T) {
	chattest.NoLeaks(t)
	up := newScripted(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case strings.Contains(string(body), `"stream":false`):
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"chatcmpl-1","choices":[{"index":0,"message":{"role":"assistant","content":"Hal`)
			http.NewResponseController(w).Flush()
		case strings.Contains(string(body), "before text"):
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			http.NewResponseController(w).Flush()
		default:
			streamHead(w, isAnthropic(r), "Hello, ")
		}
		stall(r)
	})
	env := newHardEnv(t, up, &Policy{Default: Rule{IdleTimeoutMS: 150}}, nil)
	for _, api := range polAPIs {
		start := time.Now()
		resp, body, err := env.do(t, api, true, "x")
		require.NoError(t, err, "the stream ends cleanly")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Contains(t, string(body), "Hello, ")
		requireErrorEvent(t, api, body, "idle_timeout", "timeout_error")
		require.Contains(t, string(body), "upstream sent nothing for 150ms")
		require.Less(t, time.Since(start), stallBound)
		up.waitCancelled(t)

		resp, body, err = env.do(t, api, false, "x")
		require.NoError(t, err)
		require.Equal(t, http.StatusGatewayTimeout, resp.StatusCode)
		requireErrorBody(t, api, body, "server_error", "timeout_error", "idle_timeout")
		up.waitCancelled(t)

		resp, body, err = env.do(t, api, true, "before text", HeaderRetries, "0")
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, "no retry possible: the headers went out at once")
		requireErrorEvent(t, api, body, "idle_timeout", "timeout_error")
		up.waitCancelled(t)
	}
	// A retry is possible: the stream is held, and nothing went out yet.
	retry := newHardEnv(t, up, &Policy{Default: Rule{IdleTimeoutMS: 150, Retries: intp(1)}}, nil)
	resp, body, err := retry.do(t, chat.APIOpenAI, true, "before text")
	require.NoError(t, err)
	require.Equal(t, http.StatusGatewayTimeout, resp.StatusCode)
	requireErrorBody(t, chat.APIOpenAI, body, "server_error", "timeout_error", "idle_timeout")
	up.waitCancelled(t)

	require.EqualValues(t, 7, up.requests.Load(), "one upstream request each: a timeout is not retried")
	m := env.scrape(t)
	require.EqualValues(t, 6, m[`toolsieve_upstream_failures_total{reason="idle_timeout"}`])
	require.Contains(t, env.logs.String(), "failure=idle_timeout")
}

// TestUpstreamReset: an upstream connection that breaks off mid-stream is
// logged at WARN with its cause and counted; the client's stream ends with
// an error event after what came before.
func TestUpstreamReset(t *testing.T) {
	chattest.NoLeaks(t)
	up := newScripted(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		streamHead(w, isAnthropic(r), "Partial answer")
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
	})
	env := newHardEnv(t, up, nil, nil)
	for _, api := range polAPIs {
		resp, body, err := env.do(t, api, true, "x")
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Contains(t, string(body), "Partial answer")
		requireErrorEvent(t, api, body, "reset", "api_error")
		require.Contains(t, string(body), "upstream answer broke off: unexpected EOF")
	}
	require.EqualValues(t, 2, up.requests.Load())
	m := env.scrape(t)
	require.EqualValues(t, 2, m[`toolsieve_upstream_failures_total{reason="reset"}`])
	logs := env.logs.String()
	require.Contains(t, logs, "level=WARN msg=request method=POST path=/v1/chat/completions status=200")
	require.Contains(t, logs, `failure=reset error="toolsieve: upstream answer broke off: unexpected EOF"`)
}

// TestUpstreamEventTooLarge: a 20 MiB SSE event is over the decoder's
// limit: it is not dropped silently, the client's stream ends with an
// error event, the log says so, the upstream is stopped, and the proxy
// never holds the event (a 60 MiB one costs no more heap).
func TestUpstreamEventTooLarge(t *testing.T) {
	chattest.NoLeaks(t)
	var written, size atomic.Int64
	up := newScripted(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		anth := isAnthropic(r)
		streamHead(w, anth, "Before. ")
		chunk := []byte(strings.Repeat("a", 64<<10))
		if anth {
			io.WriteString(w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"")
		} else {
			io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"`)
		}
		for range size.Load() / int64(len(chunk)) {
			w.Write(chunk)
		}
		io.WriteString(w, "\"}}]}\n\n")
		// What follows is never read: the proxy stopped the upstream.
		for i := range 20000 {
			n, err := w.Write(textEvent(anth, fmt.Sprintf("after %d ", i)))
			written.Add(int64(n))
			if err != nil {
				break
			}
		}
		stall(r)
	})
	env := newHardEnv(t, up, nil, nil)
	for i, api := range []chat.API{chat.APIOpenAI, chat.APIAnthropic, chat.APIOpenAI} {
		written.Store(0)
		size.Store(20 << 20)
		if i == 2 {
			size.Store(60 << 20)
		}
		peak := heapPeak()
		resp, body, err := env.do(t, api, true, "x")
		grew := peak()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Contains(t, string(body), "Before. ")
		require.NotContains(t, string(body), "aaaa")
		require.NotContains(t, string(body), "after 1 ")
		requireErrorEvent(t, api, body, "event_too_large", "api_error")
		require.Contains(t, string(body), "over the limit of 8388608 bytes")
		up.waitCancelled(t)
		require.Less(t, written.Load(), int64(8<<20), "the upstream went on")
		// The decoder keeps up to its 8 MiB limit (in a buffer grown by
		// doubling, whose smaller arrays are garbage the collector may not
		// have taken yet: HeapAlloc counts them) before it skips; the rest
		// is never held: the 60 MiB event would take more than the bound.
		require.Less(t, grew, uint64(48<<20), "heap grew by %d bytes", grew)
		t.Logf("%s, %d MiB event: heap peak +%d KiB", api, size.Load()>>20, grew>>10)
	}
	require.Contains(t, env.logs.String(), "failure=event_too_large")
	require.EqualValues(t, 3, env.scrape(t)[`toolsieve_upstream_failures_total{reason="event_too_large"}`])
}

// TestSlowClient: a client that stops reading its answer is dropped after
// the client write timeout; the upstream request is cancelled and the
// proxy holds no more than the socket buffers.
func TestSlowClient(t *testing.T) {
	chattest.NoLeaks(t)
	var written atomic.Int64
	up := newScripted(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		streamHead(w, false, "Start. ")
		rc := http.NewResponseController(w)
		for i := 0; ; i++ {
			var text strings.Builder // numbered: text repeated is a loop
			for j := range 400 {
				fmt.Fprintf(&text, "more text %d.%d ", i, j)
			}
			n, err := w.Write(textEvent(false, text.String()))
			written.Add(int64(n))
			if err != nil || rc.Flush() != nil {
				break
			}
		}
		stall(r)
	})
	env := newHardEnv(t, up, nil, func(p *Proxy) { p.ClientWriteTimeout = 200 * time.Millisecond })
	peak := heapPeak()
	conn, err := net.Dial("tcp", strings.TrimPrefix(env.srv.URL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	path, body := chatBody(chat.APIOpenAI, true, "x")
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", path, len(body), body)
	head := make([]byte, 512)
	_, err = io.ReadFull(conn, head)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(head), "HTTP/1.1 200 OK"))
	// The client reads nothing more.
	up.waitCancelled(t)
	grew := peak()
	require.Less(t, grew, uint64(32<<20), "heap grew by %d bytes", grew)
	require.Less(t, written.Load(), int64(64<<20))
	require.Eventually(t, func() bool { return strings.Contains(env.logs.String(), "client_error=") }, 5*time.Second, 10*time.Millisecond)
	require.Contains(t, env.logs.String(), `client_error="write timeout"`)
	t.Logf("upstream wrote %d KiB before it was cancelled; heap peak +%d KiB", written.Load()>>10, grew>>10)
}

// TestTransportTimeoutError: with a Policy, the Go wrappers time out too;
// the body's Read returns an *ExchangeError that is a timeout.
func TestTransportTimeoutError(t *testing.T) {
	chattest.NoLeaks(t)
	up := newScripted(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		streamHead(w, false, "Hi")
		stall(r)
	})
	base := &http.Transport{}
	t.Cleanup(base.CloseIdleConnections)
	tr := &Transport{Base: base, Policy: &Policy{Default: Rule{IdleTimeoutMS: 100}}}
	path, body := chatBody(chat.APIOpenAI, true, "x")
	resp, err := (&http.Client{Transport: tr}).Post(up.srv.URL+path, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Contains(t, string(b), "Hi")
	var fe *ExchangeError
	require.ErrorAs(t, err, &fe)
	require.True(t, fe.Timeout())
	require.Equal(t, "idle_timeout", fe.Reason())
	up.waitCancelled(t)

	// The request's own context ending is not an ExchangeError.
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, up.srv.URL+path, strings.NewReader(body))
	resp, err = (&http.Client{Transport: tr}).Do(req)
	require.NoError(t, err)
	cancel()
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	require.False(t, errors.As(err, &fe), "%v", err)
	up.waitCancelled(t)
}
