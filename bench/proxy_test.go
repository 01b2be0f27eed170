package bench

// Benchmarks of the HTTP side: the latency the proxy adds to each chunk of
// a stream over loopback, and the stream rewriter's throughput.

import (
	"bufio"
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
	"github.com/toolsieve/toolsieve/sievehttp"
	"github.com/toolsieve/toolsieve/sse"
)

// lockstep is a test upstream that sends one chunk, then waits until the
// client has read it (or a chunk after it) before sending the next, so that
// each chunk's latency is measured alone. A chunk the rewriter holds back
// (markup) is given up on after a short wait.
type lockstep struct {
	deltas []string
	mu     sync.Mutex
	sent   []time.Time
	ack    chan int
}

func (l *lockstep) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var buf []byte
	for i, d := range l.deltas {
		buf = sse.AppendEvent(buf[:0], "", chattest.SeqChunk(i, d))
		l.mu.Lock()
		l.sent[i] = time.Now()
		l.mu.Unlock()
		if _, err := w.Write(buf); err != nil {
			return
		}
		rc.Flush()
		timer.Reset(2 * time.Millisecond)
	wait:
		for {
			select {
			case s := <-l.ack:
				if s >= i {
					break wait
				}
			case <-timer.C:
				break wait
			case <-r.Context().Done():
				return
			}
		}
	}
	io.WriteString(w, "data: [DONE]\n\n")
}

// BenchmarkProxyChunkLatency measures, per chunk, the time from the
// upstream's write to the client's read of the event, over loopback,
// directly and through the proxy; the proxy's added latency is the
// difference. Each op is one stream of 256 chunks (mostly prose, with a
// tool call every 64 deltas).
func BenchmarkProxyChunkLatency(b *testing.B) {
	deltas := chattest.Deltas(1, 256, 64)
	for _, via := range []string{"direct", "proxy"} {
		b.Run(via, func(b *testing.B) {
			l := &lockstep{deltas: deltas, sent: make([]time.Time, len(deltas)), ack: make(chan int, 1)}
			up := httptest.NewServer(l)
			defer up.Close()
			target := up.URL
			if via == "proxy" {
				u, _ := url.Parse(up.URL)
				p := sievehttp.NewProxy(u, toolsieve.Options{})
				p.Logger = slog.New(slog.DiscardHandler)
				ps := httptest.NewServer(p)
				defer ps.Close()
				target = ps.URL
			}
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr}
			var lat []time.Duration
			b.ReportAllocs()
			for b.Loop() {
				resp, err := client.Post(target+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
				if err != nil {
					b.Fatal(err)
				}
				br := bufio.NewReader(resp.Body)
				for {
					line, err := br.ReadSlice('\n')
					if err != nil {
						break
					}
					now := time.Now()
					i := bytes.Index(line, []byte(`"seq":`))
					if i < 0 {
						continue
					}
					j := i + 6
					for j < len(line) && line[j] >= '0' && line[j] <= '9' {
						j++
					}
					seq, _ := strconv.Atoi(string(line[i+6 : j]))
					l.mu.Lock()
					lat = append(lat, now.Sub(l.sent[seq]))
					l.mu.Unlock()
					select {
					case l.ack <- seq:
					default:
					}
				}
				resp.Body.Close()
			}
			if len(lat) == 0 {
				b.Fatal("no chunk measured")
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs/chunk")
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs/chunk")
		})
	}
}

// BenchmarkRewriterThroughput measures the stream rewriter alone on about
// 1 MiB of SSE: MB/s of SSE in, and allocations per stream.
func BenchmarkRewriterThroughput(b *testing.B) {
	for _, tc := range []struct {
		name      string
		stream    func([]string) []byte
		callEvery int
	}{
		{"openai/plain", chattest.SeqOpenAIStream, 0},
		{"openai/calls", chattest.SeqOpenAIStream, 64},
		// Chunks alike but for their content, as most providers send them.
		{"openai/calls-alike", chattest.OpenAIStream, 64},
		{"anthropic/plain", chattest.TextAnthropicStream, 0},
		{"anthropic/calls", chattest.TextAnthropicStream, 64},
		{"responses/plain", chattest.ResponsesStream, 0},
		{"responses/calls", chattest.ResponsesStream, 64},
	} {
		b.Run(tc.name, func(b *testing.B) {
			stream := tc.stream(chattest.Deltas(2, 6000, tc.callEvery))
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for b.Loop() {
				r := chat.NewRewriter(io.NopCloser(bytes.NewReader(stream)), chat.APIAuto, toolsieve.Options{IDPrefix: "id"})
				if _, err := io.Copy(io.Discard, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestBenchStreams checks the streams the benchmarks use: the calls they
// hold come out of the rewriter.
func TestBenchStreams(t *testing.T) {
	deltas := chattest.Deltas(2, 600, 64)
	for _, stream := range [][]byte{chattest.SeqOpenAIStream(deltas), chattest.TextAnthropicStream(deltas), chattest.ResponsesStream(deltas)} {
		r := chat.NewRewriter(io.NopCloser(bytes.NewReader(stream)), chat.APIAuto, toolsieve.Options{})
		if _, err := io.Copy(io.Discard, r); err != nil {
			t.Fatal(err)
		}
		if st := r.Stats(); st.Calls < 5 || st.Errors > 0 {
			t.Fatalf("stats %+v", st)
		}
	}
}
