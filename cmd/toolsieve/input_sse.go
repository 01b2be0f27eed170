package main

import (
	"io"

	"github.com/toolsieve/toolsieve"
)

// sseInput is the source for --input sse and --input auto: the content of a
// streamed chat response (OpenAI or Anthropic, detected from its events),
// with reasoning deltas and malformed frames as events; for auto, input
// that does not start like an event stream is read as text.
func sseInput(kind string, r io.Reader) source {
	in := toolsieve.InputSSE
	if kind == "auto" {
		in = toolsieve.InputAuto
	}
	return toolsieve.NewContentReader(r, in, toolsieve.APIAuto)
}
