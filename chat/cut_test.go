package chat_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// cutContents are answers with calls to cut: markup written as elements,
// and a JSON call object (its arguments stream while a string is read).
var cutContents = []string{
	"Let me look first.\n<tool_call>\n<function=list>\n<parameter=dir>\nsrc\n</parameter>\n</function>\n</tool_call>\n" +
		"Now the cleanup.\n<tool_call>\n<function=delete_path>\n<parameter=path>\n/home/user/tmp\n</parameter>\n</function>\n</tool_call>\nDone.",
	"Cleaning up.\n<tool_call>\n{\"name\": \"delete_path\", \"arguments\": {\"path\": \"/home/user/tmp\", \"recursive\": true}}\n</tool_call>\nDone.",
}

// cutBody returns b in reads of at most n bytes, then err.
type cutBody struct {
	b   []byte
	n   int
	err error
}

func (r *cutBody) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, r.err
	}
	n := min(len(r.b), len(p))
	if r.n > 0 {
		n = min(n, r.n)
	}
	copy(p, r.b[:n])
	r.b = r.b[n:]
	return n, nil
}

func (r *cutBody) Close() error { return nil }

// TestRewriteCuts cuts each API's stream at each kind of byte of each of
// its events (cutPositions; every byte is FuzzRewriteCut's), ending it
// cleanly or with a broken connection, with and without streamed calls,
// read whole and in small pieces. The client never gets a call the cut
// ended (one that started to stream keeps its arguments as they went out,
// never closed), the text before the cut comes whole, the output never
// ends inside an event, and the rewriter's Read says how the stream ended:
// ErrTruncated for a clean end before the finish marker, the connection's
// error for a broken one, nothing for a whole answer (even if the
// connection broke after its end). (The proxy turns
// those errors into one error event: sievehttp's TestProxyCuts.)
func TestRewriteCuts(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 1))
	n := 0
	for ci, content := range cutContents {
		pieces := chattest.SplitContent(rng, content, 9, false)
		for _, api := range streamAPIs {
			stream := upstreamOf(api, pieces)
			evs := chattest.StreamEvents(t, api, stream)
			for _, streamed := range []bool{false, true} {
				opt := toolsieve.Options{IDPrefix: "c", StreamCalls: streamed}
				for _, k := range chattest.CutPositions(evs) {
					want := chattest.ExpectCut(evs, k, opt)
					for _, broken := range []bool{false, true} {
						var end error = io.EOF
						if broken {
							end = io.ErrUnexpectedEOF
						}
						chunk := []int{0, 1, 5, 64}[(k+ci)%4] // several chunkings of each cut
						msg := fmt.Sprintf("content %d, %s, streamed %v, cut at %d/%d, broken %v, chunk %d", ci, api, streamed, k, len(stream), broken, chunk)
						r := chat.NewRewriter(&cutBody{b: stream[:k], n: chunk, err: end}, api, opt)
						r.ExpectEvents() // an event stream: even one cut before its first event is incomplete
						out, err := io.ReadAll(r)
						switch {
						case broken && !want.Ended:
							require.ErrorIs(t, err, io.ErrUnexpectedEOF, msg)
						case !want.Ended:
							require.ErrorIs(t, err, chat.ErrTruncated, msg)
							require.True(t, r.Stats().Incomplete, msg)
						default:
							require.NoError(t, err, msg)
						}
						if !broken || want.Natural {
							require.Equal(t, want.Truncated, r.Stats().Truncated, msg)
						}
						got := chattest.CheckCut(t, api, out, want, msg)
						require.Empty(t, got.Errors, msg)
						n++
					}
				}
			}
		}
	}
	t.Logf("%d cuts", n)
}

