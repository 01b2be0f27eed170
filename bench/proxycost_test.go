package bench

// The proxy's own cost against a bare httputil.ReverseProxy (issue 31,
// target 4): CPU per streamed answer with calls, memory per concurrent
// stream and time to first byte, each measured for the three routes in the
// same run over the same loopback upstream, so that only ratios are read.

import (
	"bufio"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat/chattest"
	"github.com/toolsieve/toolsieve/internal/cputime"
	"github.com/toolsieve/toolsieve/sievehttp"
)

// costRequest is a chat request as agents send it: a few messages and two
// declared tools, one of them the tool the answer calls.
const costRequest = `{"model":"m","stream":true,"messages":[` +
	`{"role":"system","content":"You are a coding assistant. Use the tools when you need data."},` +
	`{"role":"user","content":"Find the items about parsing and summarise them."}],` +
	`"tools":[{"type":"function","function":{"name":"search","description":"Search the index.","parameters":{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer"}},"required":["q"]}}},` +
	`{"type":"function","function":{"name":"read_file","description":"Read a file.","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}]}`

// eventUpstream answers every request with the same OpenAI stream, one
// event per write and flush, as a server streaming tokens does. When hold
// is set it sends holdAt events, pause apart, as a model does, then stops
// until hold is closed.
type eventUpstream struct {
	events [][]byte
	hold   chan struct{}
	held   sync.WaitGroup
	pause  time.Duration // after the first event, when the request asks (?pause)
}

func (u *eventUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	for i, ev := range u.events {
		if u.hold != nil && i == holdAt {
			u.held.Done()
			select {
			case <-u.hold:
			case <-r.Context().Done():
				return
			}
		}
		if _, err := w.Write(ev); err != nil {
			return
		}
		rc.Flush()
		if u.hold != nil || i == 0 && u.pause > 0 && r.URL.Query().Has("pause") {
			time.Sleep(u.pause)
		}
	}
}

// holdAt is how many events an upstream with hold set sends before it
// stops: past the first call of a chattest.Deltas(_, _, 64) answer.
const holdAt = 120

// splitEvents cuts an SSE stream into its events.
func splitEvents(stream []byte) [][]byte {
	var evs [][]byte
	for _, e := range strings.SplitAfter(string(stream), "\n\n") {
		if e != "" {
			evs = append(evs, []byte(e))
		}
	}
	return evs
}

// costRoutes starts the three routes to upstream u (routeNames): direct,
// through a bare ReverseProxy that flushes at once, and through the
// toolsieve proxy.
func costRoutes(tb testing.TB, u http.Handler) (urls []string, closeAll func()) {
	tb.Helper()
	us := httptest.NewServer(u)
	target, _ := url.Parse(us.URL)
	rp := &httputil.ReverseProxy{
		Rewrite:       func(pr *httputil.ProxyRequest) { pr.SetURL(target) },
		FlushInterval: -1,
	}
	rs := httptest.NewServer(rp)
	p := sievehttp.NewProxy(target, toolsieve.Options{})
	p.Logger = slog.New(slog.DiscardHandler)
	ps := httptest.NewServer(p)
	return []string{us.URL, rs.URL, ps.URL}, func() {
		ps.Close()
		rs.Close()
		us.Close()
	}
}

// fetch posts the request and reads the whole answer, returning the time
// to the first byte of the body and the bytes read.
func fetch(tb testing.TB, c *http.Client, base string, paused bool) (time.Duration, int) {
	path := "/v1/chat/completions"
	if paused {
		path += "?pause"
	}
	start := time.Now()
	resp, err := c.Post(base+path, "application/json", strings.NewReader(costRequest))
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if _, err := br.Peek(1); err != nil {
		tb.Fatal("empty answer:", err)
	}
	ttfb := time.Since(start)
	n, _ := io.Copy(io.Discard, br)
	return ttfb, int(n) + 1
}

// BenchmarkProxyCost runs one streamed answer (600 token-sized deltas, a
// hermes call every 64 of them, about 100 KB of SSE) per route per op,
// round robin, and reports for each route the process CPU time per answer
// and the time to first byte at p50, then the two targets: the toolsieve
// route's CPU over the ReverseProxy route's (≤ 1.3; both include the same
// client and upstream, which run in this process) and its time to first
// byte over the ReverseProxy's (≤ 200 µs). CPU is process CPU time, not the
// wall clock, so other processes do not count, of an answer sent at once.
// The first byte is timed on a second answer whose upstream pauses after
// its first event, as a model does before its next token, so that it is
// not measured while the rest of the answer competes for the CPU (and the
// pause, when the runtime spins idle, is not in the CPU figure).
func BenchmarkProxyCost(b *testing.B) {
	pc := proxyCost(b, b.N)
	for i, name := range routeNames {
		b.ReportMetric(float64(pc.cpu[i].Microseconds())/float64(b.N), name+"-cpu-µs/answer")
		b.ReportMetric(float64(pc.ttfb[i].Microseconds()), name+"-ttfb-p50-µs")
	}
	b.ReportMetric(pc.cpuRatio(), "toolsieve/reverseproxy-cpu")
	b.ReportMetric(float64(pc.ttfbOver().Microseconds()), "toolsieve-ttfb-over-reverseproxy-µs")
}

