package toolsieve

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve/sse"
)

// ---- test data: fixtures and constructed streams ----

// streamCase is a fixture of testdata/cases used as a model's content.
type streamCase struct {
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

func (c *streamCase) opts(t testing.TB) Options {
	opt := Options{MarkupInCode: c.Options.MarkupInCode, Dialects: c.Options.Dialects,
		MaxCallBytes: c.Options.MaxCallBytes, IDPrefix: "id"}
	if len(c.Tools) > 0 {
		tools, err := ParseTools(c.Tools)
		require.NoError(t, err)
		opt.Tools = tools
	}
	return opt
}

func loadStreamCases(t testing.TB, files ...string) []streamCase {
	if len(files) == 0 {
		all, err := filepath.Glob("testdata/cases/*.json")
		require.NoError(t, err)
		for _, f := range all {
			files = append(files, strings.TrimSuffix(filepath.Base(f), ".json"))
		}
	}
	var out []streamCase
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join("testdata", "cases", f+".json"))
		require.NoError(t, err)
		var cs []streamCase
		require.NoError(t, json.Unmarshal(data, &cs), f)
		for i := range cs {
			cs[i].File = f
		}
		out = append(out, cs...)
	}
	return out
}

// splitContent cuts s into pieces of 1..max bytes; with cutChars the cuts
// may fall inside multi-byte characters.
func splitContent(rng *rand.Rand, s string, max int, cutChars bool) []string {
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

// oaChunk is the JSON of one OpenAI chunk with the given delta and finish.
func oaChunk(delta, finish string) string {
	f := "null"
	if finish != "" {
		f = strconv.Quote(finish)
	}
	return `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":` +
		delta + `,"logprobs":null,"finish_reason":` + f + `}]}`
}

// openAIStream makes an OpenAI chat completion stream of the pieces.
func openAIStream(pieces []string) []byte {
	var b []byte
	b = sse.AppendEvent(b, "", []byte(oaChunk(`{"role":"assistant","content":""}`, "")))
	for _, p := range pieces {
		b = sse.AppendEvent(b, "", []byte(oaChunk(string(appendQuoted([]byte(`{"content":`), p))+"}", "")))
	}
	b = sse.AppendEvent(b, "", []byte(oaChunk(`{}`, "stop")))
	b = sse.AppendEvent(b, "", []byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}}`))
	return append(b, "data: [DONE]\n\n"...)
}

// anthropicStream makes an Anthropic Messages stream of the pieces.
func anthropicStream(pieces []string) []byte {
	var b []byte
	b = sse.AppendEvent(b, "message_start", []byte(`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}`))
	b = sse.AppendEvent(b, "content_block_start", []byte(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`))
	b = sse.AppendEvent(b, "ping", []byte(`{"type": "ping"}`))
	for _, p := range pieces {
		b = sse.AppendEvent(b, "content_block_delta", appendQuoted([]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`), p))
		b = append(b[:len(b)-2], "}}\n\n"...)
	}
	b = sse.AppendEvent(b, "content_block_stop", []byte(`{"type":"content_block_stop","index":0}`))
	b = sse.AppendEvent(b, "message_delta", []byte(`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":7}}`))
	return sse.AppendEvent(b, "message_stop", []byte(`{"type":"message_stop"}`))
}

// openAIDoc and anthropicDoc make non-streamed responses.
func openAIDoc(content string) []byte {
	return []byte(`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":` +
		string(appendQuoted(nil, content)) + `,"refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}}`)
}

func anthropicDoc(content string) []byte {
	return []byte(`{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":` +
		string(appendQuoted(nil, content)) + `}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":7}}`)
}

// ---- accumulation of rewritten output ----

type accCall struct {
	ID, Name string
	Args     string
}

// accumulated is a response put together from its stream.
type accumulated struct {
	Text      string
	Reasoning string
	Calls     []accCall
	Finish    string
	// Segments are the text blocks (Anthropic) in order.
	Segments []string
	Usage    string
}

// accumulateOpenAI puts an OpenAI stream (choice 0) together, checking
// that it is well formed: valid JSON, one id, dense tool call indexes.
func accumulateOpenAI(t testing.TB, stream []byte) accumulated {
	var a accumulated
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
		}
		require.NoError(t, json.Unmarshal(ev.Data, &c), "%s", ev.Data)
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
					a.Calls = append(a.Calls, accCall{})
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

// accumulateAnthropic puts an Anthropic stream together, checking block
// order and pairing as the SDK does.
func accumulateAnthropic(t testing.TB, stream []byte) accumulated {
	var a accumulated
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
		switch e.Type {
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
			a.Calls = append(a.Calls, accCall{ID: b.id, Name: b.name, Args: b.input})
		}
	}
	return a
}

// expected is what a response should come back as: the parser's reading
// of the content.
func expectedFor(content string, opt Options) accumulated {
	var a accumulated
	seg := ""
	for _, e := range Parse([]byte(content), opt) {
		switch e.Type {
		case Text:
			a.Text += string(e.Text)
			seg += string(e.Text)
		case Reasoning:
			if len(e.Text) > 0 {
				a.Reasoning += string(e.Text)
				a.Segments = append(a.Segments, seg)
				seg = ""
			}
		case ToolCall:
			a.Calls = append(a.Calls, accCall{ID: e.ID, Name: e.Name, Args: string(callArgs(&e))})
			a.Segments = append(a.Segments, seg)
			seg = ""
		case Runaway:
			a.Segments = append(a.Segments, seg)
			return a
		}
	}
	a.Segments = append(a.Segments, seg)
	return a
}

// nonBlank joins the segments that are not blank: Anthropic output drops
// blank text between markup.
func nonBlank(segs []string) string {
	var b strings.Builder
	for _, s := range segs {
		if strings.TrimSpace(s) != "" {
			b.WriteString(s)
		}
	}
	return b.String()
}

// sameCalls checks names and arguments (as JSON values).
func sameCalls(t testing.TB, want, got []accCall, msg string) {
	t.Helper()
	require.Equal(t, len(want), len(got), "%s: number of calls\nwant %v\ngot  %v", msg, want, got)
	for i := range want {
		assert.Equal(t, want[i].Name, got[i].Name, "%s: call %d name", msg, i)
		assert.JSONEq(t, want[i].Args, got[i].Args, "%s: call %d arguments", msg, i)
	}
}

// rewriteAll runs the rewriter over in, read from a body that returns it in
// pieces of at most chunk bytes.
func rewriteAll(t testing.TB, in []byte, api API, opt Options, chunk int) ([]byte, RewriteStats) {
	r := NewRewriter(io.NopCloser(&chunkReader{b: in, n: chunk}), api, opt)
	out, err := io.ReadAll(r)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	return out, r.Stats()
}

// chunkReader returns b in reads of at most n bytes.
type chunkReader struct {
	b []byte
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
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

// checkResponse compares a rewritten response with the parser's reading.
func checkResponse(t testing.TB, api API, content string, opt Options, got accumulated, msg string) {
	t.Helper()
	want := expectedFor(content, opt)
	sameCalls(t, want.Calls, got.Calls, msg)
	if api == APIAnthropic {
		require.Equal(t, nonBlank(want.Segments), nonBlank(got.Segments), "%s: text", msg)
		if len(want.Calls) > 0 {
			require.Equal(t, "tool_use", got.Finish, msg)
		} else {
			require.Equal(t, "end_turn", got.Finish, msg)
		}
	} else {
		if !(got.Text == "" && len(want.Calls) > 0 && strings.TrimSpace(want.Text) == "") {
			require.Equal(t, want.Text, got.Text, "%s: text", msg)
		}
		if len(want.Calls) > 0 {
			require.Equal(t, "tool_calls", got.Finish, msg)
		} else {
			require.Equal(t, "stop", got.Finish, msg)
		}
	}
	require.Equal(t, want.Reasoning, got.Reasoning, "%s: reasoning", msg)
}

// ---- tests ----

// TestRewriteStreams rewrites every fixture, as streams of both APIs cut
// into random deltas (some inside characters) and read in random pieces,
// and checks the result against the parser's reading of the content.
func TestRewriteStreams(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range loadStreamCases(t) {
		if strings.Contains(c.Input, "\x00") {
			continue
		}
		opt := c.opts(t)
		for _, api := range []API{APIOpenAI, APIAnthropic} {
			for k := range 4 {
				pieces := splitContent(rng, c.Input, 1+k*5, k%2 == 1)
				var in []byte
				if api == APIOpenAI {
					in = openAIStream(pieces)
				} else {
					in = anthropicStream(pieces)
				}
				msg := fmt.Sprintf("%s/%s %s split %d", c.File, c.Name, api, k)
				out, _ := rewriteAll(t, in, APIAuto, opt, 1+rng.IntN(64))
				var got accumulated
				if api == APIOpenAI {
					got = accumulateOpenAI(t, out)
				} else {
					got = accumulateAnthropic(t, out)
				}
				if strings.Contains(c.File, "runaway") {
					continue // checked in TestRewriteRunaway
				}
				checkResponse(t, api, c.Input, opt, got, msg)
			}
		}
	}
}

// TestRewriteDocs rewrites every fixture as non-streamed responses.
func TestRewriteDocs(t *testing.T) {
	for _, c := range loadStreamCases(t) {
		if strings.Contains(c.File, "runaway") {
			continue
		}
		opt := c.opts(t)
		for _, api := range []API{APIOpenAI, APIAnthropic} {
			msg := fmt.Sprintf("%s/%s %s", c.File, c.Name, api)
			var in []byte
			if api == APIOpenAI {
				in = openAIDoc(c.Input)
			} else {
				in = anthropicDoc(c.Input)
			}
			out, _ := rewriteAll(t, in, api, opt, 7)
			require.True(t, json.Valid(out), "%s: %s", msg, out)
			got := accumulateDoc(t, api, out)
			checkResponse(t, api, c.Input, opt, got, msg)
		}
	}
}

// accumulateDoc reads a non-streamed response.
func accumulateDoc(t testing.TB, api API, doc []byte) accumulated {
	var a accumulated
	if api == APIOpenAI {
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
			a.Calls = append(a.Calls, accCall{ID: c.ID, Name: c.Function.Name, Args: c.Function.Arguments})
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
			a.Calls = append(a.Calls, accCall{ID: b.ID, Name: b.Name, Args: string(b.Input)})
		}
	}
	a.Finish = r.StopReason
	return a
}

// TestRewritePlainIdentical: streams without markup come back byte for
// byte, whatever the read sizes.
func TestRewritePlainIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	text := "Hello there. Here is some prose: a, b and c; 杭州 (Hangzhou) — “quotes”, emoji 🙂, tabs\tand\nnewlines.\n\nDone."
	for k := range 20 {
		pieces := splitContent(rng, text, 1+k, false)
		for _, in := range [][]byte{openAIStream(pieces), anthropicStream(pieces), openAIDoc(text), anthropicDoc(text)} {
			out, st := rewriteAll(t, in, APIAuto, Options{}, 1+rng.IntN(100))
			require.Equal(t, string(in), string(out))
			require.Zero(t, st.Calls)
		}
	}
	for _, name := range []string{"openai_chat.sse", "anthropic_messages.sse"} {
		in, err := os.ReadFile(filepath.Join("testdata", "sse", name))
		require.NoError(t, err)
		// Take the markup out: what is left is plain.
		plain := bytes.ReplaceAll(in, []byte("<"), []byte("("))
		out, _ := rewriteAll(t, plain, APIAuto, Options{}, 5)
		require.Equal(t, string(plain), string(out))
	}
}

