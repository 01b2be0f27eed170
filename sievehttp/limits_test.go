package sievehttp

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// bodyGen is a request body of n bytes made as it is read (a chat request
// whose message never ends), counting what was read from it.
type bodyGen struct {
	n, read int64
	head    []byte
	reads   *atomic.Int64
}

func newBodyGen(n int64, reads *atomic.Int64) *bodyGen {
	return &bodyGen{n: n, head: []byte(`{"model":"m","messages":[{"role":"user","content":"`), reads: reads}
}

func (g *bodyGen) Read(p []byte) (int, error) {
	if g.read >= g.n {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), g.n-g.read)]
	k := 0
	if g.read < int64(len(g.head)) {
		k = copy(p, g.head[g.read:])
	}
	for i := k; i < len(p); i++ {
		p[i] = 'a'
	}
	g.read += int64(len(p))
	g.reads.Add(int64(len(p)))
	return len(p), nil
}

// TestRequestBodyTooLarge: a 1 GiB request body gets 413 in the API's
// error shape; the proxy stops reading at the limit, holds no more than
// the limit and sends nothing upstream. With a Content-Length over the
// limit it reads nothing.
func TestRequestBodyTooLarge(t *testing.T) {
	chattest.NoLeaks(t)
	up := newScripted(t, func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) })
	env := newHardEnv(t, up, &Policy{}, func(p *Proxy) { p.MaxRequestBytes = 1 << 20 })
	for _, api := range polAPIs {
		path, _ := chatBody(api, false, "")
		for _, declared := range []bool{false, true} {
			var reads atomic.Int64
			peak := heapPeak()
			req, _ := http.NewRequest(http.MethodPost, env.srv.URL+path, newBodyGen(1<<30, &reads))
			if declared {
				req.ContentLength = 1 << 30
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := env.client.Do(req)
			require.NoError(t, err)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			grew := peak()
			require.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
			requireErrorBody(t, api, b, "invalid_request_error", "request_too_large", "body_too_large")
			require.Contains(t, string(b), "request body over 1048576 bytes")
			require.True(t, resp.Close, "Connection: close")
			require.Less(t, reads.Load(), int64(64<<20), "the client sent %d bytes", reads.Load())
			require.Less(t, grew, uint64(16<<20), "heap grew by %d bytes", grew)
			t.Logf("%s, declared %v: the client sent %d KiB; heap peak +%d KiB", api, declared, reads.Load()>>10, grew>>10)
		}
	}
	require.Zero(t, up.requests.Load())
	require.Contains(t, env.logs.String(), "status=413")
	require.Contains(t, env.logs.String(), "failure=body_too_large")
	// Up to the limit is fine.
	var reads atomic.Int64
	resp, _, err := env.doBody(t, "/v1/chat/completions", io.MultiReader(newBodyGen(1<<20-4, &reads), strings.NewReader(`"}]}`)))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.EqualValues(t, 1, up.requests.Load())
}

// TestMemoryBudget: one budget bounds what the proxy holds. A request body
// that does not fit gets 503 with Retry-After; a held stream past it goes
// out as it comes (complete, and no longer retryable); a whole answer past
// it gets 503. Everything reserved is given back.
func TestMemoryBudget(t *testing.T) {
	chattest.NoLeaks(t)
	var prose strings.Builder // 330 KB
	for i := range 10000 {
		fmt.Fprintf(&prose, "Plain prose %d, nothing to recover. ", i)
	}
	big := prose.String()
	up := newScripted(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		anth := isAnthropic(r)
		if bytes.Contains(body, []byte(`"stream":false`)) {
			w.Header().Set("Content-Type", "application/json")
			if anth {
				w.Write(chattest.AnthropicDoc(big))
			} else {
				w.Write(chattest.OpenAIDoc(big))
			}
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		var pieces []string
		for s := big; len(s) > 0; s = s[min(len(s), 100):] {
			pieces = append(pieces, s[:min(len(s), 100)])
		}
		if anth {
			w.Write(chattest.AnthropicStream(pieces))
		} else {
			w.Write(chattest.OpenAIStream(pieces))
		}
	})
	hold := true
	pol := &Policy{Default: Rule{Retries: intp(1), HoldText: &hold}}
	env := newHardEnv(t, up, pol, func(p *Proxy) { p.MemoryBudget = 64 << 10 })
	for _, api := range polAPIs {
		// A request body over the budget.
		resp, b, err := env.do(t, api, true, strings.Repeat("x", 100<<10))
		require.NoError(t, err)
		require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
		require.Equal(t, "1", resp.Header.Get("Retry-After"))
		requireErrorBody(t, api, b, "server_error", "overloaded_error", "memory_budget")

		// A held stream past the budget goes out whole, unheld.
		resp, b, err = env.do(t, api, true, "x")
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		var got chattest.Response
		if api == chat.APIAnthropic {
			got = chattest.AccumulateAnthropic(t, b)
		} else {
			got = chattest.AccumulateOpenAI(t, b)
		}
		require.Equal(t, big, got.Text)

		// A whole answer past the budget.
		resp, b, err = env.do(t, api, false, "x")
		require.NoError(t, err)
		require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
		requireErrorBody(t, api, b, "server_error", "overloaded_error", "memory_budget")
	}
	// A body that fits, but not twice: an OpenAI stream with retries asks
	// for usage, and that edited copy is held beside the body read.
	resp, b, err := env.do(t, chat.APIOpenAI, true, strings.Repeat("x", 40<<10))
	require.NoError(t, err)
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	requireErrorBody(t, chat.APIOpenAI, b, "server_error", "overloaded_error", "memory_budget")
	require.EqualValues(t, 4, up.requests.Load(), "refused bodies never went upstream")
	m := env.scrape(t)
	require.EqualValues(t, 5, m[`toolsieve_memory_budget_exceeded_total{action="refused"}`])
	require.EqualValues(t, 2, m[`toolsieve_memory_budget_exceeded_total{action="unheld"}`])
	require.EqualValues(t, 64<<10, m[`toolsieve_memory_budget_bytes`])
	require.Zero(t, m[`toolsieve_memory_held_bytes`], "everything was given back")
	used, _ := env.p.mem.inUse()
	require.Zero(t, used)
	require.Contains(t, env.logs.String(), "failure=memory_budget")
}

