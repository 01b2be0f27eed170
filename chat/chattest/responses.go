package chattest

// The Responses API: streams and documents built around a model's content,
// and an accumulator that puts a stream back together, checking that it is
// well formed.

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve/sse"
)

// ResponsesObject is the JSON of a response object with the given status
// and output array.
func ResponsesObject(status, output, usage string) string {
	return `{"id":"resp_1","object":"response","created_at":1,"status":` + strconv.Quote(status) +
		`,"error":null,"incomplete_details":null,"instructions":null,"model":"m","output":` + output +
		`,"parallel_tool_calls":true,"tool_choice":"auto","tools":[],"usage":` + usage + `}`
}

const responsesUsage = `{"input_tokens":5,"output_tokens":7,"total_tokens":12}`

// ResponsesMessage is the JSON of a message output item holding text.
func ResponsesMessage(id, status, text string) string {
	return `{"id":"` + id + `","type":"message","status":"` + status + `","content":[` + responsesPart(text) + `],"role":"assistant"}`
}

func responsesPart(text string) string {
	return `{"type":"output_text","annotations":[],"logprobs":[],"text":` + Quote(text) + `}`
}

// ResponsesEvents appends Responses stream events (the event name is the
// type) with consecutive sequence numbers from *seq; each body is an event
// without type and sequence_number, as `"key":value,...`.
func ResponsesEvents(b []byte, seq *int, typ string, bodies ...string) []byte {
	for _, body := range bodies {
		d := `{"type":"` + typ + `","sequence_number":` + strconv.Itoa(*seq)
		if body != "" {
			d += "," + body
		}
		*seq++
		b = sse.AppendEvent(b, typ, []byte(d+"}"))
	}
	return b
}

// ResponsesStream makes a Responses stream with one message item whose
// text comes in the pieces.
func ResponsesStream(pieces []string) []byte {
	seq := 0
	b := ResponsesEvents(nil, &seq, "response.created", `"response":`+ResponsesObject("in_progress", "[]", "null"))
	b = ResponsesEvents(b, &seq, "response.in_progress", `"response":`+ResponsesObject("in_progress", "[]", "null"))
	return ResponsesMessageEvents(b, &seq, 0, "msg_1", pieces, true)
}

// ResponsesMessageEvents appends the events of a message item at output
// index out whose text comes in the pieces; with final, the
// response.completed event follows (its output that one item).
func ResponsesMessageEvents(b []byte, seq *int, out int, id string, pieces []string, final bool) []byte {
	at := `"item_id":"` + id + `","output_index":` + strconv.Itoa(out) + `,"content_index":0`
	b = ResponsesEvents(b, seq, "response.output_item.added", `"output_index":`+strconv.Itoa(out)+`,"item":{"id":"`+id+`","type":"message","status":"in_progress","content":[],"role":"assistant"}`)
	b = ResponsesEvents(b, seq, "response.content_part.added", at+`,"part":`+responsesPart(""))
	text := ""
	for _, p := range pieces {
		b = ResponsesEvents(b, seq, "response.output_text.delta", at+`,"delta":`+Quote(p)+`,"logprobs":[]`)
		text += p
	}
	b = ResponsesEvents(b, seq, "response.output_text.done", at+`,"text":`+Quote(text)+`,"logprobs":[]`)
	b = ResponsesEvents(b, seq, "response.content_part.done", at+`,"part":`+responsesPart(text))
	item := ResponsesMessage(id, "completed", text)
	b = ResponsesEvents(b, seq, "response.output_item.done", `"output_index":`+strconv.Itoa(out)+`,"item":`+item)
	if !final {
		return b
	}
	return ResponsesEvents(b, seq, "response.completed", `"response":`+ResponsesObject("completed", "["+item+"]", responsesUsage))
}

// ResponsesDoc makes a non-streamed response with one message item.
func ResponsesDoc(content string) []byte {
	return []byte(ResponsesObject("completed", "["+ResponsesMessage("msg_1", "completed", content)+"]", responsesUsage))
}

// rsItem is an output item being put together.
type rsItem struct {
	Type, ID, CallID, Name, Args string
	Parts                        []string
	open                         bool
	partOpen                     []bool
	done                         json.RawMessage
}