// TestRewriteCutByTheLimit: an answer that the token limit (or a filter)
// ended inside a call, streamed or whole: the call is not handed on, and
// is reported as truncated. Its markup stays text and the upstream's own
// ending says the answer was cut (finish_reason length, stop_reason
// max_tokens, response.incomplete), with no error added; or, if the call
// had started to stream, its arguments stay as they went out and the
// stream ends with ErrStreamedCut instead of that ending (an error every
// client drops the call for). Ended by the model itself inside a call
// (stop, end_turn, completed), the call goes out with closed_at_eof.
func TestRewriteCutByTheLimit(t *testing.T) {
	content := "Cleaning up now.\n<tool_call>\n<function=delete_path>\n<parameter=path>\n/home/user/tmp\n</parameter>\n"
	text := "Cleaning up now.\n"
	for _, api := range streamAPIs {
		for _, reason := range []string{"limit", "filter", "natural"} {
			for _, streamed := range []bool{false, true} {
				pieces := chattest.SplitContent(rand.New(rand.NewPCG(2, 4)), content, 8, false)
				in := limitStream(api, upstreamOf(api, pieces), reason)
				for _, chunk := range []int{0, 3} {
					msg := fmt.Sprintf("%s, %s, streamed %v, chunk %d", api, reason, streamed, chunk)
					out, err, notes, st := cutRun(in, api, chunk, streamed)
					if streamed && reason != "natural" {
						require.ErrorIs(t, err, chat.ErrStreamedCut, msg)
					} else {
						require.NoError(t, err, msg)
					}
					got := accumulateCut(t, api, out)
					require.Empty(t, got.Errors, msg)
					if reason == "natural" {
						require.Len(t, got.Calls, 1, msg)
						require.JSONEq(t, `{"path":"/home/user/tmp"}`, got.Calls[0].Args, msg)
						require.Zero(t, st.Truncated, msg)
						continue
					}
					require.Equal(t, 1, st.Truncated, msg)
					require.Zero(t, st.Calls, msg)
					require.True(t, hasTruncatedNote(notes, "delete_path"), msg)
					if streamed {
						require.Empty(t, got.Finish, msg) // the error ends it, not the upstream's ending
						require.Len(t, got.Calls, 1, msg)
						require.False(t, json.Valid([]byte(got.Calls[0].Args)), "%s: %s", msg, got.Calls[0].Args)
						require.False(t, strings.HasSuffix(got.Calls[0].Args, "}"), msg) // nothing closes it: the call's closers are not the model's
						require.Equal(t, text, strings.TrimSpace(got.Text)+"\n", msg)
					} else {
						require.Equal(t, limitFinish(api, reason), got.Finish, msg)
						require.Empty(t, got.Calls, msg)
						require.Equal(t, content, got.Text, msg)
					}
				}
			}
		}
		// Whole responses.
		for _, reason := range []string{"limit", "filter", "natural"} {
			doc := limitDoc(api, content, reason)
			out, st := chattest.RewriteAll(t, doc, api, toolsieve.Options{}, 0)
			got := chattest.AccumulateDoc(t, api, out)
			msg := fmt.Sprintf("%s doc, %s", api, reason)
			if reason == "natural" {
				require.Len(t, got.Calls, 1, msg)
				continue
			}
			require.Empty(t, got.Calls, msg)
			require.Equal(t, content, got.Text, msg)
			require.Equal(t, 1, st.Truncated, msg)
			require.Equal(t, limitFinish(api, reason), got.Finish, msg)
		}
	}
}

func hasTruncatedNote(notes []*toolsieve.Event, name string) bool {
	for _, e := range notes {
		if e.Type == toolsieve.Error && e.Reason == toolsieve.ReasonTruncated && e.Name == name {
			return true
		}
	}
	return false
}

// limitFinish is how the upstream said the answer was cut.
func limitFinish(api chat.API, reason string) string {
	switch {
	case api == chat.APIResponses:
		return "incomplete"
	case api == chat.APIOpenAI && reason == "filter":
		return "content_filter"
	case api == chat.APIOpenAI:
		return "length"
	case reason == "filter":
		return "refusal"
	}
	return "max_tokens"
}

