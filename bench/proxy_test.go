package bench

// Benchmarks of the HTTP side: the latency the proxy adds to each chunk of
// a stream over loopback, and the stream rewriter's throughput.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"io"
	"log/slog"
	"math/rand/v2"
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
	"github.com/toolsieve/toolsieve/sse"
)

// pxWords is the vocabulary of the generated prose.
var pxWords = strings.Fields("the model writes a tool call when it needs data from outside and " +
	"plain text otherwise so most of a stream is prose like this with now and then a call " +
	"杭州 über naïve — “quoted” words and numbers 42 3.14")

// pxDeltas makes a model's content as deltas of about one token each:
// prose with a newline every dozen words and, with calls, a hermes call
// (split into token-sized deltas too) every callEvery deltas.
func pxDeltas(seed uint64, n, callEvery int) []string {
	rng := rand.New(rand.NewPCG(seed, 1))
	var out []string
	for i := 0; len(out) < n; i++ {
		w := pxWords[rng.IntN(len(pxWords))]
		if i%12 == 11 {
			w += ".\n"
		} else {
			w += " "
		}
		out = append(out, w)
		if callEvery > 0 && i%callEvery == callEvery-1 {
			call := "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"q\": \"item " + strconv.Itoa(i) + "\", \"n\": 5}}\n</tool_call>\n"
			for len(call) > 0 {
				k := min(1+rng.IntN(6), len(call))
				out = append(out, call[:k])
				call = call[k:]
			}
		}
	}
	return out
}

// pxChunk is one OpenAI chunk carrying delta content and a sequence number
// (an unknown field, which the rewriter keeps).
func pxChunk(seq int, content string) []byte {
	c, _ := json.Marshal(content)
	return []byte(`{"id":"chatcmpl-b","object":"chat.completion.chunk","created":1,"model":"m","seq":` + strconv.Itoa(seq) +
		`,"choices":[{"index":0,"delta":{"content":` + string(c) + `},"logprobs":null,"finish_reason":null}]}`)
}

func pxOpenAIStream(deltas []string) []byte {
	var b []byte
	for i, d := range deltas {
		b = sse.AppendEvent(b, "", pxChunk(i, d))
	}
	b = sse.AppendEvent(b, "", []byte(`{"id":"chatcmpl-b","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`))
	return append(b, "data: [DONE]\n\n"...)
}

func pxAnthropicStream(deltas []string) []byte {
	b := sse.AppendEvent(nil, "message_start", []byte(`{"type":"message_start","message":{"id":"msg_b","type":"message","role":"assistant","content":[],"model":"m","usage":{"input_tokens":1,"output_tokens":1}}}`))
	b = sse.AppendEvent(b, "content_block_start", []byte(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`))
	for _, d := range deltas {
		c, _ := json.Marshal(d)
		b = sse.AppendEvent(b, "content_block_delta", []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+string(c)+`}}`))
	}
	b = sse.AppendEvent(b, "content_block_stop", []byte(`{"type":"content_block_stop","index":0}`))
	b = sse.AppendEvent(b, "message_delta", []byte(`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}`))
	return sse.AppendEvent(b, "message_stop", []byte(`{"type":"message_stop"}`))
}

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
		buf = sse.AppendEvent(buf[:0], "", pxChunk(i, d))
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
	deltas := pxDeltas(1, 256, 64)
	for _, via := range []string{"direct", "proxy"} {
		b.Run(via, func(b *testing.B) {
			l := &lockstep{deltas: deltas, sent: make([]time.Time, len(deltas)), ack: make(chan int, 1)}
			up := httptest.NewServer(l)
			defer up.Close()
			target := up.URL
			if via == "proxy" {
				u, _ := url.Parse(up.URL)
				p := toolsieve.NewProxy(u, toolsieve.Options{})
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
		anthropic bool
		callEvery int
	}{
		{"openai/plain", false, 0},
		{"openai/calls", false, 64},
		{"anthropic/plain", true, 0},
		{"anthropic/calls", true, 64},
	} {
		b.Run(tc.name, func(b *testing.B) {
			deltas := pxDeltas(2, 6000, tc.callEvery)
			var stream []byte
			if tc.anthropic {
				stream = pxAnthropicStream(deltas)
			} else {
				stream = pxOpenAIStream(deltas)
			}
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for b.Loop() {
				r := toolsieve.NewRewriter(io.NopCloser(bytes.NewReader(stream)), toolsieve.APIAuto, toolsieve.Options{IDPrefix: "id"})
				if _, err := io.Copy(io.Discard, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOpenAIDecode is the yardstick for BenchmarkRewriterThroughput:
// what openai-go itself spends decoding the same stream into chunks
// (ssestream + JSON), which every client of the proxy pays anyway.
func BenchmarkOpenAIDecode(b *testing.B) {
	for _, tc := range []struct {
		name      string
		callEvery int
	}{{"plain", 0}, {"calls", 64}} {
		b.Run(tc.name, func(b *testing.B) {
			stream := pxOpenAIStream(pxDeltas(2, 6000, tc.callEvery))
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for b.Loop() {
				resp := &http.Response{
					Header: http.Header{"Content-Type": []string{"text/event-stream"}},
					Body:   io.NopCloser(bytes.NewReader(stream)),
				}
				s := ssestream.NewStream[openai.ChatCompletionChunk](ssestream.NewDecoder(resp), nil)
				for s.Next() {
					_ = s.Current()
				}
				if err := s.Err(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestBenchStreams checks the streams the benchmarks use: the calls they
// hold come out of the rewriter.
func TestBenchStreams(t *testing.T) {
	deltas := pxDeltas(2, 600, 64)
	for _, stream := range [][]byte{pxOpenAIStream(deltas), pxAnthropicStream(deltas)} {
		r := toolsieve.NewRewriter(io.NopCloser(bytes.NewReader(stream)), toolsieve.APIAuto, toolsieve.Options{})
		if _, err := io.Copy(io.Discard, r); err != nil {
			t.Fatal(err)
		}
		if st := r.Stats(); st.Calls < 5 || st.Errors > 0 {
			t.Fatalf("stats %+v", st)
		}
	}
}
