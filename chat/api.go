package chat

// Provider APIs: which API a request or a response speaks, and the API
// switch. Everything the package knows of one API (its streams, whole
// responses, content reading and history) is in that API's file (openai.go,
// anthropic.go, responses.go), behind apiCodec; adding an API is one such file and an
// entry in codecs (and in the names and detection below). The parts they
// share: the rewriter (rewrite.go), text feeding (textfeed.go), documents
// (document.go), content reading (content.go), history (history.go) and
// the JSON span scanner (internal/jsonspan).
//
// The JSON is never decoded into structs and re-encoded: the rewriter finds
// the byte spans of the fields it needs (content, finish_reason, index, ...)
// and splices new values into the original bytes, so that unknown fields,
// key order and number formats reach the client exactly as the provider sent
// them. A document is checked with json.Valid first; after that the span
// scanner can assume well-formed JSON.

import (
	"bytes"
	"strings"

	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/sse"
)

// API is the wire dialect of a chat endpoint.
type API uint8

// The APIs the rewriter understands.
const (
	// APIAuto detects the API from the first event or document.
	APIAuto API = iota
	// APIOpenAI is OpenAI chat completions (POST .../chat/completions).
	APIOpenAI
	// APIAnthropic is Anthropic Messages (POST .../messages).
	APIAnthropic
	// APIResponses is the OpenAI Responses API (POST .../responses).
	APIResponses
)

func (a API) String() string {
	switch a {
	case APIOpenAI:
		return "openai"
	case APIAnthropic:
		return "anthropic"
	case APIResponses:
		return "responses"
	}
	return "auto"
}

// ParseAPI maps "openai", "anthropic", "responses" and "auto" (or "") to an
// API.
func ParseAPI(s string) (API, bool) {
	switch strings.ToLower(s) {
	case "", "auto":
		return APIAuto, true
	case "openai":
		return APIOpenAI, true
	case "anthropic":
		return APIAnthropic, true
	case "responses":
		return APIResponses, true
	}
	return APIAuto, false
}

// APIForPath tells which chat API a request path belongs to: paths ending in
// /chat/completions are OpenAI, paths ending in /messages are Anthropic,
// paths ending in /responses are the Responses API (creating a response; a
// stored one, .../responses/{id}, is not). Everything else (models,
// embeddings, count_tokens, batches) is not a chat response to rewrite: ok
// is false.
func APIForPath(path string) (api API, ok bool) {
	path = strings.TrimRight(path, "/")
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return APIOpenAI, true
	case strings.HasSuffix(path, "/messages"):
		return APIAnthropic, true
	case strings.HasSuffix(path, "/responses"):
		return APIResponses, true
	}
	return APIAuto, false
}

// apiCodec is what the package knows of one API.
type apiCodec interface {
	// newStream returns the rewriter of one of the API's event streams.
	newStream(w *streamRewriter) apiStream
	// rewriteDoc appends the rewritten form of a whole response to dst;
	// ok is false when doc is not a response of the API.
	rewriteDoc(w *streamRewriter, dst, doc []byte) (out []byte, ok bool)
	// content takes the content and side events out of one stream event
	// whose top-level members are ms.
	content(c *ContentReader, data []byte, ms []jsonspan.Member)
	// responseText reads the text of a whole response whose top-level
	// members are ms into t; false when doc is not a response of the API.
	responseText(t *DocText, doc []byte, ms []jsonspan.Member) bool
	// historyKey is the request member that holds the history.
	historyKey() string
	// cleanMessage cleans message k of a request's history.
	cleanMessage(h *historyCleaner, k int)
}

// apiStream rewrites the events of one stream.
type apiStream interface {
	event(ev *sse.Event)
	// finish ends the stream: at its end, or after a runaway.
	finish(runaway bool)
	// ended reports that the stream's finish marker (or an error event of
	// the upstream) came: the answer is whole.
	ended() bool
	// footprint returns the bytes the stream holds in its buffers, and
	// gives back the scratch a large event grew (shrink).
	footprint() int
	shrink()
}

// codecs is the API switch.
var codecs = [...]apiCodec{APIOpenAI: openAI{}, APIAnthropic: anthropic{}, APIResponses: responses{}}

// codec returns the API's codec, nil for APIAuto.
func (a API) codec() apiCodec {
	if int(a) < len(codecs) {
		return codecs[a]
	}
	return nil
}

// detectEventAPI guesses the API of a stream from one of its events: the
// Anthropic or Responses event names, or a JSON body with "choices"
// (OpenAI), a "type" of one of the Messages stream events (Anthropic) or of
// the Responses stream events (response.*), or "object":"response" (a whole
// Responses document).
func detectEventAPI(typ string, data []byte) API {
	if strings.HasPrefix(typ, "response.") {
		return APIResponses
	}
	switch typ {
	case "message_start", "content_block_start", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop":
		return APIAnthropic
	}
	if !jsonspan.Valid(data) {
		return APIAuto
	}
	ms, ok := jsonspan.Members(data, 0, nil)
	if !ok {
		return APIAuto
	}
	if _, ok := jsonspan.Lookup(data, ms, "choices"); ok {
		return APIOpenAI
	}
	if m, ok := jsonspan.Lookup(data, ms, "type"); ok {
		switch string(jsonspan.StringBody(data, m)) {
		case "message_start", "content_block_start", "content_block_delta", "content_block_stop",
			"message_delta", "message_stop", "message":
			return APIAnthropic
		}
		if bytes.HasPrefix(jsonspan.StringBody(data, m), []byte("response.")) {
			return APIResponses
		}
	}
	if m, ok := jsonspan.Lookup(data, ms, "object"); ok && string(jsonspan.StringBody(data, m)) == "response" {
		return APIResponses
	}
	return APIAuto
}
