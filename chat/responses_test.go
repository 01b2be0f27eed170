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

// TestResponsesStreams rewrites every fixture as a Responses stream cut
// into random deltas (some inside characters) and read in random pieces,
// and checks the result against the parser's reading of the content.
func TestResponsesStreams(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	seen := map[string]int{}
	for _, c := range chattest.LoadCases(t, "../testdata/cases") {
		if strings.Contains(c.Input, "\x00") || strings.Contains(c.File, "runaway") {
			continue
		}
		opt := c.ParserOptions(t)
		for k := range 4 {
			pieces := chattest.SplitContent(rng, c.Input, 1+k*5, k%2 == 1)
			msg := fmt.Sprintf("%s/%s split %d", c.File, c.Name, k)
			out, st := chattest.RewriteAll(t, chattest.ResponsesStream(pieces), chat.APIAuto, opt, 1+rng.IntN(64))
			got := chattest.AccumulateResponses(t, out)
			chattest.CheckResponse(t, chat.APIResponses, c.Input, opt, got, msg)
			require.Equal(t, len(got.Calls), st.Calls, msg)
			seen[c.File] += len(got.Calls)
		}
	}
	for _, f := range []string{"dsml", "qwen3_coder", "hermes"} {
		require.NotZero(t, seen[f], "no call from %s", f)
	}
}

// TestResponsesDocs rewrites every fixture as a non-streamed response.
func TestResponsesDocs(t *testing.T) {
	for _, c := range chattest.LoadCases(t, "../testdata/cases") {
		if strings.Contains(c.File, "runaway") {
			continue
		}
		opt := c.ParserOptions(t)
		msg := c.File + "/" + c.Name
		out, _ := chattest.RewriteAll(t, chattest.ResponsesDoc(c.Input), chat.APIAuto, opt, 7)
		require.True(t, json.Valid(out), "%s: %s", msg, out)
		got := chattest.AccumulateDoc(t, chat.APIResponses, out)
		chattest.CheckResponse(t, chat.APIResponses, c.Input, opt, got, msg)
	}
}

// TestResponsesStreamMatchesDoc: a stream's final output and the rewritten
// document of the same content hold the same items.
func TestResponsesStreamMatchesDoc(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, c := range chattest.LoadCases(t, "../testdata/cases", "dsml", "qwen3_coder", "hermes", "reasoning", "orphans") {
		opt := c.ParserOptions(t)
		out, _ := chattest.RewriteAll(t, chattest.ResponsesStream(chattest.SplitContent(rng, c.Input, 7, true)), chat.APIResponses, opt, 13)
		doc, _ := chattest.RewriteAll(t, chattest.ResponsesDoc(c.Input), chat.APIResponses, opt, 0)
		var final struct {
			Response struct {
				Output json.RawMessage `json:"output"`
			} `json:"response"`
		}
		evs := bytes.Split(bytes.TrimSpace(out), []byte("\n\n"))
		last := evs[len(evs)-1]
		require.NoError(t, json.Unmarshal(last[bytes.Index(last, []byte("data: "))+6:], &final), "%s", last)
		var d struct {
			Output json.RawMessage `json:"output"`
		}
		require.NoError(t, json.Unmarshal(doc, &d))
		require.JSONEq(t, string(d.Output), string(final.Response.Output), c.File+"/"+c.Name)
	}
}

// TestResponsesPlainIdentical: responses without markup come back byte for
// byte, streamed (whatever the read sizes) or not.
func TestResponsesPlainIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, text := range []string{
		"Hello there. Here is some prose: a, b and c; 杭州 (Hangzhou) — “quotes”, emoji 🙂, tabs\tand\nnewlines.\n\nDone.",
		"\n\n  ", // blank
		"",
	} {
		for k := range 12 {
			pieces := chattest.SplitContent(rng, text, 1+k, false)
			for _, in := range [][]byte{chattest.ResponsesStream(pieces), chattest.ResponsesDoc(text), reasoningThenMessage(pieces, nil)} {
				out, st := chattest.RewriteAll(t, in, chat.APIAuto, toolsieve.Options{}, 1+rng.IntN(100))
				require.Equal(t, string(in), string(out))
				require.Zero(t, st.Calls)
			}
		}
	}
}

