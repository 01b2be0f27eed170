package main

import (
	"io"

	"github.com/toolsieve/toolsieve/chat"
)

// sseInput is the source for --input sse and --input auto: the content of a
// streamed chat response (OpenAI or Anthropic, detected from its events),
// with reasoning deltas and malformed frames as events; for auto, input
// that does not start like an event stream is read as text.
func sseInput(kind string, r io.Reader) source {
	in := chat.InputSSE
	if kind == "auto" {
		in = chat.InputAuto
	}
	return chat.NewContentReader(r, in, chat.APIAuto)
}
