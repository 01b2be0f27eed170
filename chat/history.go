package chat

// Clean history: tool markup that a model wrote into an earlier assistant
// message (and that reached the client as text) is rewritten in the request
// before the model sees it again, so that it does not learn from its own
// leaked markup. Only the messages that hold markup change; the rest of the
// body is kept byte for byte (edits are spliced into the original JSON).

import (
	"bytes"
	"encoding/json"

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
// (OpenAI chat completions or Anthropic Messages) whose content still
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
	if api == APIAuto || !bytes.Contains(body, []byte(`"assistant"`)) || !json.Valid(body) {
		return body, res
	}
	ms, ok := jsonspan.Members(body, 0, nil)
	if !ok {
		return body, res
	}
	mm, has := jsonspan.Lookup(body, ms, "messages")
	if !has {
		return body, res
	}
	els, ok := jsonspan.Elems(body, mm.Start, nil)
	if !ok {
		return body, res
	}
	h := &historyCleaner{body: body, els: els, opt: opt, res: &res}
	for k := range els {
		if api == APIOpenAI {
			h.openAI(k)
		} else {
			h.anthropic(k)
		}
	}
	if len(h.edits) == 0 {
		return body, res
	}
	jsonspan.SortEdits(h.edits)
	return jsonspan.Splice(make([]byte, 0, len(body)+256), body, h.edits), res
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

func (h *historyCleaner) openAI(k int) {
	b := h.body
	ms, cm, ok := h.assistantContent(k)
	if !ok {
		return
	}
	// The texts: the content string, or its text parts.
	var parts []jsonspan.Span
	var texts []cleaned
	changed := false
	switch {
	case jsonspan.IsString(b, cm):
		c := h.clean(h.str(cm))
		changed = c.markup
		texts = append(texts, c)
	case b[cm.Start] == '[':
		parts, _ = jsonspan.Elems(b, cm.Start, nil)
		for _, pt := range parts {
			var c cleaned
			pms, ok := jsonspan.Members(b, pt.Start, nil)
			tm, _ := jsonspan.Lookup(b, pms, "type")
			if xm, has := jsonspan.Lookup(b, pms, "text"); ok && has && string(jsonspan.StringBody(b, tm)) == "text" && jsonspan.IsString(b, xm) {
				c = h.clean(h.str(xm))
				changed = changed || c.markup
			}
			texts = append(texts, c)
		}
	}
	if !changed {
		return
	}
	h.res.Messages++
	// The message's own native calls, and the tool results that follow.
	own := map[string]bool{}
	tm, hasTools := jsonspan.Lookup(b, ms, "tool_calls")
	var tels []jsonspan.Span
	if hasTools {
		tels, _ = jsonspan.Elems(b, tm.Start, nil)
		for _, te := range tels {
			tms, _ := jsonspan.Members(b, te.Start, nil)
			if im, has := jsonspan.Lookup(b, tms, "id"); has {
				own[string(h.str(im))] = true
			}
		}
	}
	var orphans []string
	for j := k + 1; ; j++ {
		rms, r := h.message(j)
		if r != "tool" {
			break
		}
		if im, has := jsonspan.Lookup(b, rms, "tool_call_id"); has && !own[string(h.str(im))] {
			orphans = append(orphans, string(h.str(im)))
		}
	}
	var calls []toolsieve.Event
	for _, c := range texts {
		calls = append(calls, c.calls...)
	}
	out := h.pair(calls, orphans)
	native := len(out)+len(tels) > 0

	// The content.
	var content []byte
	if parts == nil {
		if native && isBlank(texts[0].text) {
			content = []byte("null")
		} else {
			content = jsonspan.AppendQuoted(nil, texts[0].text)
		}
	} else {
		content = append(content, '[')
		n := 0
		for i, pt := range parts {
			c := texts[i]
			if c.markup && isBlank(c.text) {
				continue
			}
			if n > 0 {
				content = append(content, ',')
			}
			n++
			if !c.markup {
				content = append(content, b[pt.Start:pt.End]...)
				continue
			}
			pms, _ := jsonspan.Members(b, pt.Start, nil)
			xm, _ := jsonspan.Lookup(b, pms, "text")
			content = jsonspan.Splice(content, b[pt.Start:pt.End], []jsonspan.Edit{{Start: xm.Start - pt.Start, End: xm.End - pt.Start, Repl: jsonspan.AppendQuoted(nil, c.text)}})
		}
		content = append(content, ']')
		if n == 0 {
			content = []byte(`""`)
			if native {
				content = []byte("null")
			}
		}
	}
	h.edits = append(h.edits, jsonspan.Edit{Start: cm.Start, End: cm.End, Repl: content})

	// The calls.
	if len(out) == 0 {
		return
	}
	var arr []byte
	for i, c := range out {
		if i > 0 || len(tels) > 0 {
			arr = append(arr, ',')
		}
		arr = appendOpenAICall(arr, -1, c)
	}
	switch {
	case len(tels) > 0:
		end := tels[len(tels)-1].End
		h.edits = append(h.edits, jsonspan.Edit{Start: end, End: end, Repl: arr})
	case hasTools:
		h.edits = append(h.edits, jsonspan.Edit{Start: tm.Start, End: tm.End, Repl: append(append([]byte("["), arr...), ']')})
	default:
		h.edits = append(h.edits, jsonspan.InsertMember(ms, h.els[k].End, "tool_calls", append(append([]byte("["), arr...), ']')))
	}
}

// ---- Anthropic Messages ----

func (h *historyCleaner) anthropic(k int) {
	b := h.body
	_, cm, ok := h.assistantContent(k)
	if !ok {
		return
	}
	var blocks []jsonspan.Span
	var texts []cleaned
	changed := false
	own := map[string]bool{}
	switch {
	case jsonspan.IsString(b, cm):
		c := h.clean(h.str(cm))
		changed = c.markup
		texts = append(texts, c)
	case b[cm.Start] == '[':
		blocks, _ = jsonspan.Elems(b, cm.Start, nil)
		for _, bl := range blocks {
			var c cleaned
			bms, _ := jsonspan.Members(b, bl.Start, nil)
			tm, _ := jsonspan.Lookup(b, bms, "type")
			switch string(jsonspan.StringBody(b, tm)) {
			case "text":
				if xm, has := jsonspan.Lookup(b, bms, "text"); has && jsonspan.IsString(b, xm) {
					c = h.clean(h.str(xm))
					changed = changed || c.markup
				}
			case "tool_use":
				if im, has := jsonspan.Lookup(b, bms, "id"); has {
					own[string(h.str(im))] = true
				}
			}
			texts = append(texts, c)
		}
	}
	if !changed {
		return
	}
	h.res.Messages++
	// The tool results of the next user message.
	var orphans []string
	if rms, r := h.message(k + 1); r == "user" {
		if rc, has := jsonspan.Lookup(b, rms, "content"); has && b[rc.Start] == '[' {
			rels, _ := jsonspan.Elems(b, rc.Start, nil)
			for _, re := range rels {
				bms, _ := jsonspan.Members(b, re.Start, nil)
				tm, _ := jsonspan.Lookup(b, bms, "type")
				im, has := jsonspan.Lookup(b, bms, "tool_use_id")
				if string(jsonspan.StringBody(b, tm)) == "tool_result" && has && !own[string(h.str(im))] {
					orphans = append(orphans, string(h.str(im)))
				}
			}
		}
	}
	var calls []toolsieve.Event
	for _, c := range texts {
		calls = append(calls, c.calls...)
	}
	out := h.pair(calls, orphans)

	// The new content: each text block cleaned, followed by the calls
	// recovered from it that got a result.
	var content []byte
	n := 0
	add := func(piece []byte) {
		if n > 0 {
			content = append(content, ',')
		}
		n++
		content = append(content, piece...)
	}
	seen := 0 // calls met so far; out holds the first len(out) of them
	useCalls := func(c cleaned) {
		for range c.calls {
			if seen < len(out) {
				add(appendToolUse(nil, out[seen], true))
			}
			seen++
		}
	}
	content = append(content, '[')
	if blocks == nil {
		c := texts[0]
		if !isBlank(c.text) {
			add(jsonspan.AppendQuoted([]byte(`{"type":"text","text":`), c.text))
			content = append(content, '}')
		}
		useCalls(c)
	} else {
		for i, bl := range blocks {
			c := texts[i]
			switch {
			case !c.markup:
				add(b[bl.Start:bl.End])
			case !isBlank(c.text):
				bms, _ := jsonspan.Members(b, bl.Start, nil)
				xm, _ := jsonspan.Lookup(b, bms, "text")
				add(jsonspan.Splice(nil, b[bl.Start:bl.End], []jsonspan.Edit{{Start: xm.Start - bl.Start, End: xm.End - bl.Start, Repl: jsonspan.AppendQuoted(nil, c.text)}}))
			}
			useCalls(c)
		}
	}
	content = append(content, ']')
	if n == 0 {
		// Nothing left: the message goes (consecutive user turns are
		// merged by the API).
		h.edits = append(h.edits, dropElem(h.els, k))
		return
	}
	h.edits = append(h.edits, jsonspan.Edit{Start: cm.Start, End: cm.End, Repl: content})
}