// reasoningThenMessage makes a stream with a reasoning item (summary
// text), a message of the pieces and a native function call, all streamed
// as a provider does; the final output holds them.
func reasoningThenMessage(pieces []string, native []string) []byte {
	seq := 0
	b := chattest.ResponsesEvents(nil, &seq, "response.created", `"response":`+chattest.ResponsesObject("in_progress", "[]", "null"))
	rs := `{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"Think."}]}`
	b = chattest.ResponsesEvents(b, &seq, "response.output_item.added", `"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}`)
	b = chattest.ResponsesEvents(b, &seq, "response.reasoning_summary_part.added", `"item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}`)
	b = chattest.ResponsesEvents(b, &seq, "response.reasoning_summary_text.delta", `"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"Think."`)
	b = chattest.ResponsesEvents(b, &seq, "response.reasoning_summary_text.done", `"item_id":"rs_1","output_index":0,"summary_index":0,"text":"Think."`)
	b = chattest.ResponsesEvents(b, &seq, "response.output_item.done", `"output_index":0,"item":`+rs)
	b = chattest.ResponsesMessageEvents(b, &seq, 1, "msg_1", pieces, false)
	text := strings.Join(pieces, "")
	output := "[" + rs + "," + chattest.ResponsesMessage("msg_1", "completed", text)
	if native != nil {
		fc := func(args string) string {
			return `{"id":"fc_n","type":"function_call","status":"` + map[bool]string{true: "completed", false: "in_progress"}[args != ""] +
				`","arguments":` + chattest.Quote(args) + `,"call_id":"call_n","name":"ls"}`
		}
		all := strings.Join(native, "")
		b = chattest.ResponsesEvents(b, &seq, "response.output_item.added", `"output_index":2,"item":`+fc(""))
		for _, a := range native {
			b = chattest.ResponsesEvents(b, &seq, "response.function_call_arguments.delta", `"item_id":"fc_n","output_index":2,"delta":`+chattest.Quote(a))
		}
		b = chattest.ResponsesEvents(b, &seq, "response.function_call_arguments.done", `"item_id":"fc_n","output_index":2,"arguments":`+chattest.Quote(all))
		b = chattest.ResponsesEvents(b, &seq, "response.output_item.done", `"output_index":2,"item":`+fc(all))
		output += "," + fc(all)
	}
	return chattest.ResponsesEvents(b, &seq, "response.completed", `"response":`+chattest.ResponsesObject("completed", output+"]", `{"input_tokens":1,"output_tokens":2,"total_tokens":3}`))
}

// TestResponsesItemsAround: the upstream's reasoning item and native call
// pass through; the items made of markup in between renumber the native
// call, and the final output lists them all in order.
func TestResponsesItemsAround(t *testing.T) {
	content := "Let me look.\n<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"a.go\"}}\n</tool_call>\nThen <think>hmm</think>more."
	for _, chunk := range []int{1, 5, 0} {
		pieces := chattest.SplitContent(rand.New(rand.NewPCG(1, uint64(chunk))), content, 4, true)
		in := reasoningThenMessage(pieces, []string{`{"dir"`, `:"src"}`})
		out, st := chattest.RewriteAll(t, in, chat.APIAuto, toolsieve.Options{IDPrefix: "id"}, chunk)
		got := chattest.AccumulateResponses(t, out)
		require.Equal(t, 1, st.Calls)
		chattest.SameCalls(t, []chattest.Call{{Name: "read", Args: `{"path":"a.go"}`}, {Name: "ls", Args: `{"dir":"src"}`}}, got.Calls, "calls")
		require.Equal(t, "call_n", got.Calls[1].ID)
		require.Equal(t, []string{"Let me look.\n", "\nThen ", "more."}, got.Segments)
		require.Equal(t, "hmm", got.Reasoning)
		require.Equal(t, "completed", got.Finish)
		require.Contains(t, string(out), `"summary":[{"type":"summary_text","text":"Think."}]`)
		// msg_1 keeps its id; the pieces after the call get ids of their own.
		require.Contains(t, string(out), `"output_index":1,"item":{"id":"msg_1"`)
		require.Contains(t, string(out), `"id":"msg_1_1","type":"message"`)
		require.Contains(t, string(out), `"output_index":6,"item":{"id":"fc_n"`)
	}
}

