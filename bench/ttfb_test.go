package bench

import (
	"bufio"
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat/chattest"
	"github.com/toolsieve/toolsieve/sievehttp"
	"github.com/toolsieve/toolsieve/sse"
)

// pacedUpstream sends an OpenAI stream of pieces, one every gap, and
// notes when it sent the piece that holds the call's name.
type pacedUpstream struct {
	pieces []string
	gap    time.Duration
	named  atomic.Int64 // unix ns of the send of pieces[1] (the name's markup)
}

func (u *pacedUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	var buf []byte
	for i, p := range u.pieces {
		buf = sse.AppendEvent(buf[:0], "", []byte(chattest.OpenAIChunk(`{"content":`+chattest.Quote(p)+`}`, "")))
		if i == 1 {
			u.named.Store(time.Now().UnixNano())
		}
		if _, err := w.Write(buf); err != nil {
			return
		}
		rc.Flush()
		time.Sleep(u.gap)
	}
	w.Write(sse.AppendEvent(buf[:0], "", []byte(chattest.OpenAIChunk(`{}`, "stop"))))
	io.WriteString(w, "data: [DONE]\n\n")
}

// BenchmarkTimeToFirstToolByte: an upstream writes a 40 KB write_file call
// (Qwen3-Coder markup) over about 2 s, in 209 chunks 10 ms apart. Through
// the proxy, with calls streamed and not, it measures how long after the
// upstream sent the name's markup the client got the call's first byte
// (its name), and how long the whole answer took.
func BenchmarkTimeToFirstToolByte(b *testing.B) {
	pieces, _ := chattest.WriteFilePieces()
	for _, streamed := range []bool{true, false} {
		name := "stream_calls=off"
		if streamed {
			name = "stream_calls=on"
		}
		b.Run(name, func(b *testing.B) {
			up := &pacedUpstream{pieces: pieces, gap: 10 * time.Millisecond}
			us := httptest.NewServer(up)
			defer us.Close()
			u, _ := url.Parse(us.URL)
			p := sievehttp.NewProxy(u, toolsieve.Options{})
			p.Logger = slog.New(slog.DiscardHandler)
			p.Policy = &sievehttp.Policy{Default: sievehttp.Rule{StreamCalls: &streamed}}
			ps := httptest.NewServer(p)
			defer ps.Close()
			var first, total time.Duration
			for b.Loop() {
				start := time.Now()
				resp, err := http.Post(ps.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true}`))
				if err != nil {
					b.Fatal(err)
				}
				br := bufio.NewReader(resp.Body)
				seen := false
				for {
					line, err := br.ReadSlice('\n')
					if !seen && bytes.Contains(line, []byte(`"tool_calls"`)) {
						seen = true
						first += time.Since(time.Unix(0, up.named.Load()))
					}
					if err != nil {
						break
					}
				}
				resp.Body.Close()
				total += time.Since(start)
				if !seen {
					b.Fatal("no tool call")
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(first.Milliseconds())/n, "ms-name-after-markup")
			b.ReportMetric(float64(total.Milliseconds())/n, "ms-answer")
		})
	}
}
