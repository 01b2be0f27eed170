package fuzz

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/sse"
)

// FuzzRewrite checks the stream rewriter: the content is served as an
// OpenAI and as an Anthropic stream, cut into deltas and read in pieces
// derived from the input; the rewritten stream must be valid SSE whose
// events are JSON, and once accumulated again (as an SDK would) it must
// hold the same calls, in the same order with the same arguments, and the
// same text as parsing the content directly (fed in the same deltas).
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
		pieces := rwSplit(rng, content)
		want := rwExpected(pieces)
		for _, anth := range []bool{false, true} {
			var stream []byte
			if anth {
				stream = rwAnthropicStream(pieces)
			} else {
				stream = rwOpenAIStream(pieces)
			}
			r := chat.NewRewriter(io.NopCloser(&rwPieceReader{b: stream, rng: rng}), chat.APIAuto, toolsieve.Options{IDPrefix: "id"})
			out, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			if !utf8.Valid(out) { // the upstream's stream was valid UTF-8
				t.Fatalf("anthropic=%v: the rewritten stream is not valid UTF-8\ncontent %q", anth, content)
			}
			got := rwAccumulate(t, out, anth)
			if len(got.calls) != len(want.calls) {
				t.Fatalf("anthropic=%v: %d calls, want %d\ncontent %q\ngot %v\nwant %v", anth, len(got.calls), len(want.calls), content, got.calls, want.calls)
			}
			for i := range want.calls {
				if got.calls[i][0] != want.calls[i][0] || !rwJSONEqual(got.calls[i][1], want.calls[i][1]) {
					t.Fatalf("anthropic=%v: call %d is %v, want %v\ncontent %q", anth, i, got.calls[i], want.calls[i], content)
				}
			}
			wantText := want.text
			if anth {
				wantText = rwNonBlank(want.segments)
				got.text = rwNonBlank(got.segments)
			}
			if got.text != wantText {
				t.Fatalf("anthropic=%v: text %q, want %q\ncontent %q", anth, got.text, wantText, content)
			}
		}
	})
}

