package toolsieve

import (
	"bytes"

	"github.com/toolsieve/toolsieve/fsm/jsonscan"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
)

// CloseJSON returns the bytes that, appended to prefix, make it a whole
// JSON value: a string's closing quote, the brackets left open (what a
// client needs to end arguments it streamed in part). ok is false when
// prefix is no start of a JSON value, or when appending alone cannot end it
// (a number cut after its point, a literal cut short).
func CloseJSON(prefix []byte) (closing []byte, ok bool) {
	out, _, _, ok := jsonscan.Repair(prefix) // a valid prefix is copied as it is, then closed
	if !ok || !bytes.HasPrefix(out, prefix) {
		return nil, false
	}
	return out[len(prefix):], true
}

// ArgumentsFromMarkup recovers the arguments of a native tool call whose
// `arguments` string holds markup instead of JSON, as some models write
// (`<tool_call><function=ls><parameter=dirPath>src</parameter>...`).
// name is the native call's tool name; it is used when the markup holds only
// parameter elements. args that are already a JSON object come back as they
// are. ok is false when args hold neither JSON nor a recognisable call.
func ArgumentsFromMarkup(name string, args []byte, opt Options) (obj []byte, repairs []string, ok bool) {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) > 0 && trimmed[0] == '{' && jsonspan.Valid(trimmed) {
		return trimmed, nil, true
	}
	if bytes.IndexByte(trimmed, '<') < 0 && bytes.IndexByte(trimmed, '[') < 0 {
		return nil, nil, false
	}
	opt.MarkupInCode = true
	if e, found := firstCall(trimmed, opt); found {
		return e.Arguments, e.Repairs, true
	}
	// Only parameters: give them the call element of their dialect.
	for _, wrap := range [][2]string{
		{"<function=" + name + ">\n", "\n</function>"},
		{`<invoke name="` + name + `">`, "</invoke>"},
	} {
		in := append(append([]byte(wrap[0]), trimmed...), wrap[1]...)
		if e, found := firstCall(in, opt); found && len(e.Arguments) > 2 {
			return e.Arguments, append(e.Repairs, "missing_opener"), true
		}
	}
	return nil, nil, false
}

func firstCall(in []byte, opt Options) (Event, bool) {
	for _, e := range Parse(in, opt) {
		if e.Type == ToolCall {
			return e, true
		}
	}
	return Event{}, false
}
