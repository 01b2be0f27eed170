package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/sse"
)

// runRewriteDemo sends a bundled OpenAI stream, in which the model wrote a
// DSML call into its content, through the rewriter, and shows the SSE events
// in and out side by side: text deltas pass, the markup becomes a native
// tool_calls delta, the finish reason becomes tool_calls.
func runRewriteDemo(w *bufio.Writer) error {
	in, err := sampleBytes("policy/stream_openai_dsml.sse")
	if err != nil {
		return err
	}
	r := chat.NewRewriter(io.NopCloser(bytes.NewReader(in)), chat.APIOpenAI, toolsieve.Options{IDPrefix: "demo_"})
	out, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	show := func(label string, stream []byte) error {
		var d sse.Decoder
		evs, err := d.Feed(stream)
		if err != nil {
			return err
		}
		tail, _ := d.Close()
		fmt.Fprintf(w, "  %s (%d bytes of SSE), choice 0 of each chunk:\n", label, len(stream))
		for _, e := range append(evs, tail...) {
			var chunk struct {
				Choices []struct {
					Delta        json.RawMessage `json:"delta"`
					FinishReason *string         `json:"finish_reason"`
				} `json:"choices"`
			}
			if !e.HasData || json.Unmarshal(e.Data, &chunk) != nil || len(chunk.Choices) == 0 {
				continue
			}
			c := chunk.Choices[0]
			line := "delta " + abbrevLine(c.Delta, 140)
			if c.FinishReason != nil {
				line += "  finish_reason " + *c.FinishReason
			}
			fmt.Fprintf(w, "    %s\n", line)
		}
		return nil
	}
	if err := show("upstream stream", in); err != nil {
		return err
	}
	return show("rewritten stream", out)
}

// abbrevLine cuts b to about n bytes on a rune boundary.
func abbrevLine(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	head, tail := cutRunes(b, n-30, 25)
	return string(head) + " … " + string(tail)
}
