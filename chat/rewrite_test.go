package chat_test

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

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/sse"
)

// ---- tests ----

// TestRewriteStreams rewrites every fixture, as streams of both APIs cut
// into random deltas (some inside characters) and read in random pieces,
// and checks the result against the parser's reading of the content.
func TestRewriteStreams(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range chattest.LoadCases(t, "../testdata/cases") {
		if strings.Contains(c.Input, "\x00") {
			continue
		}
		opt := c.ParserOptions(t)
		for _, api := range []chat.API{chat.APIOpenAI, chat.APIAnthropic} {
			for k := range 4 {
				pieces := chattest.SplitContent(rng, c.Input, 1+k*5, k%2 == 1)
				var in []byte
				if api == chat.APIOpenAI {
					in = chattest.OpenAIStream(pieces)
				} else {
					in = chattest.AnthropicStream(pieces)
				}
				msg := fmt.Sprintf("%s/%s %s split %d", c.File, c.Name, api, k)
				out, _ := chattest.RewriteAll(t, in, chat.APIAuto, opt, 1+rng.IntN(64))
				var got chattest.Response
				if api == chat.APIOpenAI {
					got = chattest.AccumulateOpenAI(t, out)
				} else {
					got = chattest.AccumulateAnthropic(t, out)
				}
				if strings.Contains(c.File, "runaway") {
					continue // checked in TestRewriteRunaway
				}
				chattest.CheckResponse(t, api, c.Input, opt, got, msg)
			}
		}
	}
}

// TestRewriteDocs rewrites every fixture as non-streamed responses.
func TestRewriteDocs(t *testing.T) {
	for _, c := range chattest.LoadCases(t, "../testdata/cases") {
		if strings.Contains(c.File, "runaway") {
			continue
		}
		opt := c.ParserOptions(t)
		for _, api := range []chat.API{chat.APIOpenAI, chat.APIAnthropic} {
			msg := fmt.Sprintf("%s/%s %s", c.File, c.Name, api)
			var in []byte
			if api == chat.APIOpenAI {
				in = chattest.OpenAIDoc(c.Input)
			} else {
				in = chattest.AnthropicDoc(c.Input)
			}
			out, _ := chattest.RewriteAll(t, in, api, opt, 7)
			require.True(t, json.Valid(out), "%s: %s", msg, out)
			got := chattest.AccumulateDoc(t, api, out)
			chattest.CheckResponse(t, api, c.Input, opt, got, msg)
		}
	}
}

// TestRewritePlainIdentical: streams without markup come back byte for
// byte, whatever the read sizes.
func TestRewritePlainIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	text := "Hello there. Here is some prose: a, b and c; 杭州 (Hangzhou) — “quotes”, emoji 🙂, tabs\tand\nnewlines.\n\nDone."
	for k := range 20 {
		pieces := chattest.SplitContent(rng, text, 1+k, false)
		for _, in := range [][]byte{chattest.OpenAIStream(pieces), chattest.AnthropicStream(pieces), chattest.OpenAIDoc(text), chattest.AnthropicDoc(text)} {
			out, st := chattest.RewriteAll(t, in, chat.APIAuto, toolsieve.Options{}, 1+rng.IntN(100))
			require.Equal(t, string(in), string(out))
			require.Zero(t, st.Calls)
		}
	}
	for _, name := range []string{"openai_chat.sse", "anthropic_messages.sse"} {
		in, err := os.ReadFile(filepath.Join("..", "testdata", "sse", name))
		require.NoError(t, err)
		// Take the markup out: what is left is plain.
		plain := bytes.ReplaceAll(in, []byte("<"), []byte("("))
		out, _ := chattest.RewriteAll(t, plain, chat.APIAuto, toolsieve.Options{}, 5)
		require.Equal(t, string(plain), string(out))
	}
}

