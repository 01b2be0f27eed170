package fsm

import (
	"bytes"

	"github.com/toolsieve/toolsieve/internal/jsonspan"
)

// JSON objects that name a tool but are not calls: a tool's definition
// (`{"name": .., "description": .., "input_schema": {..}}`, as a tools
// listing or a document quotes it) and the record of a call or its result
// in an API's own format (an Anthropic `{"type": "tool_use", "id": ..,
// "name": .., "input": {..}}` content block, a `tool_result` block), which
// documentation and transcripts show but a model never writes as its
// call. Such an object gives no call: it stays text, with an error.
// A call object keeps to a name and its arguments (`{"name": N,
// "arguments": {..}}`, `{"type": "function", "function": {..}}`); a
// "description" or "input_schema" member at its top, or a "type" naming a
// content block, says it is one of the others.

// A tool's definition written as a call object, its schema in the
// arguments' place (`{"name": N, "parameters": {"type": "object",
// "properties": {..}}}`, as a `<tools>` listing or a prompt quotes it), is
// no call either: arguments that are themselves a JSON schema ("$schema",
// or "properties" with "type" or "required" at their top) are never a
// call's.

// schemaArgs reports whether the arguments a are a JSON schema. Keys are
// compared as written, so without the bytes of one of the keys it looks
// for ("$schema", "properties") anywhere in a, a is none: most arguments
// are told by that look, faster than a walk of their members (a long
// string value costs a stop at each escape).
func schemaArgs(a []byte) bool {
	if !schemaKeyIn(a) {
		return false
	}
	ms, ok := jsonspan.Members(a, 0, nil)
	if !ok {
		return false
	}
	var props, typ, req bool
	for _, mb := range ms {
		switch string(mb.Key) {
		case "$schema":
			return true
		case "properties":
			props = true
		case "type":
			typ = true
		case "required":
			req = true
		}
	}
	return props && (typ || req)
}

// schemaKeyIn reports whether a holds "properties" or "$schema" (quotes
// included) anywhere. It goes from quote to quote (bytes.Index compares
// at every byte once a few quotes came close together).
func schemaKeyIn(a []byte) bool {
	for i := bytes.IndexByte(a, '"'); i >= 0; {
		rest := a[i+1:]
		if bytes.HasPrefix(rest, []byte(`properties"`)) || bytes.HasPrefix(rest, []byte(`$schema"`)) {
			return true
		}
		k := bytes.IndexByte(rest, '"')
		if k < 0 {
			break
		}
		i += 1 + k
	}
	return false
}

// notCall reports whether the JSON object out, whose members are ms, is a
// tool definition or an API's record of a call, not a call.
func notCall(out []byte, ms []jsonspan.Member) bool {
	for _, mb := range ms {
		switch string(mb.Key) {
		case "description", "input_schema", "inputSchema":
			return true
		case "type":
			switch string(out[mb.Start:mb.End]) {
			case `"tool_use"`, `"tool_result"`, `"server_tool_use"`:
				return true
			}
		}
	}
	return false
}