// rsEvent is the union of the Responses stream events' fields read here.
type rsEvent struct {
	Type         string          `json:"type"`
	Seq          *int            `json:"sequence_number"`
	OutputIndex  *int            `json:"output_index"`
	ContentIndex *int            `json:"content_index"`
	ItemID       string          `json:"item_id"`
	Delta        string          `json:"delta"`
	Text         *string         `json:"text"`
	Arguments    *string         `json:"arguments"`
	Item         json.RawMessage `json:"item"`
	Part         *struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"part"`
	Response *struct {
		Status string            `json:"status"`
		Output []json.RawMessage `json:"output"`
	} `json:"response"`
}

// rsOutputItem is the union of the output item fields read here.
type rsOutputItem struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Content   []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// AccumulateResponses puts a Responses stream together, checking that it
// is well formed: every event is JSON named by its type, sequence numbers
// follow each other, output indexes are given in order, deltas go to open
// items and parts, done events repeat what the deltas made, and the final
// event's output is the items as they were streamed. Finish is the final
// response's status.
func AccumulateResponses(t testing.TB, stream []byte) Response {
	return accumulateResponses(t, stream, false)
}

// AccumulateResponsesCut is AccumulateResponses for a stream that may have
// been cut: it may end with an error event (Errors) or without its final
// event, and an item may be left open (a call cut while it streamed: its
// arguments as they went out), which the final output leaves out.
func AccumulateResponsesCut(t testing.TB, stream []byte) Response {
	return accumulateResponses(t, stream, true)
}

func accumulateResponses(t testing.TB, stream []byte, cut bool) Response {
	var a Response
	var d sse.Decoder
	evs, _ := d.Feed(stream)
	more, _ := d.Close()
	evs = append(evs, more...)
	var items []*rsItem
	seq := -1
	final := false
	for _, ev := range evs {
		if !ev.IsMessage() {
			continue
		}
		if string(ev.Data) == "[DONE]" && cut {
			continue // a server that ends its stream as chat completions do
		}
		require.False(t, final, "event after the final one: %s", ev.Data)
		require.Empty(t, a.Errors, "event after an error: %s", ev.Data)
		var e rsEvent
		require.NoError(t, json.Unmarshal(ev.Data, &e), "%s", ev.Data)
		if e.Type == "error" && cut {
			a.Errors = append(a.Errors, string(ev.Data))
			continue
		}
		if ev.Type != "" {
			require.Equal(t, e.Type, ev.Type, "event name and type differ")
		}
		require.NotNil(t, e.Seq, "no sequence_number: %s", ev.Data)
		if seq >= 0 {
			require.Equal(t, seq+1, *e.Seq, "sequence numbers: %s", ev.Data)
		}
		seq = *e.Seq
		var it *rsItem
		if e.OutputIndex != nil && e.Type != "response.output_item.added" {
			require.Less(t, *e.OutputIndex, len(items), "unknown output_index: %s", ev.Data)
			it = items[*e.OutputIndex]
			require.True(t, it.open, "event for a finished item: %s", ev.Data)
			if e.ItemID != "" {
				require.Equal(t, it.ID, e.ItemID, "item_id: %s", ev.Data)
			}
		}
		part := func() int {
			require.NotNil(t, e.ContentIndex, "%s", ev.Data)
			require.Less(t, *e.ContentIndex, len(it.Parts), "unknown content_index: %s", ev.Data)
			require.True(t, it.partOpen[*e.ContentIndex], "event for a finished part: %s", ev.Data)
			return *e.ContentIndex
		}
		switch e.Type {
		case "response.output_item.added":
			require.Equal(t, len(items), *e.OutputIndex, "output_index out of order: %s", ev.Data)
			var oi rsOutputItem
			require.NoError(t, json.Unmarshal(e.Item, &oi))
			items = append(items, &rsItem{Type: oi.Type, ID: oi.ID, CallID: oi.CallID, Name: oi.Name, Args: oi.Arguments, open: true})
		case "response.content_part.added":
			require.Equal(t, len(it.Parts), *e.ContentIndex, "content_index out of order: %s", ev.Data)
			it.Parts = append(it.Parts, e.Part.Text)
			it.partOpen = append(it.partOpen, true)
		case "response.output_text.delta", "response.reasoning_text.delta":
			it.Parts[part()] += e.Delta
		case "response.output_text.done", "response.reasoning_text.done":
			require.Equal(t, it.Parts[part()], *e.Text, "done text: %s", ev.Data)
		case "response.content_part.done":
			k := part()
			require.Equal(t, it.Parts[k], e.Part.Text, "part done text: %s", ev.Data)
			it.partOpen[k] = false
		case "response.function_call_arguments.delta":
			require.Equal(t, "function_call", it.Type)
			it.Args += e.Delta
		case "response.function_call_arguments.done":
			require.Equal(t, it.Args, *e.Arguments, "arguments done: %s", ev.Data)
		case "response.output_item.done":
			var oi rsOutputItem
			require.NoError(t, json.Unmarshal(e.Item, &oi))
			require.Equal(t, it.Type, oi.Type)
			require.Equal(t, it.ID, oi.ID)
			switch it.Type {
			case "function_call":
				require.Equal(t, it.Args, oi.Arguments, "item done arguments")
				require.Equal(t, it.CallID, oi.CallID)
				require.Equal(t, it.Name, oi.Name)
			case "message", "reasoning":
				require.Len(t, oi.Content, len(it.Parts), "item done content: %s", ev.Data)
				for k, c := range oi.Content {
					require.False(t, it.partOpen[k], "item done with a part open")
					require.Equal(t, it.Parts[k], c.Text, "item done text")
				}
			}
			it.open, it.done = false, e.Item
		case "response.completed", "response.incomplete", "response.failed":
			final = true
			a.Finish = e.Response.Status
			done := items
			if cut {
				done = nil
				for _, it := range items {
					if it.open {
						require.Equal(t, "function_call", it.Type, "only a cut call stays open")
						continue
					}
					done = append(done, it)
				}
			}
			require.Len(t, e.Response.Output, len(done), "final output: %s", ev.Data)
			for k, o := range e.Response.Output {
				require.False(t, done[k].open, "item %d not done at the end", k)
				require.JSONEq(t, string(done[k].done), string(o), "final output item %d", k)
			}
		}
	}
	require.True(t, final || cut, "no final event")
	for _, it := range items {
		responsesItem(&a, it.Type, it.CallID, it.Name, it.Args, it.Parts)
	}
	return a
}

// responsesItem adds an output item to a.
func responsesItem(a *Response, typ, callID, name, args string, parts []string) {
	text := ""
	for _, p := range parts {
		text += p
	}
	switch typ {
	case "message":
		a.Text += text
		a.Segments = append(a.Segments, text)
	case "reasoning":
		a.Reasoning += text
	case "function_call":
		a.Calls = append(a.Calls, Call{ID: callID, Name: name, Args: args})
	}
}

// accumulateResponsesDoc reads a non-streamed response.
func accumulateResponsesDoc(t testing.TB, doc []byte) Response {
	var a Response
	var r struct {
		Status string         `json:"status"`
		Output []rsOutputItem `json:"output"`
	}
	require.NoError(t, json.Unmarshal(doc, &r))
	ids := map[string]bool{}
	for _, it := range r.Output {
		require.False(t, ids[it.ID], "item id %q twice", it.ID)
		ids[it.ID] = true
		var parts []string
		for _, c := range it.Content {
			parts = append(parts, c.Text)
		}
		responsesItem(&a, it.Type, it.CallID, it.Name, it.Arguments, parts)
	}
	a.Finish = r.Status
	return a
}

// ResponsesRequestText is the text a Responses request's input ends with:
// the input itself when it is a string, else the text of its last message
// item (a string, or its input_text / output_text parts).
func ResponsesRequestText(input json.RawMessage) string {
	var s string
	if json.Unmarshal(input, &s) == nil {
		return s
	}
	var items []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	json.Unmarshal(input, &items)
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Role != "" {
			return messageText(items[i].Content)
		}
	}
	return ""
}