// TestRewriteRecorded checks the recorded streams of testdata/sse.
func TestRewriteRecorded(t *testing.T) {
	for _, tc := range []struct {
		name string
		api  API
	}{{"openai_chat.sse", APIOpenAI}, {"anthropic_messages.sse", APIAnthropic}} {
		in, err := os.ReadFile(filepath.Join("testdata", "sse", tc.name))
		require.NoError(t, err)
		for _, chunk := range []int{1, 3, 17, 0} {
			out, st := rewriteAll(t, in, APIAuto, Options{IDPrefix: "id"}, chunk)
			require.Equal(t, 1, st.Calls)
			var got accumulated
			if tc.api == APIOpenAI {
				got = accumulateOpenAI(t, out)
				require.Equal(t, "tool_calls", got.Finish)
				require.Contains(t, string(out), `"usage":{"prompt_tokens":82`)
				require.True(t, bytes.HasSuffix(out, []byte("data: [DONE]\n\n")))
			} else {
				got = accumulateAnthropic(t, out)
				require.Equal(t, "tool_use", got.Finish)
			}
			require.Len(t, got.Calls, 1)
			require.Equal(t, "get_weather", got.Calls[0].Name)
			require.JSONEq(t, `{"city":"Paris"}`, got.Calls[0].Args)
			require.NotContains(t, got.Text, "<")
		}
	}
}