// TestMemoryBudgetLargeEvent: a stream's rewriter buffers count in the
// budget as a large event comes (the decoder's buffer, the copies its
// rewriting takes), so an event that does not fit ends the stream with a
// memory_budget error (a 503 while nothing went out), and a whole answer
// counts the memory its rewriting takes (7 times its size). Everything is
// given back.
func TestMemoryBudgetLargeEvent(t *testing.T) {
	chattest.NoLeaks(t)
	var prose strings.Builder // numbered: prose repeated is a loop (the repetition guard)
	for i := 0; prose.Len() < 200<<10; i++ {
		fmt.Fprintf(&prose, "Plain prose %d. ", i)
	}
	event := prose.String()[:200<<10/13*13] // 200 KB
	up := newScripted(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"stream":false`)) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(chattest.OpenAIDoc(event))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(chattest.OpenAIStream([]string{"Hello. ", event, event + event + event + event, " Bye."}))
	})
	for _, tc := range []struct {
		budget int64
		held   bool
		ok     bool
	}{
		{16 << 20, false, true}, // room for it
		{2 << 20, false, false},
		{2 << 20, true, false},
	} {
		pol := &Policy{NoBuiltin: true}
		if tc.held {
			one, hold := 1, true
			pol.Default = Rule{Retries: &one, HoldText: &hold}
		}
		env := newHardEnv(t, up, pol, func(p *Proxy) { p.MemoryBudget = tc.budget })
		resp, body, err := env.do(t, chat.APIOpenAI, true, "x")
		require.NoError(t, err)
		msg := fmt.Sprintf("budget %d KiB, held %v", tc.budget>>10, tc.held)
		switch {
		case tc.ok:
			require.Equal(t, http.StatusOK, resp.StatusCode, msg)
			require.True(t, bytes.Contains(body, []byte(" Bye.")), "%s: the stream did not end: %q", msg, body[max(0, len(body)-200):])
		case tc.held:
			require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, msg)
			requireErrorBody(t, chat.APIOpenAI, body, "server_error", "", "memory_budget")
		default:
			require.Equal(t, http.StatusOK, resp.StatusCode, msg)
			require.True(t, bytes.Contains(body, []byte("Hello. ")), msg)
			require.False(t, bytes.Contains(body, []byte(" Bye.")), msg)
			requireErrorEvent(t, chat.APIOpenAI, body, "memory_budget", "")
		}
		// A whole answer of 200 KB takes 1.4 MB to rewrite: refused under
		// a 1 MiB budget.
		if tc.budget == 2<<20 && !tc.held {
			env2 := newHardEnv(t, up, pol, func(p *Proxy) { p.MemoryBudget = 1 << 20 })
			resp, _, err := env2.do(t, chat.APIOpenAI, false, "x")
			require.NoError(t, err)
			require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
		}
		require.Eventually(t, func() bool { u, _ := env.p.mem.inUse(); return u == 0 }, 5*time.Second, 10*time.Millisecond, "%s: given back", msg)
	}
}