// limitStream makes a chattest stream end as cut by the limit or a filter
// (reason), or leaves it ending naturally.
func limitStream(api chat.API, stream []byte, reason string) []byte {
	if reason == "natural" {
		return stream
	}
	f := limitFinish(api, reason)
	switch api {
	case chat.APIOpenAI:
		return bytes.Replace(stream, []byte(`"finish_reason":"stop"`), []byte(`"finish_reason":"`+f+`"`), 1)
	case chat.APIAnthropic:
		return bytes.Replace(stream, []byte(`"stop_reason":"end_turn"`), []byte(`"stop_reason":"`+f+`"`), 1)
	}
	s := bytes.Replace(stream, []byte("response.completed"), []byte("response.incomplete"), 2)
	s = bytes.Replace(s, []byte(`"status":"completed","error":null,"incomplete_details":null`), []byte(`"status":"incomplete","error":null,"incomplete_details":{"reason":"max_output_tokens"}`), 1)
	return s
}

// limitDoc is a whole response of content ended as reason says.
func limitDoc(api chat.API, content, reason string) []byte {
	var doc []byte
	switch api {
	case chat.APIOpenAI:
		doc = chattest.OpenAIDoc(content)
	case chat.APIAnthropic:
		doc = chattest.AnthropicDoc(content)
	default:
		doc = chattest.ResponsesDoc(content)
	}
	if reason == "natural" {
		return doc
	}
	f := limitFinish(api, reason)
	switch api {
	case chat.APIOpenAI:
		return bytes.Replace(doc, []byte(`"finish_reason":"stop"`), []byte(`"finish_reason":"`+f+`"`), 1)
	case chat.APIAnthropic:
		return bytes.Replace(doc, []byte(`"stop_reason":"end_turn"`), []byte(`"stop_reason":"`+f+`"`), 1)
	}
	return bytes.Replace(doc, []byte(`"status":"completed","error"`), []byte(`"status":"incomplete","error"`), 1)
}