// TestRewriteRunaway: the stream ends cleanly after a runaway, with the
// calls recovered before it, and the upstream body is closed at once.
func TestRewriteRunaway(t *testing.T) {
	loop := "Working.\n<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>\n"
	content := strings.Repeat(loop, 200)
	for _, api := range []API{APIOpenAI, APIAnthropic} {
		var in []byte
		pieces := splitContent(rand.New(rand.NewPCG(5, 6)), content, 9, false)
		if api == APIOpenAI {
			in = openAIStream(pieces)
		} else {
			in = anthropicStream(pieces)
		}
		body := &closeRecorder{Reader: &chunkReader{b: in, n: 50}}
		r := NewRewriter(body, APIAuto, Options{IDPrefix: "id"})
		out, err := io.ReadAll(r)
		require.NoError(t, err)
		require.True(t, r.Stats().Runaway, api.String())
		require.True(t, body.closed, "upstream body not closed")
		require.Less(t, body.read, len(in)/2, "read on after the runaway")
		if api == APIOpenAI {
			got := accumulateOpenAI(t, out)
			require.NotEmpty(t, got.Calls)
			require.Equal(t, "tool_calls", got.Finish)
			require.True(t, bytes.HasSuffix(out, []byte("data: [DONE]\n\n")))
		} else {
			got := accumulateAnthropic(t, out)
			require.NotEmpty(t, got.Calls)
			require.Equal(t, "tool_use", got.Finish)
			require.True(t, bytes.HasSuffix(out, []byte("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")))
		}
	}
}

