package chat

// The recovered calls encoded for each API.

import (
	"strconv"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
)

// callOut is one recovered call as the rewriter sends it.
type callOut struct {
	id, name string
	args     []byte // a JSON object
}

// appendOpenAICall appends an OpenAI tool call object; with index >= 0 it
// is a stream delta entry (with "index"), otherwise a message entry.
func appendOpenAICall(dst []byte, index int, c callOut) []byte {
	dst = append(dst, '{')
	if index >= 0 {
		dst = append(dst, `"index":`...)
		dst = strconv.AppendInt(dst, int64(index), 10)
		dst = append(dst, ',')
	}
	dst = append(dst, `"id":`...)
	dst = jsonspan.AppendQuoted(dst, c.id)
	dst = append(dst, `,"type":"function","function":{"name":`...)
	dst = jsonspan.AppendQuoted(dst, c.name)
	dst = append(dst, `,"arguments":`...)
	dst = jsonspan.AppendQuoted(dst, c.args)
	return append(dst, "}}"...)
}

// appendToolUse appends an Anthropic tool_use content block; with input
// false the input is {} (the start event of a streamed block).
func appendToolUse(dst []byte, c callOut, input bool) []byte {
	dst = append(dst, `{"type":"tool_use","id":`...)
	dst = jsonspan.AppendQuoted(dst, anthropicID(c.id))
	dst = append(dst, `,"name":`...)
	dst = jsonspan.AppendQuoted(dst, c.name)
	dst = append(dst, `,"input":`...)
	if input {
		dst = append(dst, c.args...)
	} else {
		dst = append(dst, "{}"...)
	}
	return append(dst, '}')
}

// appendResponsesCall appends a Responses API function_call item (id a
// JSON string body); without args its arguments are "" (the item as its
// stream starts).
func appendResponsesCall(dst, id []byte, c callOut, status string, args bool) []byte {
	dst = append(append(append(dst, `{"id":"`...), id...), `","type":"function_call","status":"`...)
	dst = append(append(dst, status...), `","arguments":`...)
	if args {
		dst = jsonspan.AppendQuoted(dst, c.args)
	} else {
		dst = append(dst, `""`...)
	}
	dst = jsonspan.AppendQuoted(append(dst, `,"call_id":`...), c.id)
	dst = jsonspan.AppendQuoted(append(dst, `,"name":`...), c.name)
	return append(dst, '}')
}

// anthropicID makes a call id fit Anthropic's id pattern ^[a-zA-Z0-9_-]+$
// (ids such as kimi's "functions.get_weather:0" do not).
func anthropicID(id string) string {
	ok := id != ""
	for i := 0; i < len(id) && ok; i++ {
		c := id[i]
		ok = c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	if ok {
		return id
	}
	b := []byte(id)
	for i, c := range b {
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "toolu_0"
	}
	return string(b)
}

// callArgs returns a call event's arguments, {} when empty.
func callArgs(e *toolsieve.Event) []byte {
	if len(e.Arguments) == 0 {
		return []byte("{}")
	}
	return e.Arguments
}

// keepsFinish reports finish reasons that stay as they are when calls were
// recovered: they say something the client must know (the output was cut,
// filtered or refused). Any other reason (stop, end_turn, stop_sequence,
// provider-specific ones) becomes tool_calls / tool_use.
func keepsFinish(reason []byte) bool {
	switch string(reason) {
	case "length", "content_filter", "tool_calls", "function_call",
		"max_tokens", "tool_use", "refusal", "pause_turn", "model_context_window_exceeded":
		return true
	}
	return false
}

// isBlank reports text that is only whitespace.
func isBlank(b []byte) bool {
	for _, c := range b {
		if !jsonspan.IsSpace(c) {
			return false
		}
	}
	return true
}