// TestResponsesRunaway: the stream ends cleanly after a runaway, with the
// calls recovered before it and response.incomplete (max_output_tokens),
// and the upstream body is closed at once; a whole response is cut the same
// way.
func TestResponsesRunaway(t *testing.T) {
	loop := "Working.\n<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>\n"
	content := strings.Repeat(loop, 200)
	in := chattest.ResponsesStream(chattest.SplitContent(rand.New(rand.NewPCG(5, 6)), content, 9, false))
	body := &closeRecorder{Reader: chattest.NewChunkReader(in, 50)}
	r := chat.NewRewriter(body, chat.APIAuto, toolsieve.Options{IDPrefix: "id"})
	out, err := io.ReadAll(r)
	require.NoError(t, err)
	require.True(t, r.Stats().Runaway)
	require.True(t, body.closed, "upstream body not closed")
	require.Less(t, body.read, len(in)/2, "read on after the runaway")
	got := chattest.AccumulateResponses(t, out)
	require.NotEmpty(t, got.Calls)
	require.Equal(t, "incomplete", got.Finish)
	require.Contains(t, string(out), `"incomplete_details":{"reason":"max_output_tokens"}`)
	require.Contains(t, string(out), "event: response.incomplete\n")
	require.Equal(t, "Working.\n", got.Segments[0])

	doc, st := chattest.RewriteAll(t, chattest.ResponsesDoc(content), chat.APIResponses, toolsieve.Options{}, 0)
	require.True(t, st.Runaway)
	gotDoc := chattest.AccumulateDoc(t, chat.APIResponses, doc)
	require.Equal(t, "incomplete", gotDoc.Finish)
	require.Len(t, gotDoc.Calls, len(got.Calls))
	require.Contains(t, string(doc), `"incomplete_details":{"reason":"max_output_tokens"}`)
}

// TestResponsesContentReader: the content of a Responses stream is its
// output_text; calls in it are found.
func TestResponsesContentReader(t *testing.T) {
	in := chattest.ResponsesStream([]string{"Hi ", chattest.LeakedDSML[:20], chattest.LeakedDSML[20:]})
	var calls []string
	for e, err := range chat.Events(bytes.NewReader(in), toolsieve.Options{}) {
		require.NoError(t, err)
		if e.Type == toolsieve.ToolCall {
			calls = append(calls, e.Name+string(e.Arguments))
		}
	}
	require.Equal(t, []string{`read_file{"path":"main.go"}`}, calls)
}

func TestResponsesAPI(t *testing.T) {
	for path, ok := range map[string]bool{"/v1/responses": true, "/responses/": true, "/v1/responses/resp_1": false,
		"/v1/responses/resp_1/cancel": false, "/v1/responses/input_tokens": false} {
		api, got := chat.APIForPath(path)
		require.Equal(t, ok, got, path)
		if ok {
			require.Equal(t, chat.APIResponses, api, path)
		}
	}
	api, ok := chat.ParseAPI("responses")
	require.True(t, ok)
	require.Equal(t, "responses", api.String())
	req := chat.ReadRequest([]byte(`{"model":"m","max_output_tokens":300,"input":"hi","tools":[{"type":"function","name":"ls","parameters":{"type":"object","properties":{"dir":{"type":"string"}}}}]}`))
	require.Equal(t, int64(300), req.MaxTokens)
	require.NotNil(t, req.Tools)
	require.Equal(t, 1, req.Tools.Len())
}

