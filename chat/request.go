package chat

import (
	"strconv"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
)

// Request is what the rewriting of a response needs from its request body.
type Request struct {
	Model     string
	MaxTokens int64            // max_completion_tokens, max_tokens or max_output_tokens; 0 when absent
	Tools     *toolsieve.Tools // the declared tools, or nil
	// ToolChoice is what the request's tool_choice asks for.
	ToolChoice ToolChoice
	// NoParallel is set by parallel_tool_calls false (OpenAI chat and
	// Responses) or tool_choice.disable_parallel_tool_use true
	// (Anthropic): at most one call per answer.
	NoParallel bool
}

// ReadRequest reads a chat request body of any of the APIs. Fields it cannot
// read are left zero.
func ReadRequest(body []byte) Request {
	var r Request
	ms, _ := jsonspan.Members(body, 0, nil)
	if m, ok := jsonspan.Lookup(body, ms, "model"); ok && jsonspan.IsString(body, m) {
		r.Model = string(jsonspan.AppendUnquoted(nil, body[m.Start:m.End]))
	}
	for _, k := range [...]string{"max_completion_tokens", "max_tokens", "max_output_tokens"} {
		if m, ok := jsonspan.Lookup(body, ms, k); ok {
			if n, err := strconv.ParseInt(string(body[m.Start:m.End]), 10, 64); err == nil && n > 0 {
				r.MaxTokens = n
				break
			}
		}
	}
	if tools, err := toolsieve.ParseTools(body); err == nil && tools.Len() > 0 {
		r.Tools = tools
	}
	r.ToolChoice, r.NoParallel = readToolChoice(body, ms)
	return r
}
