package chat

// Whole documents for reading: the content a model wrote, taken out of a
// non-streamed chat response or out of the assistant messages of a chat
// request (a transcript), for a caller that parses it rather than rewrites
// it. The per-API part (where a response keeps its text) is each codec's
// responseText; a request's messages have the same shape in both APIs.

import (
	"github.com/toolsieve/toolsieve/internal/jsonspan"
)

// A Document is what a whole chat body holds for the parser.
type Document struct {
	// API is the API of a response; APIAuto for a request, whose
	// messages have the same shape in both APIs.
	API API
	// Request is set for a request body: Texts are its assistant
	// messages, in order.
	Request bool
	// Model is the body's "model", or "".
	Model string
	// Texts are the texts to parse, each with a parser of its own. A
	// response has one (OpenAI: choice 0's message; Anthropic: its text
	// blocks joined, as a stream of the same answer is read); a request
	// has one per assistant message with text.
	Texts []DocText
}

// DocText is one text of a Document.
type DocText struct {
	// Message is the index of the message in a request's "messages"; -1
	// for a response.
	Message int
	// Reasoning is what the model wrote on a separate reasoning channel
	// (reasoning_content, thinking blocks), empty when there is none.
	Reasoning []byte
	// Content is the text the model wrote, markup included.
	Content []byte
}

// ReadDocument reads a whole chat response of either API (OpenAI chat
// completion: choice 0's message; Anthropic message: its text and thinking
// blocks) or a chat request (the assistant messages of "messages": string
// content, or its text parts and thinking blocks). Native tool calls are
// not content and are skipped. ok is false when doc is not valid JSON or
// not one of these.
func ReadDocument(doc []byte) (d Document, ok bool) {
	if !jsonspan.Valid(doc) {
		return d, false
	}
	ms, ok := jsonspan.Members(doc, 0, nil)
	if !ok {
		return d, false
	}
	if m, has := jsonspan.Lookup(doc, ms, "model"); has && jsonspan.IsString(doc, m) {
		d.Model = string(jsonspan.AppendUnquoted(nil, doc[m.Start:m.End]))
	}
	if mm, has := jsonspan.Lookup(doc, ms, "messages"); has {
		d.Request = true
		els, ok := jsonspan.Elems(doc, mm.Start, nil)
		for k, el := range els {
			mms, _ := jsonspan.Members(doc, el.Start, nil)
			rm, _ := jsonspan.Lookup(doc, mms, "role")
			if string(jsonspan.StringBody(doc, rm)) != "assistant" {
				continue
			}
			t := DocText{Message: k}
			readMessage(&t, doc, mms)
			if len(t.Content) > 0 || len(t.Reasoning) > 0 {
				d.Texts = append(d.Texts, t)
			}
		}
		return d, ok
	}
	for api, c := range codecs {
		if c == nil {
			continue
		}
		t := DocText{Message: -1}
		if c.responseText(&t, doc, ms) {
			d.API = API(api)
			d.Texts = []DocText{t}
			return d, true
		}
	}
	return d, false
}

// readMessage reads a message object (a request's message, or an OpenAI
// choice's message) into t: its reasoning field, and its content, a string
// or an array of parts of which "text" parts are content and "thinking"
// blocks reasoning.
func readMessage(t *DocText, doc []byte, ms []jsonspan.Member) {
	for _, key := range [...]string{"reasoning_content", "reasoning"} {
		if m, has := jsonspan.Lookup(doc, ms, key); has && jsonspan.IsString(doc, m) {
			t.Reasoning = jsonspan.AppendUnquoted(t.Reasoning, doc[m.Start:m.End])
		}
	}
	cm, has := jsonspan.Lookup(doc, ms, "content")
	switch {
	case !has:
	case jsonspan.IsString(doc, cm):
		t.Content = jsonspan.AppendUnquoted(t.Content, doc[cm.Start:cm.End])
	case doc[cm.Start] == '[':
		readBlocks(t, doc, cm.Start)
	}
}

// readBlocks reads the content parts (blocks) of the array at i into t.
func readBlocks(t *DocText, doc []byte, i int) {
	els, _ := jsonspan.Elems(doc, i, nil)
	for _, el := range els {
		bms, ok := jsonspan.Members(doc, el.Start, nil)
		if !ok {
			continue
		}
		tm, _ := jsonspan.Lookup(doc, bms, "type")
		switch string(jsonspan.StringBody(doc, tm)) {
		case "text":
			if m, has := jsonspan.Lookup(doc, bms, "text"); has && jsonspan.IsString(doc, m) {
				t.Content = jsonspan.AppendUnquoted(t.Content, doc[m.Start:m.End])
			}
		case "thinking":
			if m, has := jsonspan.Lookup(doc, bms, "thinking"); has && jsonspan.IsString(doc, m) {
				t.Reasoning = jsonspan.AppendUnquoted(t.Reasoning, doc[m.Start:m.End])
			}
		}
	}
}
