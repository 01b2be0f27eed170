package sievehttp

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
	"github.com/toolsieve/toolsieve/sse"
)

// TestLoad runs 200 concurrent streams straight to a paced upstream, then
// the same through the proxy, and checks: no errors, every call recovered,
// bounded heap, the budget given back, goroutines back to where they were.
// It logs the added latency (p50, p99 of whole streams and of first
// bytes). Skipped under -short.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	chattest.NoLeaks(t)
	const streams, events, pace = 200, 80, 2 * time.Millisecond
	deltas := chattest.Deltas(7, events, 15)
	var raw [][]byte
	var d sse.Decoder
	evs, _ := d.Feed(chattest.OpenAIStream(deltas))
	for _, ev := range evs {
		raw = append(raw, bytes.Clone(ev.Raw))
	}
	wantCalls := strings.Count(strings.Join(deltas, ""), "<tool_call>")
	up := newScripted(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for _, ev := range raw {
			if _, err := w.Write(ev); err != nil || rc.Flush() != nil {
				return
			}
			time.Sleep(pace)
		}
	})
	env := newHardEnv(t, up, &Policy{}, nil)
	tr := &http.Transport{MaxIdleConnsPerHost: streams, MaxIdleConns: 2 * streams}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr, Timeout: 2 * time.Minute}
	path, body := chatBody(chat.APIOpenAI, true, "x")

	// run sends the streams at once to base and returns the durations of
	// the whole streams and of their first bytes, and the errors.
	run := func(base string, proxied bool) (total, first []time.Duration, errs int) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		var failed atomic.Int32
		for range streams {
			wg.Add(1)
			go func() {
				defer wg.Done()
				start := time.Now()
				resp, err := client.Post(base+path, "application/json", strings.NewReader(body))
				if err != nil {
					failed.Add(1)
					return
				}
				defer resp.Body.Close()
				buf := make([]byte, 32<<10)
				var got []byte
				var fb time.Duration
				for {
					n, err := resp.Body.Read(buf)
					if n > 0 && fb == 0 {
						fb = time.Since(start)
					}
					got = append(got, buf[:n]...)
					if err != nil {
						if err != io.EOF {
							failed.Add(1)
							return
						}
						break
					}
				}
				ok := resp.StatusCode == http.StatusOK && bytes.HasSuffix(got, []byte("data: [DONE]\n\n"))
				if proxied {
					ok = ok && len(callOpening.FindAllIndex(got, -1)) == wantCalls && !bytes.Contains(got, []byte("<tool_call>"))
				}
				if !ok {
					failed.Add(1)
					return
				}
				mu.Lock()
				total = append(total, time.Since(start))
				first = append(first, fb)
				mu.Unlock()
			}()
		}
		wg.Wait()
		return total, first, int(failed.Load())
	}
	run(up.srv.URL, false) // warm up both paths and their pools
	run(env.srv.URL, true)
	goroutines := runtime.NumGoroutine()

	start := time.Now()
	dTotal, dFirst, dErrs := run(up.srv.URL, false)
	peak := heapPeak()
	pTotal, pFirst, pErrs := run(env.srv.URL, true)
	grew := peak()
	elapsed := time.Since(start)

	require.Zero(t, dErrs, "direct")
	require.Zero(t, pErrs, "through the proxy")
	require.Less(t, grew, uint64(128<<20), "heap grew by %d bytes", grew)
	used, _ := env.p.mem.inUse()
	require.Zero(t, used, "the budget was given back")
	require.Less(t, elapsed, 2*time.Minute, "a deadlock, not a slow machine: the load's speed is for benchmarks")
	pct := func(ds []time.Duration, p float64) time.Duration {
		slices.Sort(ds)
		return ds[int(p*float64(len(ds)-1))]
	}
	t.Logf("%d concurrent streams of %d events (%v apart), %d calls each; errors: %d direct, %d proxied; proxy phase heap peak +%.1f MiB",
		streams, len(raw), pace, wantCalls, dErrs, pErrs, float64(grew)/(1<<20))
	t.Logf("whole stream p50 %v direct, %v proxied (+%v); p99 %v direct, %v proxied (+%v)",
		pct(dTotal, .5), pct(pTotal, .5), pct(pTotal, .5)-pct(dTotal, .5), pct(dTotal, .99), pct(pTotal, .99), pct(pTotal, .99)-pct(dTotal, .99))
	t.Logf("first byte p50 %v direct, %v proxied (+%v); p99 %v direct, %v proxied (+%v)",
		pct(dFirst, .5), pct(pFirst, .5), pct(pFirst, .5)-pct(dFirst, .5), pct(dFirst, .99), pct(pFirst, .99), pct(pFirst, .99)-pct(dFirst, .99))
	tr.CloseIdleConnections()
	env.p.rt.(*http.Transport).CloseIdleConnections()
	require.Eventually(t, func() bool { return runtime.NumGoroutine() <= goroutines }, 30*time.Second, 20*time.Millisecond,
		"goroutines: %d after, %d before the measured runs", runtime.NumGoroutine(), goroutines)
}

// callOpening is the delta that opens a call in an OpenAI stream: the
// chunks of its arguments that follow carry no id.
var callOpening = regexp.MustCompile(`"tool_calls":\[\{"index":\d+,"id":`)