func TestCleanHistoryResponses(t *testing.T) {
	call := "<tool_call>\n{\"name\": \"ls\", \"arguments\": {\"dir\": \"src\"}}\n</tool_call>"
	for _, tc := range []struct {
		name, in, want string
		res            chat.HistoryResult
	}{
		{
			name: "message item, matched result",
			in: `{"model":"m","input":[{"role":"user","content":"read main.go"},` +
				`{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":` + chattest.Quote(chattest.LeakedDSML) + `,"annotations":[]}]},` +
				`{"type":"function_call_output","call_id":"call_abc","output":"package main"},{"role":"user","content":"thanks"}]}`,
			want: `{"model":"m","input":[{"role":"user","content":"read main.go"},` +
				`{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"I'll read it.","annotations":[]}]},` +
				`{"type":"function_call","call_id":"call_abc","name":"read_file","arguments":"{\"path\":\"main.go\"}"},` +
				`{"type":"function_call_output","call_id":"call_abc","output":"package main"},{"role":"user","content":"thanks"}]}`,
			res: chat.HistoryResult{Messages: 1, Calls: 1},
		},
		{
			name: "string content, only markup: the message goes, a native call's result is not taken",
			in: `{"input":[{"role":"assistant","content":` + chattest.Quote(call+"\n"+call) + `},{"type":"function_call","call_id":"n1","name":"cat","arguments":"{}"},` +
				`{"type":"function_call_output","call_id":"n1","output":"x"},{"type":"function_call_output","call_id":"r1","output":"a"}]}`,
			want: `{"input":[{"type":"function_call","call_id":"r1","name":"ls","arguments":"{\"dir\":\"src\"}"},{"type":"function_call","call_id":"n1","name":"cat","arguments":"{}"},` +
				`{"type":"function_call_output","call_id":"n1","output":"x"},{"type":"function_call_output","call_id":"r1","output":"a"}]}`,
			res: chat.HistoryResult{Messages: 1, Calls: 1, Dropped: 1},
		},
		{
			name: "no result: the call is dropped with its markup",
			in:   `{"input":[{"role":"assistant","content":` + chattest.Quote("Sure. "+call) + `},{"role":"user","content":"go on"}]}`,
			want: `{"input":[{"role":"assistant","content":"Sure."},{"role":"user","content":"go on"}]}`,
			res:  chat.HistoryResult{Messages: 1, Dropped: 1},
		},
		{
			name: "input as a string",
			in:   `{"input":` + chattest.Quote(call) + `}`,
			want: `{"input":` + chattest.Quote(call) + `}`,
		},
	} {
		got, res := chat.CleanHistory([]byte(tc.in), chat.APIResponses, toolsieve.Options{})
		require.True(t, json.Valid(got), tc.name)
		require.JSONEq(t, tc.want, string(got), tc.name)
		require.Equal(t, tc.res, res, tc.name)
	}
}

// TestResponsesMangled: streams with events dropped, repeated, swapped or
// with fields changed come out as JSON events, without a panic.
func TestResponsesMangled(t *testing.T) {
	content := "\nSure.\n<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"a.go\"}}\n</tool_call><think>x</think>" + chattest.LeakedDSML + " end"
	rng := rand.New(rand.NewPCG(11, 12))
	base := reasoningThenMessage(chattest.SplitContent(rng, content, 5, false), []string{`<parameter=dir>src</parameter>`})
	var events [][]byte
	for _, e := range bytes.SplitAfter(base, []byte("\n\n")) {
		if len(e) > 0 {
			events = append(events, e)
		}
	}
	swaps := []func(string) string{
		func(s string) string {
			return strings.Replace(s, `"output_index":1`, `"output_index":`+fmt.Sprint(rng.IntN(4)), 1)
		},
		func(s string) string {
			return strings.Replace(s, `"content_index":0`, `"content_index":`+fmt.Sprint(rng.IntN(3)-1), 1)
		},
		func(s string) string { return strings.Replace(s, `"delta":"`, `"delta":7,"x":"`, 1) },
		func(s string) string { return strings.Replace(s, `"item":`, `"it":`, 1) },
		func(s string) string {
			return strings.Replace(s, `"sequence_number":`, `"sequence_number":"x","s":`, 1)
		},
		func(s string) string { return strings.Replace(s, `"type":"message"`, `"type":"reasoning"`, 1) },
		func(s string) string { return strings.Replace(s, `"type":"response.`, `"type":"x.`, 1) },
	}
	for range 400 {
		var in []byte
		for k := 0; k < len(events); k++ {
			e := events[k]
			switch rng.IntN(12) {
			case 0:
				continue // dropped
			case 1:
				in = append(in, e...) // repeated
			case 2:
				if k+1 < len(events) {
					in = append(in, events[k+1]...) // swapped
				}
			case 3:
				e = []byte(swaps[rng.IntN(len(swaps))](string(e)))
			}
			in = append(in, e...)
		}
		// A stream that lost its final event ends with ErrTruncated.
		out, _, _, err := chattest.RewriteNotes(in, chat.APIAuto, toolsieve.Options{}, 1+rng.IntN(200))
		if err != nil {
			require.ErrorIs(t, err, chat.ErrTruncated)
		}
		evs := bytes.Split(bytes.TrimSpace(out), []byte("\n\n"))
		for _, e := range evs {
			i := bytes.Index(e, []byte("data: "))
			require.GreaterOrEqual(t, i, 0, "%s", e)
			d := e[i+6:]
			if j := bytes.IndexByte(d, '\n'); j >= 0 {
				d = d[:j]
			}
			require.True(t, json.Valid(d), "%s", d)
		}
	}
}

