package peers

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// The yardstick of the main module's BenchmarkRewriterThroughput, here
// because it needs openai-go: what the SDK itself spends decoding the same
// stream into chunks, which every client of the proxy pays anyway.

// BenchmarkOpenAIDecode is the yardstick for BenchmarkRewriterThroughput:
// what openai-go itself spends decoding the same stream into chunks
// (ssestream + JSON), which every client of the proxy pays anyway.
func BenchmarkOpenAIDecode(b *testing.B) {
	for _, tc := range []struct {
		name      string
		callEvery int
	}{{"plain", 0}, {"calls", 64}} {
		b.Run(tc.name, func(b *testing.B) {
			stream := chattest.SeqOpenAIStream(chattest.Deltas(2, 6000, tc.callEvery))
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for b.Loop() {
				if err := decodeOpenAI(stream); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// decodeOpenAI decodes an OpenAI stream into chunks with openai-go, as a
// client of the proxy does.
func decodeOpenAI(stream []byte) error {
	resp := &http.Response{
		Header: http.Header{"Content-Type": []string{"text/event-stream"}},
		Body:   io.NopCloser(bytes.NewReader(stream)),
	}
	s := ssestream.NewStream[openai.ChatCompletionChunk](ssestream.NewDecoder(resp), nil)
	for s.Next() {
		_ = s.Current()
	}
	return s.Err()
}