type closeRecorder struct {
	io.Reader
	read   int
	closed bool
}

func (c *closeRecorder) Read(p []byte) (int, error) {
	if c.closed {
		return 0, io.ErrClosedPipe
	}
	n, err := c.Reader.Read(p)
	c.read += n
	return n, err
}

func (c *closeRecorder) Close() error { c.closed = true; return nil }

// TestRewriteMalformedFrame: a frame that is not JSON is reported and
// passed on; the stream goes on.
func TestRewriteMalformedFrame(t *testing.T) {
	in := openAIStream([]string{"Hi ", "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>"})
	bad := []byte("data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"delta\":{\"content\":\"x\n\n")
	i := bytes.Index(in, []byte("\n\n")) + 2
	in = append(append(append([]byte(nil), in[:i]...), bad...), in[i:]...)
	var errs []string
	r := NewRewriter(io.NopCloser(bytes.NewReader(in)), APIOpenAI, Options{})
	r.Notify = func(e *Event) {
		if e.Type == Error {
			errs = append(errs, e.Message)
		}
	}
	out, err := io.ReadAll(r)
	require.NoError(t, err)
	require.Len(t, errs, 1)
	require.Contains(t, string(out), string(bad))
	var d sse.Decoder
	evs, _ := d.Feed(out)
	n := 0
	for _, ev := range evs {
		if ev.IsMessage() && json.Valid(ev.Data) && bytes.Contains(ev.Data, []byte(`"tool_calls":[{"index":0`)) {
			n++
		}
	}
	require.Equal(t, 1, n)
}