// TestRewriteTornEvent: an event that the end of the stream tears in the
// middle is dropped, whole or not, so the output always ends with a whole
// event; one that lacks only its blank line is completed.
func TestRewriteTornEvent(t *testing.T) {
	head := chattest.OpenAIStream([]string{"Hello"})
	head = head[:bytes.Index(head, []byte(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{},`))]
	for _, tc := range []struct {
		name, tail string
		kept       string // the bytes of the tail that go out
	}{
		{"inside the data", `data: {"choices":[{"index":0,"delta":{"content":" wor`, ""},
		{"inside the field name", `da`, ""},
		{"inside a comment", `: keep-al`, ""},
		{"data whole, no line end", `data: {"choices":[{"index":0,"delta":{"content":" world"}}]}`, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" world\"}}]}\n\n"},
		{"data whole, no blank line", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" world\"}}]}\n", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" world\"}}]}\n\n"},
		{"CR line end", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" world\"}}]}\r", "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" world\"}}]}\r\r"},
		{"comment line whole", ": keep-alive\n", ": keep-alive\n\n"},
	} {
		for _, chunk := range []int{0, 1} {
			in := append(append([]byte(nil), head...), tc.tail...)
			out, st, errs, err := chattest.RewriteNotes(in, chat.APIOpenAI, toolsieve.Options{}, chunk)
			require.ErrorIs(t, err, chat.ErrTruncated, tc.name)
			require.Equal(t, string(head)+tc.kept, string(out), tc.name)
			if tc.kept == "" {
				require.Equal(t, 1, st.Torn, tc.name)
				require.Contains(t, errs, "an event cut off by the end of the stream was dropped")
			}
		}
	}
}

// TestRewriteEndMarkers: what counts as an answer's end, per API; the
// upstream's own error event ends it too (the client gets that error, no
// second one).
func TestRewriteEndMarkers(t *testing.T) {
	oa := chattest.OpenAIStream([]string{"Hi"})
	an := chattest.AnthropicStream([]string{"Hi"})
	rs := chattest.ResponsesStream([]string{"Hi"})
	cutAt := func(b []byte, s string) []byte {
		i := bytes.Index(b, []byte(s))
		require.GreaterOrEqual(t, i, 0, "%q in %s", s, b)
		return bytes.Clone(b[:i])
	}
	oaErr := []byte("data: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}\n\n")
	anErr := []byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n")
	rsErr := []byte("event: error\ndata: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"boom\",\"sequence_number\":5}\n\n")
	for _, tc := range []struct {
		name     string
		api      chat.API
		in       []byte
		complete bool
	}{
		{"openai whole", chat.APIOpenAI, oa, true},
		{"openai without [DONE]", chat.APIOpenAI, cutAt(oa, "data: [DONE]"), true},
		{"openai without usage and [DONE]", chat.APIOpenAI, cutAt(oa, `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[]`), true},
		{"openai without finish_reason", chat.APIOpenAI, cutAt(oa, `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{},`), false},
		{"openai [DONE] without finish_reason", chat.APIOpenAI, append(cutAt(oa, `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{},`), "data: [DONE]\n\n"...), true},
		{"openai error chunk", chat.APIOpenAI, append(cutAt(oa, `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{},`), oaErr...), true},
		{"openai no event", chat.APIOpenAI, []byte(": keep-alive\n\n"), false},
		{"anthropic whole", chat.APIAnthropic, an, true},
		{"anthropic without message_stop", chat.APIAnthropic, cutAt(an, "event: message_stop"), false},
		{"anthropic error event", chat.APIAnthropic, append(cutAt(an, "event: content_block_stop"), anErr...), true},
		{"responses whole", chat.APIResponses, rs, true},
		{"responses without its final event", chat.APIResponses, cutAt(rs, "event: response.completed"), false},
		{"responses [DONE]", chat.APIResponses, append(cutAt(rs, "event: response.completed"), "data: [DONE]\n\n"...), true},
		{"responses error event", chat.APIResponses, append(cutAt(rs, "event: response.output_text.done"), rsErr...), true},
	} {
		out, st, _, err := chattest.RewriteNotes(tc.in, tc.api, toolsieve.Options{}, 0)
		if tc.complete {
			require.NoError(t, err, tc.name)
			require.Equal(t, string(tc.in), string(out), tc.name)
		} else {
			require.ErrorIs(t, err, chat.ErrTruncated, tc.name)
			require.True(t, st.Incomplete, tc.name)
		}
	}
}

// TestRewriteCutWaits: an Anthropic text block or Responses text part that
// ends inside a call waits for the message's end to say whether the model
// ended there; what comes in between (pings) waits with it and goes out in
// its order. A block the model follows with another block was ended by
// the model.
func TestRewriteCutWaits(t *testing.T) {
	content := "Reading.\n<tool_call>\n<function=read>\n<parameter=path>\na.go\n</parameter>\n"
	an := chattest.AnthropicStream(chattest.SplitContent(rand.New(rand.NewPCG(1, 2)), content, 5, false))
	i := bytes.Index(an, []byte("event: message_delta"))
	ping := []byte("event: ping\ndata: {\"type\": \"ping\"}\n\n")
	withPing := append(append(append([]byte(nil), an[:i]...), ping...), an[i:]...)
	for _, chunk := range []int{0, 1, 9} {
		out, st := chattest.RewriteAll(t, withPing, chat.APIAnthropic, toolsieve.Options{}, chunk)
		got := chattest.AccumulateAnthropic(t, out)
		require.Len(t, got.Calls, 1)
		require.Equal(t, "tool_use", got.Finish)
		require.Zero(t, st.Truncated)
		// The ping after the call's block, before message_delta.
		p := bytes.LastIndex(out, ping)
		require.Greater(t, p, bytes.LastIndex(out, []byte("event: content_block_stop")))
		require.Less(t, p, bytes.Index(out, []byte("event: message_delta")))

		limited := bytes.Replace(withPing, []byte(`"end_turn"`), []byte(`"max_tokens"`), 1)
		out, st = chattest.RewriteAll(t, limited, chat.APIAnthropic, toolsieve.Options{}, chunk)
		got = chattest.AccumulateAnthropic(t, out)
		require.Empty(t, got.Calls)
		require.Equal(t, content, got.Text)
		require.Equal(t, "max_tokens", got.Finish)
		require.Equal(t, 1, st.Truncated)
	}
	// Another block after it: the model went on, the call was its own.
	j := bytes.Index(an, []byte("event: message_delta"))
	next := append(append(append([]byte(nil), an[:j]...),
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"+
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"More.\"}}\n\n"+
			"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n"...), bytes.Replace(an[j:], []byte(`"end_turn"`), []byte(`"max_tokens"`), 1)...)
	out, st := chattest.RewriteAll(t, next, chat.APIAnthropic, toolsieve.Options{}, 0)
	got := chattest.AccumulateAnthropic(t, out)
	require.Len(t, got.Calls, 1)
	require.Equal(t, "Reading.\nMore.", got.Text)
	require.Zero(t, st.Truncated)
	require.Equal(t, "max_tokens", got.Finish)
}

// TestRewriteCutStrict: in strict mode a call the cut ends is refused by
// the parser (closed_at_eof is a structural repair) and counted as
// truncated too.
func TestRewriteCutStrict(t *testing.T) {
	content := "Cleaning up now.\n<tool_call>\n<function=delete_path>\n<parameter=path>\n/home/user/tmp\n</parameter>\n"
	in := limitStream(chat.APIOpenAI, chattest.OpenAIStream([]string{content}), "limit")
	out, st := chattest.RewriteAll(t, in, chat.APIOpenAI, toolsieve.Options{Strict: &toolsieve.Strict{Allow: toolsieve.RepairMarkerVariant}}, 0)
	got := chattest.AccumulateOpenAI(t, out)
	require.Empty(t, got.Calls)
	require.Equal(t, content, got.Text)
	require.Equal(t, 1, st.Refused)
	require.Equal(t, 1, st.Truncated)
	// Allowed by strict mode, it is still cut.
	out, st = chattest.RewriteAll(t, in, chat.APIOpenAI, toolsieve.Options{Strict: &toolsieve.Strict{Allow: toolsieve.RepairMissingCloser | toolsieve.RepairClosedAtEOF}}, 0)
	require.Empty(t, chattest.AccumulateOpenAI(t, out).Calls)
	require.Equal(t, 1, st.Truncated)
	require.Zero(t, st.Refused)
}

// TestRewriterFootprint: the rewriter's Footprint follows a large event
// as it comes (its decoder's buffer and the copies it will take), is
// reported through Hold as the body is read (many reads before any
// output), and drops once the event is rewritten; an error of Hold stops
// the rewriting there.
func TestRewriterFootprint(t *testing.T) {
	const size = 2 << 20
	var sb strings.Builder // numbered: prose repeated is a loop (the repetition guard)
	for i := 0; sb.Len() < size; i++ {
		fmt.Fprintf(&sb, "Plain prose %d of an answer. ", i)
	}
	prose := sb.String()[:size]
	stream := chattest.OpenAIStream([]string{"Hello. ", prose, " Bye."})
	var seen []int64
	r := chat.NewRewriter(io.NopCloser(chattest.NewChunkReader(stream, 32<<10)), chat.APIOpenAI, toolsieve.Options{})
	r.Hold = func(fp int64) error {
		seen = append(seen, fp)
		return nil
	}
	out, err := io.ReadAll(r)
	require.NoError(t, err)
	require.Equal(t, "Hello. "+prose+" Bye.", chattest.AccumulateOpenAI(t, out).Text)
	require.Greater(t, len(seen), size/(32<<10), "Hold is told as the event comes")
	peak := int64(0)
	for _, fp := range seen {
		peak = max(peak, fp)
	}
	require.Greater(t, peak, int64(6*size), "the copies of the event are counted before they are made")
	require.Less(t, peak, int64(12*size))
	require.Less(t, r.Footprint(), int64(3*size), "given back once the event went out")

	stop := fmt.Errorf("no room")
	r = chat.NewRewriter(io.NopCloser(chattest.NewChunkReader(stream, 32<<10)), chat.APIOpenAI, toolsieve.Options{})
	r.Hold = func(fp int64) error {
		if fp > size {
			return stop
		}
		return nil
	}
	out, err = io.ReadAll(r)
	require.ErrorIs(t, err, stop)
	require.True(t, bytes.HasSuffix(out, []byte("\n\n")))
	require.NotContains(t, string(out), prose[:100])
}

// TestRewriteNoFinishReason: an answer that ends with its stream's end
// marker but says nothing of how the model ended ([DONE] without a
// finish_reason, message_stop without message_delta, a Responses [DONE]
// without its final event) is whole (no error), but a call its end closed
// is not the model's: kept as text.
func TestRewriteNoFinishReason(t *testing.T) {
	content := "Cleaning up now.\n<tool_call>\n<function=delete_path>\n<parameter=path>\n/home/user/tmp\n</parameter>\n"
	oa := chattest.OpenAIStream([]string{content})
	oa = append(oa[:bytes.Index(oa, []byte(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{},`))], "data: [DONE]\n\n"...)
	an := chattest.AnthropicStream([]string{content})
	an = append(an[:bytes.Index(an, []byte("event: content_block_stop"))], "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"...)
	rs := chattest.ResponsesStream([]string{content})
	rs = append(rs[:bytes.Index(rs, []byte("event: response.output_text.done"))], "data: [DONE]\n\n"...)
	for api, in := range map[chat.API][]byte{chat.APIOpenAI: oa, chat.APIAnthropic: an, chat.APIResponses: rs} {
		out, st := chattest.RewriteAll(t, in, api, toolsieve.Options{}, 5)
		got := accumulateCut(t, api, out)
		require.Empty(t, got.Calls, api.String())
		require.Equal(t, content, got.Text, api.String())
		require.Equal(t, 1, st.Truncated, api.String())
		require.False(t, st.Incomplete, api.String())
	}
}

// TestRewriteCutInValue: an answer that ends inside a call's last value,
// even by the model's own stop, never hands the call on: the value may be
// cut anywhere (`/home/us`), so the parser keeps the markup as text with an
// error. Not streamed, the client gets the text; streamed, the call that
// started to go out is left as it went out and the answer ends with an
// error (never finished with the arguments sent).
func TestRewriteCutInValue(t *testing.T) {
	content := "Cleaning up now.\n<tool_call>\n<function=delete_path>\n<parameter=path>\n/home/us"
	for _, api := range streamAPIs {
		for _, streamed := range []bool{false, true} {
			msg := fmt.Sprintf("%s, streamed %v", api, streamed)
			pieces := chattest.SplitContent(rand.New(rand.NewPCG(3, 7)), content, 8, false)
			in := limitStream(api, upstreamOf(api, pieces), "natural")
			r := chat.NewRewriter(io.NopCloser(chattest.NewChunkReader(in, 5)), api, toolsieve.Options{StreamCalls: streamed})
			out, err := io.ReadAll(r)
			got := accumulateCut(t, api, out)
			require.Zero(t, r.Stats().Calls, msg)
			if streamed {
				require.ErrorIs(t, err, chat.ErrStreamedCall, msg) // lost (nothing of it went out yet) or unread
				for _, c := range got.Calls {
					require.False(t, json.Valid([]byte(c.Args)), "%s: %s", msg, c.Args)
				}
				continue
			}
			require.NoError(t, err, msg)
			require.Empty(t, got.Calls, msg)
			require.Equal(t, content, got.Text, msg)
		}
	}
}

// cutRun rewrites the stream in for api, read chunk bytes at a time (0:
// whole), with calls streamed or not, and returns the rewriter's output and
// error, the events it notified and its stats.
func cutRun(in []byte, api chat.API, chunk int, streamed bool) (out []byte, err error, notes []*toolsieve.Event, st chat.RewriteStats) {
	r := chat.NewRewriter(io.NopCloser(chattest.NewChunkReader(in, chunk)), api, toolsieve.Options{StreamCalls: streamed})
	r.Notify = func(e *toolsieve.Event) { c := e.Clone(); notes = append(notes, &c) }
	out, err = io.ReadAll(r)
	return out, err, notes, r.Stats()
}
