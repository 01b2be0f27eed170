package chat

// Clean history: tool markup that a model wrote into an earlier assistant
// message (and that reached the client as text) is rewritten in the request
// before the model sees it again, so that it does not learn from its own
// leaked markup. Only the messages that hold markup change; the rest of the
// body is kept byte for byte (edits are spliced into the original JSON).

import (
	"bytes"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
)

// HistoryResult counts what history cleaning did to one request.
type HistoryResult struct {
	Messages int // assistant messages rewritten
	Calls    int // recovered calls that became native calls
	// Dropped counts recovered calls that no tool result answers: they
	// are removed with their markup (a native call without its result
	// would be refused by the API).
	Dropped int
}

// CleanHistory rewrites the assistant messages of a chat request body
// (OpenAI chat completions, Anthropic Messages or the Responses API's input
// items; see responses.go) whose content still
// carries tool markup: recovered calls become native tool_calls (Anthropic
// tool_use blocks) with the ids of the tool results that follow the
// message, matched in order (OpenAI: the role "tool" messages right after
// it; Anthropic: the tool_result blocks of the next user message), ids
// already used by the message's own native calls excepted. Calls that no
// result answers are dropped, and leftover markup is removed. opt
// configures the parser (declare the request's tools in opt.Tools). A body
// without such messages, or that is not a JSON object, comes back
// unchanged (the same slice).
func CleanHistory(body []byte, api API, opt toolsieve.Options) ([]byte, HistoryResult) {
	var res HistoryResult
	c := api.codec()
	if c == nil || !bytes.Contains(body, []byte(`"assistant"`)) || !jsonspan.Valid(body) {
		return body, res
	}
	ms, ok := jsonspan.Members(body, 0, nil)
	if !ok {
		return body, res
	}
	mm, has := jsonspan.Lookup(body, ms, c.historyKey())
	if !has {
		return body, res
	}
	els, ok := jsonspan.Elems(body, mm.Start, nil)
	if !ok {
		return body, res
	}
	h := &historyCleaner{body: body, els: els, opt: opt, res: &res}
	for k := range els {
		c.cleanMessage(h, k)
	}
	if len(h.edits) == 0 {
		return body, res
	}
	jsonspan.SortEdits(h.edits)
	return jsonspan.Spliced(body, h.edits), res
}

type historyCleaner struct {
	body  []byte
	els   []jsonspan.Span // the messages
	opt   toolsieve.Options
	res   *HistoryResult
	edits []jsonspan.Edit
}

// message returns message k's members and its role.
func (h *historyCleaner) message(k int) ([]jsonspan.Member, string) {
	if k >= len(h.els) {
		return nil, ""
	}
	ms, ok := jsonspan.Members(h.body, h.els[k].Start, nil)
	if !ok {
		return nil, ""
	}
	rm, _ := jsonspan.Lookup(h.body, ms, "role")
	return ms, string(jsonspan.StringBody(h.body, rm))
}

// str decodes a string member (nil if it is not one).
func (h *historyCleaner) str(m jsonspan.Member) []byte {
	if !jsonspan.IsString(h.body, m) {
		return nil
	}
	return jsonspan.AppendUnquoted(nil, h.body[m.Start:m.End])
}

// cleaned is a text after parsing: the text without markup and the calls.
type cleaned struct {
	text   []byte
	calls  []toolsieve.Event
	markup bool // markup was found: the text changed
}

// clean parses one text of a message.
func (h *historyCleaner) clean(text []byte) cleaned {
	var c cleaned
	p := toolsieve.NewParser(h.opt)
	for _, evs := range [2][]toolsieve.Event{p.Feed(text), nil} {
		if evs == nil {
			evs = p.Close()
		}
		for i := range evs {
			switch e := &evs[i]; e.Type {
			case toolsieve.Text:
				c.text = append(c.text, e.Text...)
			case toolsieve.Reasoning: // reasoning markup (<think>) is not tool markup: kept
				c.text = append(c.text, e.Raw...)
			case toolsieve.ToolCall:
				c.calls = append(c.calls, e.Clone())
				c.markup = true
			case toolsieve.Discard, toolsieve.Runaway:
				c.markup = true
			}
		}
	}
	if c.markup {
		c.text = bytes.TrimRight(c.text, " \t\r\n")
	}
	return c
}

// pair gives calls the orphan result ids in order; it returns the calls
// that got one and counts the rest as dropped.
func (h *historyCleaner) pair(calls []toolsieve.Event, orphans []string) []callOut {
	var out []callOut
	for i := range calls {
		if i >= len(orphans) {
			h.res.Dropped++
			continue
		}
		out = append(out, callOut{id: orphans[i], name: calls[i].Name, args: callArgs(&calls[i])})
	}
	h.res.Calls += len(out)
	return out
}

// dropElem returns the edit that removes element k of els with its comma.
func dropElem(els []jsonspan.Span, k int) jsonspan.Edit {
	switch {
	case k+1 < len(els):
		return jsonspan.Edit{Start: els[k].Start, End: els[k+1].Start, Repl: nil}
	case k > 0:
		return jsonspan.Edit{Start: els[k-1].End, End: els[k].End, Repl: nil}
	}
	return jsonspan.Edit{Start: els[k].Start, End: els[k].End, Repl: nil}
}

// ---- OpenAI chat completions ----

// assistantContent returns message k and its content member when it is an
// assistant message with content.
func (h *historyCleaner) assistantContent(k int) (ms []jsonspan.Member, cm jsonspan.Member, ok bool) {
	ms, role := h.message(k)
	if role != "assistant" {
		return ms, cm, false
	}
	cm, ok = jsonspan.Lookup(h.body, ms, "content")
	return ms, cm, ok
}

// ---- Anthropic Messages ----
