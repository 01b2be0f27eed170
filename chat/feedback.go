package chat

// Feedback retries: the request of a retry carries the model's failed
// answer and a message that says what was wrong with it, appended to its
// history in the API's shape. The client's own messages are not touched.

import (
	"bytes"

	"github.com/toolsieve/toolsieve/internal/jsonspan"
)

// AnswerText returns the content a model wrote in a response body of api
// (an SSE stream or a whole document), at most max bytes of it (cut at a
// UTF-8 boundary).
func AnswerText(body []byte, api API, max int) []byte {
	var out []byte
	add := func(p []byte) bool {
		out = append(out, p[:min(len(p), max-len(out))]...)
		return len(out) < max
	}
	if isSSE, _ := LooksLikeSSE(body); isSSE {
		c := NewContentReader(bytes.NewReader(body), InputSSE, api)
		for {
			content, _, err := c.Next()
			if len(content) > 0 && !add(content) || err != nil {
				break
			}
		}
	} else if d, ok := ReadDocument(body); ok && len(d.Texts) > 0 {
		add(d.Texts[0].Content)
	}
	return trimUTF8(out)
}

// trimUTF8 drops an incomplete UTF-8 sequence at the end of b.
func trimUTF8(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-4; i-- {
		c := b[i]
		if c < 0x80 {
			return b
		}
		if c >= 0xC0 { // a lead byte: is its sequence whole?
			n := 2
			switch {
			case c >= 0xF0:
				n = 4
			case c >= 0xE0:
				n = 3
			}
			if len(b)-i < n {
				return b[:i]
			}
			return b
		}
	}
	return b
}

// AppendTurns returns a chat request body of api with two turns added at
// the end of its history (messages; a Responses request's input, made a
// list when it was a string): an assistant turn with answer (left out when
// empty) and a user turn with message. ok is false when the body has no
// history to add to.
func AppendTurns(body []byte, api API, answer, message []byte) (out []byte, ok bool) {
	c := api.codec()
	if c == nil || !jsonspan.Valid(body) {
		return body, false
	}
	ms, ok := jsonspan.Members(body, 0, nil)
	if !ok {
		return body, false
	}
	hm, has := jsonspan.Lookup(body, ms, c.historyKey())
	if !has {
		return body, false
	}
	var turns []byte
	turn := func(role string, text []byte) {
		if len(turns) > 0 {
			turns = append(turns, ',')
		}
		turns = append(turns, `{"role":"`+role+`","content":`...)
		turns = jsonspan.AppendQuoted(turns, text)
		turns = append(turns, '}')
	}
	var edit jsonspan.Edit
	switch {
	case body[hm.Start] == '[':
		if len(answer) > 0 {
			turn("assistant", answer)
		}
		turn("user", message)
		if els, _ := jsonspan.Elems(body, hm.Start, nil); len(els) > 0 {
			turns = append([]byte{','}, turns...)
		}
		edit = jsonspan.Edit{Start: hm.End - 1, End: hm.End - 1, Repl: turns}
	case api == APIResponses && jsonspan.IsString(body, hm):
		turn("user", jsonspan.AppendUnquoted(nil, body[hm.Start:hm.End]))
		if len(answer) > 0 {
			turn("assistant", answer)
		}
		turn("user", message)
		edit = jsonspan.Edit{Start: hm.Start, End: hm.End, Repl: append(append([]byte{'['}, turns...), ']')}
	default:
		return body, false
	}
	return jsonspan.Spliced(body, []jsonspan.Edit{edit}), true
}
