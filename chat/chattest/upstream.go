package chattest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/sse"
)

// EchoUpstream is a test upstream. It answers chat completions, Anthropic
// Messages (paths ending in /messages) and the Responses API (paths ending
// in /responses), streamed or not, with the text of the last user message
// (of a Responses request: its input, a string or items) as the model's
// content. The request's model name picks a behaviour: "echo" (content split
// at character boundaries), "bytes" (split anywhere, also inside
// characters), "cut" (the stream ends cleanly before its finish marker),
// "hardcut" (the same, then the connection is reset), "limit" (the answer
// ends as cut by the token limit: finish_reason length, stop_reason
// max_tokens, response.incomplete), "malformed", "errorevent", "status500",
// "slow", "runaway".
type EchoUpstream struct {
	Server  *httptest.Server
	Events  chan string // what fault modes saw happen
	Written atomic.Int64
	Auth    atomic.Value // the last Authorization / x-api-key seen
}

// NewEchoUpstream starts an EchoUpstream, stopped when the test ends.
func NewEchoUpstream(t *testing.T) *EchoUpstream {
	u := &EchoUpstream{Events: make(chan string, 16)}
	u.Server = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.Server.Close)
	return u
}

func (u *EchoUpstream) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	u.Auth.Store(r.Header.Get("Authorization") + "|" + r.Header.Get("X-Api-Key"))
	var req struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Input json.RawMessage `json:"input"`
	}
	resp := strings.HasSuffix(r.URL.Path, "/responses")
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 && !(resp && len(req.Input) > 0) {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	var content string
	if resp {
		content = ResponsesRequestText(req.Input)
	} else {
		content = messageText(req.Messages[len(req.Messages)-1].Content)
	}
	anth := strings.HasSuffix(r.URL.Path, "/messages")
	if req.Model == "status500" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"error":{"message":"upstream exploded","type":"server_error"}}`)
		return
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		var doc []byte
		switch {
		case anth:
			doc = AnthropicDoc(content)
		case resp:
			doc = ResponsesDoc(content)
		default:
			doc = OpenAIDoc(content)
		}
		if req.Model == "limit" {
			doc = LimitEnd(doc)
		}
		w.Write(doc)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	h := fnv.New64a()
	io.WriteString(h, content)
	rng := rand.New(rand.NewPCG(h.Sum64(), 7))
	if req.Model == "runaway" {
		u.runaway(w, r, anth, resp)
		return
	}
	pieces := SplitContent(rng, content, 6, req.Model == "bytes")
	var stream []byte
	switch {
	case anth:
		stream = AnthropicStream(pieces)
	case resp:
		stream = ResponsesStream(pieces)
	default:
		stream = OpenAIStream(pieces)
	}
	switch req.Model {
	case "cut", "hardcut":
		switch {
		case anth:
			stream = stream[:bytes.Index(stream, []byte("event: content_block_stop"))]
		case resp:
			stream = stream[:bytes.Index(stream, []byte("event: response.output_text.done"))]
		default:
			stream = stream[:bytes.Index(stream, []byte(`"finish_reason":"stop"`))]
			stream = stream[:bytes.LastIndex(stream, []byte("data: "))]
		}
	case "limit":
		stream = LimitEnd(stream)
	case "malformed":
		i := bytes.Index(stream, []byte("\n\n")) + 2
		stream = append(append(append([]byte(nil), stream[:i]...), "data: {\"choices\":[{oops\n\n"...), stream[i:]...)
	case "errorevent":
		i := bytes.Index(stream, []byte("event: content_block_stop"))
		stream = append(stream[:i:i], "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"...)
	}
	var d sse.Decoder
	evs, _ := d.Feed(stream)
	rc := http.NewResponseController(w)
	for i, ev := range evs {
		raw := ev.Raw
		if len(raw) > 4 && rng.IntN(3) == 0 { // split a write anywhere, even inside a character
			k := 1 + rng.IntN(len(raw)-1)
			w.Write(raw[:k])
			rc.Flush()
			raw = raw[k:]
		}
		w.Write(raw)
		rc.Flush()
		if req.Model == "slow" && i == 3 {
			select {
			case <-r.Context().Done():
				u.Events <- "cancelled"
			case <-time.After(5 * time.Second):
				u.Events <- "not cancelled"
			}
			return
		}
	}
	if req.Model == "hardcut" {
		conn, _, err := rc.Hijack()
		if err == nil {
			conn.Close()
		}
	}
}

// LimitEnd makes a stream or document built by this package end as the
// token limit ends an answer: finish_reason length (OpenAI), stop_reason
// max_tokens (Anthropic), status incomplete with max_output_tokens
// (Responses).
func LimitEnd(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte(`"finish_reason":"stop"`), []byte(`"finish_reason":"length"`))
	b = bytes.ReplaceAll(b, []byte(`"stop_reason":"end_turn"`), []byte(`"stop_reason":"max_tokens"`))
	b = bytes.ReplaceAll(b, []byte(`response.completed`), []byte(`response.incomplete`))
	return bytes.ReplaceAll(b, []byte(`"status":"completed","error":null,"incomplete_details":null`),
		[]byte(`"status":"incomplete","error":null,"incomplete_details":{"reason":"max_output_tokens"}`))
}

// runaway streams the same call over and over until the client side goes
// away, and reports how many chunks it wrote.
func (u *EchoUpstream) runaway(w http.ResponseWriter, r *http.Request, anth, resp bool) {
	loop := "<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>\n"
	head, tail := OpenAIStream([]string{"Working.\n"}), []byte(nil)
	seq := 0
	switch {
	case anth:
		head = AnthropicStream([]string{"Working.\n"})
		head = head[:bytes.Index(head, []byte("event: content_block_stop"))]
	case resp:
		head = ResponsesStream([]string{"Working.\n"})
		head = head[:bytes.Index(head, []byte("event: response.output_text.done"))]
		seq = bytes.Count(head, []byte("event: "))
	default:
		head = head[:bytes.Index(head, []byte(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{},`))]
	}
	rc := http.NewResponseController(w)
	w.Write(head)
	rc.Flush()
	const max = 20000
	for i := range max {
		switch {
		case anth:
			tail = jsonspan.AppendQuoted([]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`), loop)
			tail = sse.AppendEvent(nil, "content_block_delta", append(tail, "}}"...))
		case resp:
			tail = ResponsesEvents(nil, &seq, "response.output_text.delta", `"item_id":"msg_1","output_index":0,"content_index":0,"delta":`+Quote(loop)+`,"logprobs":[]`)
		default:
			tail = sse.AppendEvent(nil, "", []byte(OpenAIChunk(string(jsonspan.AppendQuoted([]byte(`{"content":`), loop))+"}", "")))
		}
		if _, err := w.Write(tail); err != nil || rc.Flush() != nil || r.Context().Err() != nil {
			u.Events <- fmt.Sprintf("stopped after %d", i)
			return
		}
		u.Written.Add(1)
		time.Sleep(200 * time.Microsecond)
	}
	u.Events <- "never stopped"
}

// messageText is the text of a message's content: a string, or the text
// of an array of blocks.
func messageText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.Text)
	}
	return b.String()
}

// LoopbackClient is an HTTP client over rt (nil: a transport of its own)
// whose idle connections are closed when the test ends.
func LoopbackClient(t *testing.T, rt http.RoundTripper) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	if rt == nil {
		rt = tr
	}
	return &http.Client{Transport: rt}
}

// Post sends body to url as JSON and returns the response body.
func Post(t *testing.T, c *http.Client, url, body string) []byte {
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return b
}
