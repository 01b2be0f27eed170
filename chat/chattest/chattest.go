// Package chattest builds chat completion streams and documents of the
// APIs (OpenAI chat, Anthropic Messages, the Responses API) around a model's
// content, and puts rewritten responses back
// together, checking that they are well formed. It is for tests of code
// that reads or rewrites chat responses, toolsieve's own included.
package chattest

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/sse"
)

// Case is a fixture of testdata/cases used as a model's content.
type Case struct {
	File  string
	Name  string          `json:"name"`
	Input string          `json:"input"`
	Tools json.RawMessage `json:"tools,omitempty"`
	Calls []struct {
		Name string `json:"name"`
	} `json:"calls"`
	Options struct {
		MarkupInCode bool     `json:"markup_in_code"`
		Dialects     []string `json:"dialects"`
		MaxCallBytes int      `json:"max_call_bytes"`
	} `json:"options"`
}

func (c *Case) ParserOptions(t testing.TB) toolsieve.Options {
	opt := toolsieve.Options{MarkupInCode: c.Options.MarkupInCode, Dialects: c.Options.Dialects,
		MaxCallBytes: c.Options.MaxCallBytes, IDPrefix: "id"}
	if len(c.Tools) > 0 {
		tools, err := toolsieve.ParseTools(c.Tools)
		require.NoError(t, err)
		opt.Tools = tools
	}
	return opt
}

// LoadCases reads the named fixture files (all when none are named) from
// dir, a directory like toolsieve's testdata/cases.
func LoadCases(t testing.TB, dir string, files ...string) []Case {
	if len(files) == 0 {
		all, err := filepath.Glob(filepath.Join(dir, "*.json"))
		require.NoError(t, err)
		for _, f := range all {
			files = append(files, strings.TrimSuffix(filepath.Base(f), ".json"))
		}
	}
	var out []Case
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f+".json"))
		require.NoError(t, err)
		var cs []Case
		require.NoError(t, json.Unmarshal(data, &cs), f)
		for i := range cs {
			cs[i].File = f
		}
		out = append(out, cs...)
	}
	return out
}