// TestRewriteNativeCalls: native calls pass through, renumbered after the
// recovered ones; native arguments written as markup become JSON.
func TestRewriteNativeCalls(t *testing.T) {
	var in []byte
	add := func(delta, finish string) { in = sse.AppendEvent(in, "", []byte(oaChunk(delta, finish))) }
	add(`{"role":"assistant","content":"Sure. <tool_call>\n{\"name\": \"a\", \"arguments\": {\"x\": 1}}\n</tool_call>"}`, "")
	add(`{"tool_calls":[{"index":0,"id":"n1","type":"function","function":{"name":"ls","arguments":""}}]}`, "")
	add(`{"tool_calls":[{"index":0,"function":{"arguments":"<tool_call><function=ls><parameter=dirPath>"}}]}`, "")
	add(`{"tool_calls":[{"index":0,"function":{"arguments":"src</parameter></function></tool_call>"}}]}`, "")
	add(`{"tool_calls":[{"index":1,"id":"n2","type":"function","function":{"name":"cat","arguments":"{\"p\":"}}]}`, "")
	add(`{"tool_calls":[{"index":1,"function":{"arguments":"\"a\"}"}}]}`, "")
	add(`{}`, "tool_calls")
	in = append(in, "data: [DONE]\n\n"...)
	for _, chunk := range []int{1, 13, 0} {
		out, st := rewriteAll(t, in, APIOpenAI, Options{IDPrefix: "id"}, chunk)
		got := accumulateOpenAI(t, out)
		require.Equal(t, 1, st.Calls)
		require.Equal(t, 1, st.Native)
		sameCalls(t, []accCall{{Name: "a", Args: `{"x":1}`}, {Name: "ls", Args: `{"dirPath":"src"}`}, {Name: "cat", Args: `{"p":"a"}`}}, got.Calls, "native")
		require.Equal(t, "n1", got.Calls[1].ID)
		require.Equal(t, "Sure. ", got.Text)
		require.Equal(t, "tool_calls", got.Finish)
	}
	// Non-streamed.
	doc := []byte(`{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"n1","type":"function","function":{"name":"ls","arguments":"<parameter=dirPath>src</parameter>"}}]},"finish_reason":"tool_calls"}]}`)
	out, st := rewriteAll(t, doc, APIOpenAI, Options{}, 0)
	require.Equal(t, 1, st.Native)
	got := accumulateDoc(t, APIOpenAI, out)
	sameCalls(t, []accCall{{Name: "ls", Args: `{"dirPath":"src"}`}}, got.Calls, "doc")
}

// TestRewriteChoices: each choice has its own parser.
func TestRewriteChoices(t *testing.T) {
	var in []byte
	for i, p := range []string{"<tool_call>\n{\"name\": \"a\", ", "\"arguments\": {}}\n</tool_call>", " after"} {
		for c := range 2 {
			content := p
			if c == 1 {
				content = strings.ReplaceAll(p, `"a"`, `"b"`) + strconv.Itoa(i)
			}
			d := `{"id":"chatcmpl-1","choices":[{"index":` + strconv.Itoa(c) + `,"delta":{"content":` + string(appendQuoted(nil, content)) + `},"finish_reason":null}]}`
			in = sse.AppendEvent(in, "", []byte(d))
		}
	}
	in = sse.AppendEvent(in, "", []byte(`{"id":"chatcmpl-1","choices":[{"index":0,"delta":{},"finish_reason":"stop"},{"index":1,"delta":{},"finish_reason":"stop"}]}`))
	out, st := rewriteAll(t, in, APIOpenAI, Options{}, 0)
	require.Equal(t, 2, st.Calls)
	require.Equal(t, 2, strings.Count(string(out), `"finish_reason":"tool_calls"`))
	require.Contains(t, string(out), `"index":1,"delta":{"tool_calls":[{"index":0,`)
	require.Contains(t, string(out), `"name":"b"`)
}