// split cuts s into deltas of 1..8 bytes at character boundaries (a JSON
// string cannot carry half a character).
func rwSplit(rng *rand.Rand, s string) []string {
	var out []string
	for len(s) > 0 {
		n := min(1+rng.IntN(8), len(s))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
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

func rwQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func rwOpenAIStream(pieces []string) []byte {
	chunk := func(delta, finish string) []byte {
		return []byte(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + `}]}`)
	}
	b := sse.AppendEvent(nil, "", chunk(`{"role":"assistant","content":""}`, "null"))
	for _, p := range pieces {
		b = sse.AppendEvent(b, "", chunk(`{"content":`+rwQuote(p)+`}`, "null"))
	}
	b = sse.AppendEvent(b, "", chunk(`{}`, `"stop"`))
	return append(b, "data: [DONE]\n\n"...)
}

func rwAnthropicStream(pieces []string) []byte {
	b := sse.AppendEvent(nil, "message_start", []byte(`{"type":"message_start","message":{"id":"m1","type":"message","role":"assistant","content":[],"model":"m","usage":{"input_tokens":1,"output_tokens":1}}}`))
	b = sse.AppendEvent(b, "content_block_start", []byte(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`))
	for _, p := range pieces {
		b = sse.AppendEvent(b, "content_block_delta", []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+rwQuote(p)+`}}`))
	}
	b = sse.AppendEvent(b, "content_block_stop", []byte(`{"type":"content_block_stop","index":0}`))
	b = sse.AppendEvent(b, "message_delta", []byte(`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}`))
	return sse.AppendEvent(b, "message_stop", []byte(`{"type":"message_stop"}`))
}

// rwResult is a response: calls as (name, arguments), text, and the text
// between calls.
type rwResult struct {
	calls    [][2]string
	text     string
	segments []string
}

// rwExpected parses the content directly, fed in the same deltas as the
// stream (the parser's own chunk invariance is FuzzParse's concern), up to
// a runaway, where the rewriter stops the stream.
func rwExpected(pieces []string) rwResult {
	var r rwResult
	seg := ""
	var evs []toolsieve.Event
	p := toolsieve.NewParser(toolsieve.Options{IDPrefix: "id"})
	for _, pc := range pieces {
		for _, e := range p.Feed([]byte(pc)) {
			evs = append(evs, e.Clone())
		}
	}
	evs = append(evs, p.Close()...)
	for _, e := range evs {
		switch e.Type {
		case toolsieve.Text:
			r.text += string(e.Text)
			seg += string(e.Text)
		case toolsieve.Reasoning:
			if len(e.Text) > 0 {
				r.segments, seg = append(r.segments, seg), ""
			}
		case toolsieve.ToolCall:
			args := string(e.Arguments)
			if args == "" {
				args = "{}"
			}
			r.calls = append(r.calls, [2]string{e.Name, args})
			r.segments, seg = append(r.segments, seg), ""
		case toolsieve.Runaway:
			r.segments = append(r.segments, seg)
			return r
		}
	}
	r.segments = append(r.segments, seg)
	return r
}

// accumulate decodes a rewritten stream, checking that it is valid SSE of
// JSON events, and puts the response together.
func rwAccumulate(t *testing.T, stream []byte, anth bool) rwResult {
	var d sse.Decoder
	evs, _ := d.Feed(stream)
	more, _ := d.Close()
	evs = append(evs, more...)
	var r rwResult
	type block struct{ typ, name, text, input string }
	var blocks []*block
	for _, ev := range evs {
		if ev.Err != nil || ev.Unterminated {
			t.Fatalf("bad SSE block at %d", ev.Offset)
		}
		if !ev.IsMessage() {
			continue
		}
		if string(ev.Data) == "[DONE]" {
			continue
		}
		if !json.Valid(ev.Data) || !utf8.Valid(ev.Data) {
			t.Fatalf("event data is not valid JSON: %q", ev.Data)
		}
		if !anth {
			var c struct {
				Choices []struct {
					Delta struct {
						Content   string `json:"content"`
						ToolCalls []struct {
							Index    int `json:"index"`
							Function struct {
								Name      string `json:"name"`
								Arguments string `json:"arguments"`
							} `json:"function"`
						} `json:"tool_calls"`
					} `json:"delta"`
				} `json:"choices"`
			}
			if err := json.Unmarshal(ev.Data, &c); err != nil {
				t.Fatal(err)
			}
			for _, ch := range c.Choices {
				r.text += ch.Delta.Content
				for _, tc := range ch.Delta.ToolCalls {
					if tc.Index > len(r.calls) {
						t.Fatalf("tool call index %d after %d calls", tc.Index, len(r.calls))
					}
					if tc.Index == len(r.calls) {
						r.calls = append(r.calls, [2]string{})
					}
					r.calls[tc.Index][0] += tc.Function.Name
					r.calls[tc.Index][1] += tc.Function.Arguments
				}
			}
			continue
		}
		var e struct {
			Type         string `json:"type"`
			Index        int    `json:"index"`
			ContentBlock struct {
				Type, Name string
			} `json:"content_block"`
			Delta struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				PartialJSON string `json:"partial_json"`
			} `json:"delta"`
		}
		if err := json.Unmarshal(ev.Data, &e); err != nil {
			t.Fatal(err)
		}
		switch e.Type {
		case "content_block_start":
			if e.Index != len(blocks) {
				t.Fatalf("block %d started after %d blocks", e.Index, len(blocks))
			}
			blocks = append(blocks, &block{typ: e.ContentBlock.Type, name: e.ContentBlock.Name})
		case "content_block_delta":
			if e.Index >= len(blocks) {
				t.Fatalf("delta to block %d of %d", e.Index, len(blocks))
			}
			blocks[e.Index].text += e.Delta.Text
			blocks[e.Index].input += e.Delta.PartialJSON
		}
	}
	for _, b := range blocks {
		switch b.typ {
		case "text":
			r.segments = append(r.segments, b.text)
		case "tool_use":
			r.calls = append(r.calls, [2]string{b.name, b.input})
		}
	}
	return r
}

func rwNonBlank(segs []string) string {
	var b strings.Builder
	for _, s := range segs {
		if strings.TrimSpace(s) != "" {
			b.WriteString(s)
		}
	}
	return b.String()
}

func rwJSONEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