// SplitContent cuts s into pieces of 1..max bytes; with cutChars the cuts
// may fall inside multi-byte characters.
func SplitContent(rng *rand.Rand, s string, max int, cutChars bool) []string {
	var out []string
	for len(s) > 0 {
		n := 1 + rng.IntN(max)
		if n > len(s) {
			n = len(s)
		}
		if !cutChars {
			for n < len(s) && !utf8.RuneStart(s[n]) {
				n++
			}
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// OpenAIChunk is the JSON of one OpenAI chunk with the given delta and finish.
func OpenAIChunk(delta, finish string) string {
	f := "null"
	if finish != "" {
		f = strconv.Quote(finish)
	}
	return `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":` +
		delta + `,"logprobs":null,"finish_reason":` + f + `}]}`
}

// OpenAIStream makes an OpenAI chat completion stream of the pieces.
func OpenAIStream(pieces []string) []byte {
	var b []byte
	b = sse.AppendEvent(b, "", []byte(OpenAIChunk(`{"role":"assistant","content":""}`, "")))
	for _, p := range pieces {
		b = sse.AppendEvent(b, "", []byte(OpenAIChunk(string(jsonspan.AppendQuoted([]byte(`{"content":`), p))+"}", "")))
	}
	b = sse.AppendEvent(b, "", []byte(OpenAIChunk(`{}`, "stop")))
	b = sse.AppendEvent(b, "", []byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}}`))
	return append(b, "data: [DONE]\n\n"...)
}

// AnthropicStream makes an Anthropic Messages stream of the pieces.
func AnthropicStream(pieces []string) []byte {
	var b []byte
	b = sse.AppendEvent(b, "message_start", []byte(`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}`))
	b = sse.AppendEvent(b, "content_block_start", []byte(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`))
	b = sse.AppendEvent(b, "ping", []byte(`{"type": "ping"}`))
	for _, p := range pieces {
		b = sse.AppendEvent(b, "content_block_delta", jsonspan.AppendQuoted([]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`), p))
		b = append(b[:len(b)-2], "}}\n\n"...)
	}
	b = sse.AppendEvent(b, "content_block_stop", []byte(`{"type":"content_block_stop","index":0}`))
	b = sse.AppendEvent(b, "message_delta", []byte(`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":7}}`))
	return sse.AppendEvent(b, "message_stop", []byte(`{"type":"message_stop"}`))
}

// OpenAIDoc and AnthropicDoc make non-streamed responses.
func OpenAIDoc(content string) []byte {
	return []byte(`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":` +
		string(jsonspan.AppendQuoted(nil, content)) + `,"refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}}`)
}

func AnthropicDoc(content string) []byte {
	return []byte(`{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":` +
		string(jsonspan.AppendQuoted(nil, content)) + `}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":7}}`)
}

// Call is a tool call of a response.
type Call struct {
	ID, Name string
	Args     string
}

// Response is a response put together from its stream.
type Response struct {
	Text      string
	Reasoning string
	Calls     []Call
	Finish    string
	// Segments are the text blocks (Anthropic) in order.
	Segments []string
	Usage    string
	// Runaway is set by Expected when the content ends in a loop.
	Runaway bool
	// Errors are the data of the error events of the stream (the last
	// events: nothing may follow one).
	Errors []string
}

// AccumulateOpenAI puts an OpenAI stream (choice 0) together, checking
// that it is well formed: valid JSON, one id, dense tool call indexes.
func AccumulateOpenAI(t testing.TB, stream []byte) Response {
	var a Response
	var d sse.Decoder
	evs, _ := d.Feed(stream)
	more, _ := d.Close()
	evs = append(evs, more...)
	done := false
	id := ""
	for _, ev := range evs {
		if !ev.IsMessage() {
			continue
		}
		require.False(t, done, "event after [DONE]")
		require.Empty(t, a.Errors, "event after an error: %s", ev.Data)
		if string(ev.Data) == "[DONE]" {
			done = true
			continue
		}
		var c struct {
			ID      string `json:"id"`
			Choices []struct {
				Index int `json:"index"`
				Delta struct {
					Content   *string `json:"content"`
					Reasoning *string `json:"reasoning_content"`
					ToolCalls []struct {
						Index    int    `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				Finish *string `json:"finish_reason"`
			} `json:"choices"`
			Usage json.RawMessage `json:"usage"`
			Error json.RawMessage `json:"error"`
		}
		require.NoError(t, json.Unmarshal(ev.Data, &c), "%s", ev.Data)
		if len(c.Error) > 0 {
			a.Errors = append(a.Errors, string(ev.Data))
			continue
		}
		if id == "" {
			id = c.ID
		}
		require.Equal(t, id, c.ID, "chunk ids differ")
		if len(c.Usage) > 0 && string(c.Usage) != "null" {
			require.Empty(t, a.Usage, "usage twice")
			a.Usage = string(c.Usage)
		}
		for _, ch := range c.Choices {
			if ch.Index != 0 {
				continue
			}
			if ch.Delta.Content != nil {
				a.Text += *ch.Delta.Content
			}
			if ch.Delta.Reasoning != nil {
				a.Reasoning += *ch.Delta.Reasoning
			}
			for _, tc := range ch.Delta.ToolCalls {
				require.LessOrEqual(t, tc.Index, len(a.Calls), "tool call index gap")
				if tc.Index == len(a.Calls) {
					a.Calls = append(a.Calls, Call{})
				}
				cl := &a.Calls[tc.Index]
				if tc.ID != "" {
					cl.ID = tc.ID
				}
				cl.Name += tc.Function.Name
				cl.Args += tc.Function.Arguments
			}
			if ch.Finish != nil {
				require.Empty(t, a.Finish, "finish_reason twice")
				a.Finish = *ch.Finish
			}
		}
	}
	return a
}

// AccumulateAnthropic puts an Anthropic stream together, checking block
// order and pairing as the SDK does.
func AccumulateAnthropic(t testing.TB, stream []byte) Response {
	var a Response
	var d sse.Decoder
	evs, _ := d.Feed(stream)
	more, _ := d.Close()
	evs = append(evs, more...)
	type block struct {
		typ, text, thinking, input, id, name string
		open                                 bool
	}
	var blocks []*block
	for _, ev := range evs {
		if !ev.IsMessage() {
			continue
		}
		var e struct {
			Type         string `json:"type"`
			Index        int    `json:"index"`
			ContentBlock struct {
				Type string `json:"type"`
				Text string `json:"text"`
				ID   string `json:"id"`
				Name string `json:"name"`
			} `json:"content_block"`
			Delta struct {
				Type        string  `json:"type"`
				Text        string  `json:"text"`
				Thinking    string  `json:"thinking"`
				PartialJSON string  `json:"partial_json"`
				StopReason  *string `json:"stop_reason"`
			} `json:"delta"`
		}
		require.NoError(t, json.Unmarshal(ev.Data, &e), "%s", ev.Data)
		require.Equal(t, e.Type, ev.Type, "event name and type differ")
		require.Empty(t, a.Errors, "event after an error: %s", ev.Data)
		switch e.Type {
		case "error":
			a.Errors = append(a.Errors, string(ev.Data))
		case "content_block_start":
			require.Equal(t, len(blocks), e.Index, "block start out of order")
			blocks = append(blocks, &block{typ: e.ContentBlock.Type, text: e.ContentBlock.Text, id: e.ContentBlock.ID, name: e.ContentBlock.Name, open: true})
		case "content_block_delta":
			require.Less(t, e.Index, len(blocks))
			b := blocks[e.Index]
			require.True(t, b.open, "delta to a closed block")
			switch e.Delta.Type {
			case "text_delta":
				require.Equal(t, "text", b.typ)
				b.text += e.Delta.Text
			case "thinking_delta":
				require.Equal(t, "thinking", b.typ)
				b.thinking += e.Delta.Thinking
			case "input_json_delta":
				require.Equal(t, "tool_use", b.typ)
				b.input += e.Delta.PartialJSON
			}
		case "content_block_stop":
			require.Less(t, e.Index, len(blocks))
			require.True(t, blocks[e.Index].open, "block stopped twice")
			blocks[e.Index].open = false
		case "message_delta":
			if e.Delta.StopReason != nil {
				a.Finish = *e.Delta.StopReason
			}
		}
	}
	for _, b := range blocks {
		switch b.typ {
		case "text":
			a.Text += b.text
			a.Segments = append(a.Segments, b.text)
		case "thinking":
			a.Reasoning += b.thinking
		case "tool_use":
			a.Calls = append(a.Calls, Call{ID: b.id, Name: b.name, Args: b.input})
		}
	}
	return a
}

// Expected is what a response should come back as: the parser's reading
// of the content.
func Expected(content string, opt toolsieve.Options) Response {
	var a Response
	seg := ""
	for _, e := range toolsieve.Parse([]byte(content), opt) {
		switch e.Type {
		case toolsieve.Text:
			a.Text += string(e.Text)
			seg += string(e.Text)
		case toolsieve.Reasoning:
			if len(e.Text) > 0 {
				a.Reasoning += string(e.Text)
				a.Segments = append(a.Segments, seg)
				seg = ""
			}
		case toolsieve.ToolCall:
			a.Calls = append(a.Calls, Call{ID: e.ID, Name: e.Name, Args: string(argsOf(&e))})
			a.Segments = append(a.Segments, seg)
			seg = ""
		case toolsieve.Runaway:
			a.Segments = append(a.Segments, seg)
			a.Runaway = true
			return a
		}
	}
	a.Segments = append(a.Segments, seg)
	return a
}

// NonBlank joins the segments that are not blank: Anthropic output drops
// blank text between markup.
func NonBlank(segs []string) string {
	var b strings.Builder
	for _, s := range segs {
		if strings.TrimSpace(s) != "" {
			b.WriteString(s)
		}
	}
	return b.String()
}

// SameCalls checks names and arguments (as JSON values).
func SameCalls(t testing.TB, want, got []Call, msg string) {
	t.Helper()
	require.Equal(t, len(want), len(got), "%s: number of calls\nwant %v\ngot  %v", msg, want, got)
	for i := range want {
		assert.Equal(t, want[i].Name, got[i].Name, "%s: call %d name", msg, i)
		assert.JSONEq(t, want[i].Args, got[i].Args, "%s: call %d arguments", msg, i)
	}
}

// RewriteAll runs the rewriter over in, read from a body that returns it in
// pieces of at most chunk bytes.
func RewriteAll(t testing.TB, in []byte, api chat.API, opt toolsieve.Options, chunk int) ([]byte, chat.RewriteStats) {
	r := chat.NewRewriter(io.NopCloser(NewChunkReader(in, chunk)), api, opt)
	out, err := io.ReadAll(r)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	return out, r.Stats()
}

// RewriteNotes runs the rewriter over in, read in pieces of at most chunk
// bytes (0: whole), and returns its output, its stats, the messages of the
// error events it reported and the error its body ended with.
func RewriteNotes(in []byte, api chat.API, opt toolsieve.Options, chunk int) (out []byte, st chat.RewriteStats, errs []string, err error) {
	r := chat.NewRewriter(io.NopCloser(NewChunkReader(in, chunk)), api, opt)
	r.Notify = func(e *toolsieve.Event) {
		if e.Type == toolsieve.Error {
			errs = append(errs, e.Message)
		}
	}
	out, err = io.ReadAll(r)
	r.Close()
	return out, r.Stats(), errs, err
}

// ChunkReader returns b in reads of at most n bytes.
type ChunkReader struct {
	b []byte
	n int
}

// NewChunkReader returns a reader of b in reads of at most n bytes (0: all).
func NewChunkReader(b []byte, n int) *ChunkReader { return &ChunkReader{b: b, n: n} }

func (c *ChunkReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := len(c.b)
	if c.n > 0 && n > c.n {
		n = c.n
	}
	if n > len(p) {
		n = len(p)
	}
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

// CheckResponse compares a rewritten response with the parser's reading.
func CheckResponse(t testing.TB, api chat.API, content string, opt toolsieve.Options, got Response, msg string) {
	t.Helper()
	want := Expected(content, opt)
	SameCalls(t, want.Calls, got.Calls, msg)
	switch api {
	case chat.APIAnthropic:
		require.Equal(t, NonBlank(want.Segments), NonBlank(got.Segments), "%s: text", msg)
		switch {
		case want.Runaway: // cut short, as by the token limit
			require.Equal(t, "max_tokens", got.Finish, msg)
		case len(want.Calls) > 0:
			require.Equal(t, "tool_use", got.Finish, msg)
		default:
			require.Equal(t, "end_turn", got.Finish, msg)
		}
	case chat.APIResponses:
		// Messages hold no blank text around calls; the status says
		// whether the answer was cut.
		require.Equal(t, NonBlank(want.Segments), NonBlank(got.Segments), "%s: text", msg)
		if want.Runaway {
			require.Equal(t, "incomplete", got.Finish, msg)
		} else {
			require.Equal(t, "completed", got.Finish, msg)
		}
	default:
		if !(got.Text == "" && len(want.Calls) > 0 && strings.TrimSpace(want.Text) == "") {
			require.Equal(t, want.Text, got.Text, "%s: text", msg)
		}
		switch {
		case want.Runaway:
			require.Equal(t, "length", got.Finish, msg)
		case len(want.Calls) > 0:
			require.Equal(t, "tool_calls", got.Finish, msg)
		default:
			require.Equal(t, "stop", got.Finish, msg)
		}
	}
	require.Equal(t, want.Reasoning, got.Reasoning, "%s: reasoning", msg)
}

// AccumulateDoc reads a non-streamed response.
func AccumulateDoc(t testing.TB, api chat.API, doc []byte) Response {
	var a Response
	if api == chat.APIResponses {
		return accumulateResponsesDoc(t, doc)
	}
	if api == chat.APIOpenAI {
		var r struct {
			Choices []struct {
				Message struct {
					Content   *string `json:"content"`
					Reasoning string  `json:"reasoning_content"`
					ToolCalls []struct {
						ID       string `json:"id"`
						Type     string `json:"type"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"message"`
				Finish string `json:"finish_reason"`
			} `json:"choices"`
		}
		require.NoError(t, json.Unmarshal(doc, &r))
		m := r.Choices[0].Message
		if m.Content != nil {
			a.Text = *m.Content
		}
		a.Reasoning = m.Reasoning
		for _, c := range m.ToolCalls {
			require.Equal(t, "function", c.Type)
			a.Calls = append(a.Calls, Call{ID: c.ID, Name: c.Function.Name, Args: c.Function.Arguments})
		}
		a.Finish = r.Choices[0].Finish
		return a
	}
	var r struct {
		Content []struct {
			Type     string          `json:"type"`
			Text     string          `json:"text"`
			Thinking string          `json:"thinking"`
			ID       string          `json:"id"`
			Name     string          `json:"name"`
			Input    json.RawMessage `json:"input"`
		} `json:"content"`
		StopReason string `json:"stop_reason"`
	}
	require.NoError(t, json.Unmarshal(doc, &r))
	for _, b := range r.Content {
		switch b.Type {
		case "text":
			a.Text += b.Text
			a.Segments = append(a.Segments, b.Text)
		case "thinking":
			a.Reasoning += b.Thinking
		case "tool_use":
			a.Calls = append(a.Calls, Call{ID: b.ID, Name: b.Name, Args: string(b.Input)})
		}
	}
	a.Finish = r.StopReason
	return a
}

// argsOf returns a call event's arguments, {} when empty.
func argsOf(e *toolsieve.Event) []byte {
	if len(e.Arguments) == 0 {
		return []byte("{}")
	}
	return e.Arguments
}

// noLeaks fails the test if goroutines started during it are still
// running once its servers and clients are closed.
func NoLeaks(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Errorf("goroutines: %d before, %d after\n%s", before, n, buf)
		}
	})
}

// LeakedDSML is a DSML call as DeepSeek writes it into its content when
// its server does not parse it.
const LeakedDSML = "I'll read it.\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"read_file\">\n" +
	"<｜DSML｜parameter name=\"path\" string=\"true\">main.go</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"

// Quote returns s as a JSON string.
func Quote(s string) string { return string(jsonspan.AppendQuoted(nil, s)) }

// SyncBuffer is a bytes.Buffer safe for concurrent use (logs).
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