// TestRewriteReasoning: reasoning markup in the content goes to the
// reasoning channel of each API.
func TestRewriteReasoning(t *testing.T) {
	content := "<think>Let me plan.</think>The answer.<tool_call>get_time</tool_call>"
	pieces := splitContent(rand.New(rand.NewPCG(7, 8)), content, 4, false)
	oa := accumulateOpenAI(t, must(rewriteAll(t, openAIStream(pieces), APIAuto, Options{}, 0)))
	require.Equal(t, "Let me plan.", oa.Reasoning)
	require.Equal(t, "The answer.", oa.Text)
	an := accumulateAnthropic(t, must(rewriteAll(t, anthropicStream(pieces), APIAuto, Options{}, 0)))
	require.Equal(t, "Let me plan.", an.Reasoning)
	require.Equal(t, "The answer.", an.Text)
	require.Len(t, an.Calls, 1)
}

func must[T, U any](v T, _ U) T { return v }

// TestRewriteCutMidCall: an upstream that ends inside a call still gets the
// call out (with closed_at_eof, which only the Notify hook shows).
func TestRewriteCutMidCall(t *testing.T) {
	content := "Writing now.\n<tool_call>\n<function=write>\n<parameter=path>\na.go\n</parameter>\n<parameter=content>\npackage main\n"
	for _, api := range []API{APIOpenAI, APIAnthropic} {
		var in []byte
		pieces := splitContent(rand.New(rand.NewPCG(9, 10)), content, 6, false)
		if api == APIOpenAI {
			in = openAIStream(pieces)
			in = in[:bytes.LastIndex(in, []byte(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{}`))]
		} else {
			in = anthropicStream(pieces)
			in = in[:bytes.Index(in, []byte("event: content_block_stop"))]
		}
		var repairs []string
		r := NewRewriter(io.NopCloser(bytes.NewReader(in)), api, Options{})
		r.Notify = func(e *Event) { repairs = append(repairs, e.Repairs...) }
		out, err := io.ReadAll(r)
		require.NoError(t, err)
		require.Contains(t, repairs, "closed_at_eof")
		var got accumulated
		if api == APIOpenAI {
			got = accumulateOpenAI(t, out)
		} else {
			got = accumulateAnthropic(t, out)
		}
		require.Len(t, got.Calls, 1, api.String())
		require.Equal(t, "write", got.Calls[0].Name)
		require.Equal(t, "Writing now.\n", got.Text)
	}
}

// TestRewriteErrorEvents: provider error events pass through unchanged.
func TestRewriteErrorEvents(t *testing.T) {
	an := anthropicStream([]string{"Hi"})
	i := bytes.Index(an, []byte("event: content_block_stop"))
	errEv := []byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n")
	in := append(append(append([]byte(nil), an[:i]...), errEv...), an[i:]...)
	out, _ := rewriteAll(t, in, APIAuto, Options{}, 0)
	require.Equal(t, string(in), string(out))
	oa := append(openAIStream([]string{"Hi"}), "data: {\"error\":{\"message\":\"boom\",\"type\":\"server_error\"}}\n\n"...)
	out, _ = rewriteAll(t, oa, APIAuto, Options{}, 0)
	require.Equal(t, string(oa), string(out))
}

func TestJSONHelpers(t *testing.T) {
	for _, s := range []string{"", "a", "\"\\/\b\f\n\r\t", "\x01\x1f", "杭州🙂", "\u2028", "<&>"} {
		q := appendQuoted(nil, s)
		var back string
		require.NoError(t, json.Unmarshal(q, &back), "%q", q)
		require.Equal(t, s, back)
		require.Equal(t, s, string(appendUnquoted(nil, q)))
		std, _ := json.Marshal(s)
		require.Equal(t, s, string(appendUnquoted(nil, std)))
	}
	require.Equal(t, "\U0001F642", string(appendUnquoted(nil, []byte(`"\ud83d\ude42"`))))
	require.Equal(t, 2, incompleteUTF8([]byte("a\xe6\x9d")))
	require.Equal(t, 0, incompleteUTF8([]byte("a\xe6\x9d\xad")))
	require.Equal(t, 1, incompleteUTF8([]byte("\xf0")))
	require.Equal(t, "functions_get_weather_0", anthropicID("functions.get_weather:0"))
}

// TestRewriteAnthropicRenumber: blocks after a recovered call move up, and
// held text of a later block goes out with the new index.
func TestRewriteAnthropicRenumber(t *testing.T) {
	var in []byte
	add := func(typ, data string) { in = sse.AppendEvent(in, typ, []byte(data)) }
	add("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","usage":{"input_tokens":1,"output_tokens":1}}}`)
	add("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`)
	add("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}`)
	add("content_block_stop", `{"type":"content_block_stop","index":0}`)
	add("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`)
	add("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Go.\n<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>"}}`)
	add("content_block_stop", `{"type":"content_block_stop","index":1}`)
	add("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}`)
	add("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"Then\nmore"}}`)
	add("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":" words\nend"}}`)
	add("content_block_stop", `{"type":"content_block_stop","index":2}`)
	add("content_block_start", `{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_n","name":"b","input":{}}}`)
	add("content_block_delta", `{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"x\":1}"}}`)
	add("content_block_stop", `{"type":"content_block_stop","index":3}`)
	add("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}`)
	add("message_stop", `{"type":"message_stop"}`)
	for _, chunk := range []int{1, 7, 0} {
		out, st := rewriteAll(t, in, APIAuto, Options{}, chunk)
		require.Equal(t, 1, st.Calls)
		got := accumulateAnthropic(t, out)
		require.Equal(t, "hmm", got.Reasoning)
		require.Equal(t, []string{"Go.\n", "Then\nmore words\nend"}, got.Segments)
		sameCalls(t, []accCall{{Name: "a", Args: `{}`}, {Name: "b", Args: `{"x":1}`}}, got.Calls, "renumber")
		require.Equal(t, "tool_use", got.Finish)
	}
}

var updateStreams = flag.Bool("update-streams", false, "rewrite testdata/streams/*.golden")

// TestRewriteGolden rewrites the streams of testdata/streams and compares
// the output byte for byte with the .golden files (go test -run
// TestRewriteGolden -update-streams writes them). The output is also
// checked for structure by accumulating it.
func TestRewriteGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "streams", "*"))
	require.NoError(t, err)
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".golden") {
			continue
		}
		n++
		in, err := os.ReadFile(f)
		require.NoError(t, err)
		out, _ := rewriteAll(t, in, APIAuto, Options{IDPrefix: "call_"}, 3)
		if strings.Contains(f, "plain") {
			require.Equal(t, string(in), string(out), f)
		}
		anth := strings.Contains(filepath.Base(f), "anthropic")
		switch {
		case strings.HasSuffix(f, ".json") && anth:
			got := accumulateDoc(t, APIAnthropic, out)
			require.NotEmpty(t, got.Calls, f)
		case strings.HasSuffix(f, ".json"):
			got := accumulateDoc(t, APIOpenAI, out)
			require.NotEmpty(t, got.Calls, f)
		case anth:
			require.NotEmpty(t, accumulateAnthropic(t, out).Calls, f)
		case !strings.Contains(f, "plain"):
			require.NotEmpty(t, accumulateOpenAI(t, out).Calls, f)
		}
		golden := f + ".golden"
		if *updateStreams {
			require.NoError(t, os.WriteFile(golden, out, 0o644))
			continue
		}
		want, err := os.ReadFile(golden)
		require.NoError(t, err, "missing golden file; run with -update-streams")
		require.Equal(t, string(want), string(out), f)
	}
	require.NotZero(t, n)
}
