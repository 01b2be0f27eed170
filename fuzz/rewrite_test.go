package fuzz

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// FuzzRewrite checks the stream rewriter: the content is served as an
// OpenAI and as an Anthropic stream, cut into deltas and read in pieces
// derived from the input; the rewritten stream must be valid SSE whose
// events are JSON, and once accumulated again (as an SDK would) it must
// hold the same calls, in the same order with the same arguments, and the
// same text as parsing the content directly.
func FuzzRewrite(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "cases", "*.json"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var cases []struct {
			Input string `json:"input"`
		}
		if err := json.Unmarshal(data, &cases); err != nil {
			f.Fatal(err)
		}
		for _, c := range cases {
			f.Add([]byte(c.Input), uint64(len(c.Input)))
		}
	}
	f.Add([]byte("plain text only\nwith lines"), uint64(1))
	// Regressions: blank text before markup that is not a call, and a call
	// closed differently depending on the cuts.
	f.Add([]byte(" </invoke<"), uint64(230))
	f.Add([]byte("00000000000000<invoke nAme=\"000000000000000\" {0000A>"), uint64(230))
	f.Add([]byte("<think>why</think>a<tool_call>get_time</tool_call>\n b"), uint64(2))
	// A misspelt closer after a long line, cut inside a character (issue 12).
	f.Add([]byte("<function_calls>\n<invoke name=\"ls\">\n"+strings.Repeat("a", 63)+"日invfunction_calls>"), uint64(64))

	f.Fuzz(func(t *testing.T, in []byte, seed uint64) {
		if len(in) > 4096 {
			return
		}
		// The content as a client would see it: valid UTF-8.
		content := strings.ToValidUTF8(string(in), "\uFFFD")
		rng := rand.New(rand.NewPCG(seed, seed>>7|1))
		// Deltas of 1..8 bytes at character boundaries (a JSON string
		// cannot carry half a character).
		pieces := chattest.SplitContent(rng, content, 8, false)
		opt := toolsieve.Options{IDPrefix: "id"}
		want := chattest.Expected(content, opt)
		for _, api := range []chat.API{chat.APIOpenAI, chat.APIAnthropic, chat.APIResponses} {
			var stream []byte
			switch api {
			case chat.APIOpenAI:
				stream = chattest.OpenAIStream(pieces)
			case chat.APIAnthropic:
				stream = chattest.AnthropicStream(pieces)
			default:
				stream = chattest.ResponsesStream(pieces)
			}
			r := chat.NewRewriter(io.NopCloser(&rwPieceReader{b: stream, rng: rng}), chat.APIAuto, opt)
			out, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			if !utf8.Valid(out) { // the upstream's stream was valid UTF-8
				t.Fatalf("%s: the rewritten stream is not valid UTF-8\ncontent %q", api, content)
			}
			var got chattest.Response
			switch api {
			case chat.APIOpenAI:
				got = chattest.AccumulateOpenAI(t, out)
			case chat.APIAnthropic:
				got = chattest.AccumulateAnthropic(t, out)
			default:
				got = chattest.AccumulateResponses(t, out)
			}
			msg := fmt.Sprintf("%s, content %q", api, content)
			chattest.SameCalls(t, want.Calls, got.Calls, msg)
			wantText, gotText := want.Text, got.Text
			if api != chat.APIOpenAI {
				// No blank text blocks or message items around calls.
				wantText, gotText = chattest.NonBlank(want.Segments), chattest.NonBlank(got.Segments)
			} else if gotText == "" && len(want.Calls) > 0 && strings.TrimSpace(wantText) == "" {
				wantText = "" // blank text around calls may be dropped
			}
			if gotText != wantText {
				t.Fatalf("%s: text %q, want %q", msg, gotText, wantText)
			}
		}
	})
}

// rwPieceReader returns b in reads of random sizes.
type rwPieceReader struct {
	b   []byte
	rng *rand.Rand
}

func (p *rwPieceReader) Read(dst []byte) (int, error) {
	if len(p.b) == 0 {
		return 0, io.EOF
	}
	n := min(1+p.rng.IntN(40), len(p.b), len(dst))
	copy(dst, p.b[:n])
	p.b = p.b[n:]
	return n, nil
}