// TestRewriteRecorded checks the recorded streams of testdata/sse.
func TestRewriteRecorded(t *testing.T) {
	for _, tc := range []struct {
		name string
		api  chat.API
	}{{"openai_chat.sse", chat.APIOpenAI}, {"anthropic_messages.sse", chat.APIAnthropic}} {
		in, err := os.ReadFile(filepath.Join("..", "testdata", "sse", tc.name))
		require.NoError(t, err)
		for _, chunk := range []int{1, 3, 17, 0} {
			out, st := chattest.RewriteAll(t, in, chat.APIAuto, toolsieve.Options{IDPrefix: "id"}, chunk)
			require.Equal(t, 1, st.Calls)
			var got chattest.Response
			if tc.api == chat.APIOpenAI {
				got = chattest.AccumulateOpenAI(t, out)
				require.Equal(t, "tool_calls", got.Finish)
				require.Contains(t, string(out), `"usage":{"prompt_tokens":82`)
				require.True(t, bytes.HasSuffix(out, []byte("data: [DONE]\n\n")))
			} else {
				got = chattest.AccumulateAnthropic(t, out)
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
// calls recovered before it and the finish reason of an answer cut by the
// token limit, and the upstream body is closed at once.
func TestRewriteRunaway(t *testing.T) {
	loop := "Working.\n<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>\n"
	content := strings.Repeat(loop, 200)
	for _, api := range []chat.API{chat.APIOpenAI, chat.APIAnthropic} {
		var in []byte
		pieces := chattest.SplitContent(rand.New(rand.NewPCG(5, 6)), content, 9, false)
		if api == chat.APIOpenAI {
			in = chattest.OpenAIStream(pieces)
		} else {
			in = chattest.AnthropicStream(pieces)
		}
		body := &closeRecorder{Reader: chattest.NewChunkReader([]byte(in), 50)}
		r := chat.NewRewriter(body, chat.APIAuto, toolsieve.Options{IDPrefix: "id"})
		out, err := io.ReadAll(r)
		require.NoError(t, err)
		require.True(t, r.Stats().Runaway, api.String())
		require.True(t, body.closed, "upstream body not closed")
		require.Less(t, body.read, len(in)/2, "read on after the runaway")
		if api == chat.APIOpenAI {
			got := chattest.AccumulateOpenAI(t, out)
			require.NotEmpty(t, got.Calls)
			require.Equal(t, "length", got.Finish)
			require.True(t, bytes.HasSuffix(out, []byte("data: [DONE]\n\n")))
		} else {
			got := chattest.AccumulateAnthropic(t, out)
			require.NotEmpty(t, got.Calls)
			require.Equal(t, "max_tokens", got.Finish)
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
	in := chattest.OpenAIStream([]string{"Hi ", "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>"})
	bad := []byte("data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"delta\":{\"content\":\"x\n\n")
	i := bytes.Index(in, []byte("\n\n")) + 2
	in = append(append(append([]byte(nil), in[:i]...), bad...), in[i:]...)
	out, _, errs, err := chattest.RewriteNotes(in, chat.APIOpenAI, toolsieve.Options{}, 0)
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
	add := func(delta, finish string) { in = sse.AppendEvent(in, "", []byte(chattest.OpenAIChunk(delta, finish))) }
	add(`{"role":"assistant","content":"Sure. <tool_call>\n{\"name\": \"a\", \"arguments\": {\"x\": 1}}\n</tool_call>"}`, "")
	add(`{"tool_calls":[{"index":0,"id":"n1","type":"function","function":{"name":"ls","arguments":""}}]}`, "")
	add(`{"tool_calls":[{"index":0,"function":{"arguments":"<tool_call><function=ls><parameter=dirPath>"}}]}`, "")
	add(`{"tool_calls":[{"index":0,"function":{"arguments":"src</parameter></function></tool_call>"}}]}`, "")
	add(`{"tool_calls":[{"index":1,"id":"n2","type":"function","function":{"name":"cat","arguments":"{\"p\":"}}]}`, "")
	add(`{"tool_calls":[{"index":1,"function":{"arguments":"\"a\"}"}}]}`, "")
	add(`{}`, "tool_calls")
	in = append(in, "data: [DONE]\n\n"...)
	for _, chunk := range []int{1, 13, 0} {
		out, st := chattest.RewriteAll(t, in, chat.APIOpenAI, toolsieve.Options{IDPrefix: "id"}, chunk)
		got := chattest.AccumulateOpenAI(t, out)
		require.Equal(t, 1, st.Calls)
		require.Equal(t, 1, st.Native)
		chattest.SameCalls(t, []chattest.Call{{Name: "a", Args: `{"x":1}`}, {Name: "ls", Args: `{"dirPath":"src"}`}, {Name: "cat", Args: `{"p":"a"}`}}, got.Calls, "native")
		require.Equal(t, "n1", got.Calls[1].ID)
		require.Equal(t, "Sure. ", got.Text)
		require.Equal(t, "tool_calls", got.Finish)
	}
	// Non-streamed.
	doc := []byte(`{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"n1","type":"function","function":{"name":"ls","arguments":"<parameter=dirPath>src</parameter>"}}]},"finish_reason":"tool_calls"}]}`)
	out, st := chattest.RewriteAll(t, doc, chat.APIOpenAI, toolsieve.Options{}, 0)
	require.Equal(t, 1, st.Native)
	got := chattest.AccumulateDoc(t, chat.APIOpenAI, out)
	chattest.SameCalls(t, []chattest.Call{{Name: "ls", Args: `{"dirPath":"src"}`}}, got.Calls, "doc")
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
			d := `{"id":"chatcmpl-1","choices":[{"index":` + strconv.Itoa(c) + `,"delta":{"content":` + string(jsonspan.AppendQuoted(nil, content)) + `},"finish_reason":null}]}`
			in = sse.AppendEvent(in, "", []byte(d))
		}
	}
	in = sse.AppendEvent(in, "", []byte(`{"id":"chatcmpl-1","choices":[{"index":0,"delta":{},"finish_reason":"stop"},{"index":1,"delta":{},"finish_reason":"stop"}]}`))
	out, st := chattest.RewriteAll(t, in, chat.APIOpenAI, toolsieve.Options{}, 0)
	require.Equal(t, 2, st.Calls)
	require.Equal(t, 2, strings.Count(string(out), `"finish_reason":"tool_calls"`))
	require.Contains(t, string(out), `"index":1,"delta":{"tool_calls":[{"index":0,`)
	require.Contains(t, string(out), `"name":"b"`)
}

// TestRewriteReasoning: reasoning markup in the content goes to the
// reasoning channel of each API.
func TestRewriteReasoning(t *testing.T) {
	content := "<think>Let me plan.</think>The answer.<tool_call>get_time</tool_call>"
	pieces := chattest.SplitContent(rand.New(rand.NewPCG(7, 8)), content, 4, false)
	oa := chattest.AccumulateOpenAI(t, must(chattest.RewriteAll(t, chattest.OpenAIStream(pieces), chat.APIAuto, toolsieve.Options{}, 0)))
	require.Equal(t, "Let me plan.", oa.Reasoning)
	require.Equal(t, "The answer.", oa.Text)
	an := chattest.AccumulateAnthropic(t, must(chattest.RewriteAll(t, chattest.AnthropicStream(pieces), chat.APIAuto, toolsieve.Options{}, 0)))
	require.Equal(t, "Let me plan.", an.Reasoning)
	require.Equal(t, "The answer.", an.Text)
	require.Len(t, an.Calls, 1)
}

func must[T, U any](v T, _ U) T { return v }

// TestRewriteCutMidCall: an upstream that ends inside a call, cleanly but
// before its finish marker, does not get the call out: its markup stays
// text after the text before it, Notify hears of it as truncated, and Read
// ends with ErrTruncated. The same content ended by the model itself (the
// finish marker with stop, end_turn, completed) gets the call out, with
// closed_at_eof: its values are complete, only its own closers are
// missing (a value the end cut is never a call: TestRewriteCutInValue).
func TestRewriteCutMidCall(t *testing.T) {
	content := "Writing now.\n<tool_call>\n<function=write>\n<parameter=path>\na.go\n</parameter>\n<parameter=content>\npackage main\n</parameter>\n"
	for _, api := range []chat.API{chat.APIOpenAI, chat.APIAnthropic, chat.APIResponses} {
		pieces := chattest.SplitContent(rand.New(rand.NewPCG(9, 10)), content, 6, false)
		var whole, in []byte
		switch api {
		case chat.APIOpenAI:
			whole = chattest.OpenAIStream(pieces)
			in = whole[:bytes.LastIndex(whole, []byte(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{}`))]
		case chat.APIAnthropic:
			whole = chattest.AnthropicStream(pieces)
			in = whole[:bytes.Index(whole, []byte("event: content_block_stop"))]
		default:
			whole = chattest.ResponsesStream(pieces)
			in = whole[:bytes.Index(whole, []byte("event: response.output_text.done"))]
		}
		for _, stream := range []bool{false, true} {
			opt := toolsieve.Options{StreamCalls: stream}
			var truncated []string
			r := chat.NewRewriter(io.NopCloser(bytes.NewReader(in)), api, opt)
			r.Notify = func(e *toolsieve.Event) {
				if e.Reason == toolsieve.ReasonTruncated {
					truncated = append(truncated, e.Name)
				}
			}
			out, err := io.ReadAll(r)
			require.ErrorIs(t, err, chat.ErrTruncated)
			require.Equal(t, []string{"write"}, truncated)
			st := r.Stats()
			require.True(t, st.Incomplete)
			require.Equal(t, 1, st.Truncated)
			require.Zero(t, st.Calls)
			got := accumulateCut(t, api, out)
			msg := fmt.Sprintf("%s, streamed calls %v", api, stream)
			if stream {
				// It started to stream: its arguments stay as they went out.
				require.Len(t, got.Calls, 1, msg)
				require.False(t, json.Valid([]byte(got.Calls[0].Args)), "%s: %s", msg, got.Calls[0].Args)
				require.Equal(t, "Writing now.\n", got.Text, msg)
			} else {
				require.Empty(t, got.Calls, msg)
				require.Equal(t, content, got.Text, msg)
			}

			out, st = chattest.RewriteAll(t, whole, api, opt, 7)
			got = accumulate(t, api, out)
			require.Len(t, got.Calls, 1, msg)
			require.Equal(t, "write", got.Calls[0].Name)
			require.JSONEq(t, `{"path":"a.go","content":"package main"}`, got.Calls[0].Args, msg)
			require.Zero(t, st.Truncated)
		}
	}
}

// TestRewriteErrorEvents: provider error events pass through unchanged.
func TestRewriteErrorEvents(t *testing.T) {
	an := chattest.AnthropicStream([]string{"Hi"})
	i := bytes.Index(an, []byte("event: content_block_stop"))
	errEv := []byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n")
	in := append(append(append([]byte(nil), an[:i]...), errEv...), an[i:]...)
	out, _ := chattest.RewriteAll(t, in, chat.APIAuto, toolsieve.Options{}, 0)
	require.Equal(t, string(in), string(out))
	oa := append(chattest.OpenAIStream([]string{"Hi"}), "data: {\"error\":{\"message\":\"boom\",\"type\":\"server_error\"}}\n\n"...)
	out, _ = chattest.RewriteAll(t, oa, chat.APIAuto, toolsieve.Options{}, 0)
	require.Equal(t, string(oa), string(out))
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
		out, st := chattest.RewriteAll(t, in, chat.APIAuto, toolsieve.Options{}, chunk)
		require.Equal(t, 1, st.Calls)
		got := chattest.AccumulateAnthropic(t, out)
		require.Equal(t, "hmm", got.Reasoning)
		require.Equal(t, []string{"Go.\n", "Then\nmore words\nend"}, got.Segments)
		chattest.SameCalls(t, []chattest.Call{{Name: "a", Args: `{}`}, {Name: "b", Args: `{"x":1}`}}, got.Calls, "renumber")
		require.Equal(t, "tool_use", got.Finish)
	}
}

var updateStreams = flag.Bool("update-streams", false, "rewrite testdata/streams/*.golden")

// TestRewriteGolden rewrites the streams of testdata/streams and compares
// the output byte for byte with the .golden files (go test -run
// TestRewriteGolden -update-streams writes them). The output is also
// checked for structure by accumulating it.
func TestRewriteGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "streams", "*"))
	require.NoError(t, err)
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".golden") {
			continue
		}
		n++
		in, err := os.ReadFile(f)
		require.NoError(t, err)
		out, _ := chattest.RewriteAll(t, in, chat.APIAuto, toolsieve.Options{IDPrefix: "call_"}, 3)
		if strings.Contains(f, "plain") {
			require.Equal(t, string(in), string(out), f)
		}
		// The calls that come out are the parser's reading of the content
		// the upstream sent: names and arguments.
		anth := strings.Contains(filepath.Base(f), "anthropic")
		api := chat.APIOpenAI
		if anth {
			api = chat.APIAnthropic
		}
		accumulate := func(b []byte) chattest.Response {
			switch {
			case strings.HasSuffix(f, ".json"):
				return chattest.AccumulateDoc(t, api, b)
			case anth:
				return chattest.AccumulateAnthropic(t, b)
			}
			return chattest.AccumulateOpenAI(t, b)
		}
		want := chattest.Expected(accumulate(in).Text, toolsieve.Options{IDPrefix: "call_"})
		got := accumulate(out)
		chattest.SameCalls(t, want.Calls, got.Calls, f)
		if !strings.Contains(f, "plain") {
			require.NotEmpty(t, got.Calls, f)
		}
		golden := f + ".golden"
		if *updateStreams {
			require.NoError(t, os.WriteFile(golden, out, 0o644))
			continue
		}
		wantOut, err := os.ReadFile(golden)
		require.NoError(t, err, "missing golden file; run with -update-streams")
		require.Equal(t, string(wantOut), string(out), f)
	}
	require.NotZero(t, n)
}

// TestRewriteShown: the rewriter reports when its output first holds text
// or reasoning that is not whitespace, from the parser's text, from the
// upstream's reasoning channel, or from Anthropic thinking; calls and blank
// text do not count.
func TestRewriteShown(t *testing.T) {
	call := "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>"
	reasoningChunk := "data: " + chattest.OpenAIChunk(`{"reasoning_content":"thinking it over"}`, "") + "\n\n"
	for _, tc := range []struct {
		name  string
		in    []byte
		shown bool
	}{
		{"openai call only", chattest.OpenAIStream([]string{"\n", call, "\n"}), false},
		{"openai prose", chattest.OpenAIStream([]string{"Hi", " there"}), true},
		{"openai reasoning channel", append([]byte(reasoningChunk), chattest.OpenAIStream([]string{call})...), true},
		{"anthropic call only", chattest.AnthropicStream([]string{" ", call}), false},
		{"anthropic prose before a call", chattest.AnthropicStream([]string{"Reading.", call}), true},
		{"anthropic thinking block", []byte("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hmm\"}}\n\n"), true},
	} {
		for _, chunk := range []int{1, 0} {
			_, st, _, err := chattest.RewriteNotes(tc.in, chat.APIAuto, toolsieve.Options{}, chunk)
			if err != nil {
				require.ErrorIs(t, err, chat.ErrTruncated, tc.name) // the thinking block's stream stops short
			}
			require.Equal(t, tc.shown, st.Shown, "%s (chunk %d)", tc.name, chunk)
		}
	}
}

// TestRewriteDocRunaway: a whole response whose content ends in a loop
// keeps the text before it, and says it was cut short as by the token
// limit.
func TestRewriteDocRunaway(t *testing.T) {
	content := "Checking.\n<function_calls>\n" + strings.Repeat("<invoke name=\"read\">\n", 8)
	for _, api := range []chat.API{chat.APIOpenAI, chat.APIAnthropic} {
		doc, finish := chattest.OpenAIDoc(content), "length"
		if api == chat.APIAnthropic {
			doc, finish = chattest.AnthropicDoc(content), "max_tokens"
		}
		out, st := chattest.RewriteAll(t, doc, api, toolsieve.Options{}, 0)
		require.True(t, st.Runaway, api.String())
		got := chattest.AccumulateDoc(t, api, out)
		require.Equal(t, finish, got.Finish, api.String())
		require.Equal(t, "Checking.\n", got.Text, api.String())
	}
}

// brokenBody returns b, then err.
type brokenBody struct {
	b   []byte
	err error
}

func (r *brokenBody) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, r.err
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

func (r *brokenBody) Close() error { return nil }

// TestRewriteBrokenBody: a body that breaks off inside a call does not
// hand the call on (its markup stays text), a complete call before it
// does, and the read error comes last; a body that simply ends inside a
// call closes it (closed_at_eof) as before.
func TestRewriteBrokenBody(t *testing.T) {
	content := "Done.\n<tool_call>\n<function=a>\n</function>\n</tool_call>\nNow <tool_call>\n<function=write>\n<parameter=path>\nx\n</parameter>\n"
	stream := chattest.OpenAIStream([]string{content})
	cut := stream[:bytes.Index(stream, []byte(`{},"logprobs"`))-60] // before the final chunk
	cut = cut[:bytes.LastIndex(cut, []byte("\n\n"))+2]
	r := chat.NewRewriter(&brokenBody{b: cut, err: io.ErrUnexpectedEOF}, chat.APIOpenAI, toolsieve.Options{})
	out, err := io.ReadAll(r)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	require.Contains(t, string(out), `"name":"a"`)
	require.NotContains(t, string(out), `"name":"write"`)
	require.Equal(t, 1, r.Stats().Calls)

	// Ended cleanly, before the finish marker: cut all the same.
	r = chat.NewRewriter(io.NopCloser(bytes.NewReader(cut)), chat.APIOpenAI, toolsieve.Options{})
	out, err = io.ReadAll(r)
	require.ErrorIs(t, err, chat.ErrTruncated)
	require.Contains(t, string(out), `"name":"a"`)
	require.NotContains(t, string(out), `"name":"write"`)
	require.Equal(t, 1, r.Stats().Truncated)
}

// TestRewriteRunawayAtFinish: a loop that the parser only calls one at the
// end of the content (when the upstream's finishing chunk closes it) ends
// the choice once, as cut short, with no call from the loop.
func TestRewriteRunawayAtFinish(t *testing.T) {
	content := "<invokenAme=0<invoke<invoke<invoke=0"
	var pieces []string
	for _, c := range content {
		pieces = append(pieces, string(c))
	}
	out, st := chattest.RewriteAll(t, chattest.OpenAIStream(pieces), chat.APIOpenAI, toolsieve.Options{}, 0)
	require.True(t, st.Runaway)
	got := chattest.AccumulateOpenAI(t, out) // fails on a second finish_reason
	require.Equal(t, "length", got.Finish)
	require.Empty(t, got.Calls)
}