// TestResponsesRefusalPart: a part that is not output_text goes into the
// message piece open when it starts, and into its final content.
func TestResponsesRefusalPart(t *testing.T) {
	seq := 0
	at := func(ci int) string { return `"item_id":"msg_1","output_index":0,"content_index":` + fmt.Sprint(ci) }
	text := "Hmm. <tool_call>\n{\"name\": \"ls\", \"arguments\": {}}\n</tool_call>\n"
	refusal := `{"type":"refusal","refusal":"No."}`
	item := `{"id":"msg_1","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"text":` + chattest.Quote(text) + `},` + refusal + `],"role":"assistant"}`
	b := chattest.ResponsesEvents(nil, &seq, "response.output_item.added", `"output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","content":[],"role":"assistant"}`)
	b = chattest.ResponsesEvents(b, &seq, "response.content_part.added", at(0)+`,"part":{"type":"output_text","annotations":[],"text":""}`)
	b = chattest.ResponsesEvents(b, &seq, "response.output_text.delta", at(0)+`,"delta":`+chattest.Quote(text[:9]), at(0)+`,"delta":`+chattest.Quote(text[9:]))
	b = chattest.ResponsesEvents(b, &seq, "response.output_text.done", at(0)+`,"text":`+chattest.Quote(text))
	b = chattest.ResponsesEvents(b, &seq, "response.content_part.done", at(0)+`,"part":{"type":"output_text","annotations":[],"text":`+chattest.Quote(text)+`}`)
	b = chattest.ResponsesEvents(b, &seq, "response.content_part.added", at(1)+`,"part":{"type":"refusal","refusal":""}`)
	b = chattest.ResponsesEvents(b, &seq, "response.refusal.delta", at(1)+`,"delta":"No."`)
	b = chattest.ResponsesEvents(b, &seq, "response.refusal.done", at(1)+`,"refusal":"No."`)
	b = chattest.ResponsesEvents(b, &seq, "response.content_part.done", at(1)+`,"part":`+refusal)
	b = chattest.ResponsesEvents(b, &seq, "response.output_item.done", `"output_index":0,"item":`+item)
	b = chattest.ResponsesEvents(b, &seq, "response.completed", `"response":`+chattest.ResponsesObject("completed", "["+item+"]", "null"))
	for _, chunk := range []int{1, 0} {
		out, _ := chattest.RewriteAll(t, b, chat.APIAuto, toolsieve.Options{IDPrefix: "id"}, chunk)
		got := chattest.AccumulateResponses(t, out)
		chattest.SameCalls(t, []chattest.Call{{Name: "ls", Args: `{}`}}, got.Calls, "calls")
		require.Equal(t, []string{"Hmm. ", ""}, got.Segments) // the blank text after the call goes
		require.Contains(t, string(out), `"output_index":2,"item":{"id":"msg_1_1","type":"message","status":"completed","content":[{"type":"refusal","refusal":"No."}]`)
		require.Contains(t, string(out), `"item_id":"msg_1_1","output_index":2,"content_index":0,"delta":"No."`)
	}
}

// TestResponsesBareDeltas: a server that sends text deltas without
// content_index or item_id (and no event names) still gets its calls.
func TestResponsesBareDeltas(t *testing.T) {
	in := []byte("data: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"type\":\"message\",\"id\":\"m\",\"content\":[]}}\n\n")
	for _, d := range []string{"Hi ", chattest.LeakedDSML[:30], chattest.LeakedDSML[30:]} {
		in = append(in, "data: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"delta\":"+chattest.Quote(d)+"}\n\n"...)
	}
	in = append(in, "data: {\"type\":\"response.output_text.done\",\"output_index\":0,\"text\":"+chattest.Quote("Hi "+chattest.LeakedDSML)+"}\n\n"...)
	in = append(in, "data: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"type\":\"message\",\"id\":\"m\",\"content\":[]}}\n\ndata: [DONE]\n\n"...)
	out, st := chattest.RewriteAll(t, in, chat.APIAuto, toolsieve.Options{}, 3)
	require.Equal(t, 1, st.Calls)
	require.Contains(t, string(out), `"type":"function_call"`)
	require.Equal(t, 1, bytes.Count(out, []byte(`"type":"response.output_text.done"`)))
	require.Contains(t, string(out), `"text":"Hi I'll read it.\n"`)
	require.NotContains(t, string(out), "DSML")
	require.True(t, bytes.HasSuffix(out, []byte("data: [DONE]\n\n")))
}