// routeNames are the routes costRoutes starts, in its order.
var routeNames = [3]string{"direct", "reverseproxy", "toolsieve"}

// proxyCosts are the figures of proxyCost, per route: CPU time over all the
// answers, time to first byte at p50.
type proxyCosts struct {
	cpu, ttfb [3]time.Duration
}

// cpuRatio is the toolsieve route's CPU over the ReverseProxy route's.
func (pc proxyCosts) cpuRatio() float64 { return float64(pc.cpu[2]) / float64(pc.cpu[1]) }

// ttfbOver is the toolsieve route's time to first byte minus the
// ReverseProxy route's.
func (pc proxyCosts) ttfbOver() time.Duration { return pc.ttfb[2] - pc.ttfb[1] }

// proxyCost fetches answers answers through each route, round robin (see
// BenchmarkProxyCost).
func proxyCost(tb testing.TB, answers int) proxyCosts {
	u := &eventUpstream{events: splitEvents(chattest.SeqOpenAIStream(chattest.Deltas(1, 600, 64))), pause: time.Millisecond}
	urls, closeAll := costRoutes(tb, u)
	defer closeAll()
	tr := &http.Transport{MaxIdleConnsPerHost: 4}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	var pc proxyCosts
	var ttfb [3][]time.Duration
	for i := range urls { // warm the connections
		fetch(tb, c, urls[i], false)
	}
	for range answers {
		for i, base := range urls {
			t0 := cputime.Self()
			fetch(tb, c, base, false)
			pc.cpu[i] += cputime.Self() - t0
			d, _ := fetch(tb, c, base, true)
			ttfb[i] = append(ttfb[i], d)
		}
	}
	for i := range urls {
		slices.Sort(ttfb[i])
		pc.ttfb[i] = ttfb[i][len(ttfb[i])/2]
	}
	return pc
}

// BenchmarkProxyStreamMemory holds 200 streams open at once on each route,
// each after holdAt events sent 5 ms apart (token by token, as a fast model
// writes; past a call), and reports the heap and stack in use per stream
// above the idle process for each route, and the ratio of what the
// toolsieve proxy and the ReverseProxy add to the direct route (target
// ≤ 1.3).
func BenchmarkProxyStreamMemory(b *testing.B) {
	var per [3]float64
	for b.Loop() {
		m := proxyStreamMemory(b)
		for i := range per {
			per[i] += m[i]
		}
	}
	for i, name := range routeNames {
		per[i] /= float64(b.N)
		b.ReportMetric(per[i]/1024, name+"-KiB/stream")
	}
	b.ReportMetric(memRatio(per), "toolsieve/reverseproxy-mem")
}

// memRatio is what the toolsieve proxy adds to the direct route's memory
// per stream over what the ReverseProxy adds.
func memRatio(per [3]float64) float64 { return (per[2] - per[0]) / (per[1] - per[0]) }

// proxyStreamMemory holds 200 streams open on each route in turn (see
// BenchmarkProxyStreamMemory) and returns the bytes in use per stream.
func proxyStreamMemory(tb testing.TB) (per [3]float64) {
	const streams = 200
	events := splitEvents(chattest.SeqOpenAIStream(chattest.Deltas(1, 600, 64)))
	for i := range per {
		u := &eventUpstream{events: events, hold: make(chan struct{}), pause: 5 * time.Millisecond}
		urls, closeAll := costRoutes(tb, u)
		tr := &http.Transport{MaxIdleConnsPerHost: streams}
		c := &http.Client{Transport: tr}
		idle := inUse()
		u.held.Add(streams)
		var wg sync.WaitGroup
		got := make(chan struct{}, streams)
		for range streams {
			wg.Go(func() {
				resp, err := c.Post(urls[i]+"/v1/chat/completions", "application/json", strings.NewReader(costRequest))
				if err != nil {
					tb.Error(err)
					got <- struct{}{}
					return
				}
				defer resp.Body.Close()
				br := bufio.NewReader(resp.Body)
				br.Peek(1)
				got <- struct{}{}
				io.Copy(io.Discard, br)
			})
		}
		u.held.Wait()
		for range streams {
			<-got
		}
		per[i] = float64(inUse()-idle) / streams
		close(u.hold)
		wg.Wait()
		tr.CloseIdleConnections()
		closeAll()
	}
	return per
}

// inUse is the heap and stack memory in use after a collection.
func inUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse + ms.StackInuse)
}

// TestProxyCostStream checks the stream BenchmarkProxyCost uses: through
// the toolsieve proxy its calls come out as native tool calls.
func TestProxyCostStream(t *testing.T) {
	u := &eventUpstream{events: splitEvents(chattest.SeqOpenAIStream(chattest.Deltas(1, 600, 64)))}
	urls, closeAll := costRoutes(t, u)
	defer closeAll()
	resp, err := http.Post(urls[2]+"/v1/chat/completions", "application/json", strings.NewReader(costRequest))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	got := chattest.AccumulateOpenAI(t, out)
	if len(got.Calls) < 5 {
		t.Fatalf("%d calls through the proxy, want at least 5", len(got.Calls))
	}
	for _, c := range got.Calls {
		if c.Name != "search" {
			t.Fatalf("call %q, want search", c.Name)
		}
	}
}
