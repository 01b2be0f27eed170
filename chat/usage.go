package chat

// Usage: the tokens an answer reported, read as its events pass (OpenAI's
// usage chunk or member, Anthropic's message_start and message_delta, the
// Responses final event), so that a proxy can count what discarded answers
// cost.

import "github.com/toolsieve/toolsieve/internal/jsonspan"

// Usage is the token usage an answer reported.
type Usage struct {
	Input, Output int64
	// Seen is set once the answer reported usage.
	Seen bool
}

// noteUsage reads the "usage" object among the members ms of data:
// prompt_tokens or input_tokens, completion_tokens or output_tokens.
// Non-zero counts replace earlier ones (Anthropic's output count grows).
func (w *streamRewriter) noteUsage(data []byte, ms []jsonspan.Member) {
	um, has := jsonspan.Lookup(data, ms, "usage")
	if !has || data[um.Start] != '{' {
		return
	}
	ums, ok := jsonspan.Members(data, um.Start, nil)
	if !ok {
		return
	}
	w.stats.Usage.Seen = true
	for _, f := range [...]struct {
		dst  *int64
		keys [2]string
	}{{&w.stats.Usage.Input, [2]string{"prompt_tokens", "input_tokens"}}, {&w.stats.Usage.Output, [2]string{"completion_tokens", "output_tokens"}}} {
		for _, k := range f.keys {
			if m, ok := jsonspan.Lookup(data, ums, k); ok {
				if n, ok := jsonspan.Int(data, m); ok && n > 0 {
					*f.dst = int64(n)
				}
			}
		}
	}
}

// noteNestedUsage reads the usage of the object member key of data (an
// Anthropic message_start's message, a Responses final event's response).
func (w *streamRewriter) noteNestedUsage(data []byte, ms []jsonspan.Member, key string) {
	if m, ok := jsonspan.Lookup(data, ms, key); ok && data[m.Start] == '{' {
		if nms, ok := jsonspan.Members(data, m.Start, nil); ok {
			w.noteUsage(data, nms)
		}
	}
}

// DropUsageChunk makes an OpenAI chat stream's usage chunk (a chunk with
// no choices and a usage member) be read and not passed on: for a proxy
// that asked for it (stream_options.include_usage) where the client did
// not. Call it before the first Read.
func (r *Rewriter) DropUsageChunk() { r.w.dropUsage = true }
