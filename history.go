package toolsieve

// Clean history: tool markup that a model wrote into an earlier assistant
// message (and that reached the client as text) is rewritten in the request
// before the model sees it again, so that it does not learn from its own
// leaked markup. Only the messages that hold markup change; the rest of the
// body is kept byte for byte (edits are spliced into the original JSON).

import (
	"bytes"
	"encoding/json"
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
func CleanHistory(body []byte, api API, opt Options) ([]byte, HistoryResult) {
	var res HistoryResult
	if api == APIAuto || !bytes.Contains(body, []byte(`"assistant"`)) || !json.Valid(body) {
		return body, res
	}
	ms, ok := objectMembers(body, 0, nil)
	if !ok {
		return body, res
	}
	mm, has := lookup(body, ms, "messages")
	if !has {
		return body, res
	}
	els, ok := arrayElems(body, mm.vs, nil)
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
	sortEdits(h.edits)
	return splice(make([]byte, 0, len(body)+256), body, h.edits), res
}

type historyCleaner struct {
	body  []byte
	els   []span // the messages
	opt   Options
	res   *HistoryResult
	edits []edit
}

// message returns message k's members and its role.
func (h *historyCleaner) message(k int) ([]member, string) {
	if k >= len(h.els) {
		return nil, ""
	}
	ms, ok := objectMembers(h.body, h.els[k].s, nil)
	if !ok {
		return nil, ""
	}
	rm, _ := lookup(h.body, ms, "role")
	return ms, string(stringValue(h.body, rm))
}

// str decodes a string member (nil if it is not one).
func (h *historyCleaner) str(m member) []byte {
	if !isString(h.body, m) {
		return nil
	}
	return appendUnquoted(nil, h.body[m.vs:m.ve])
}

// cleaned is a text after parsing: the text without markup and the calls.
type cleaned struct {
	text   []byte
	calls  []Event
	markup bool // markup was found: the text changed
}

// clean parses one text of a message.
func (h *historyCleaner) clean(text []byte) cleaned {
	var c cleaned
	p := NewParser(h.opt)
	for _, evs := range [2][]Event{p.Feed(text), nil} {
		if evs == nil {
			evs = p.Close()
		}
		for i := range evs {
			switch e := &evs[i]; e.Type {
			case Text:
				c.text = append(c.text, e.Text...)
			case Reasoning: // reasoning markup (<think>) is not tool markup: kept
				c.text = append(c.text, e.Raw...)
			case ToolCall:
				c.calls = append(c.calls, e.Clone())
				c.markup = true
			case Discard, Runaway:
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
func (h *historyCleaner) pair(calls []Event, orphans []string) []callOut {
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
func dropElem(els []span, k int) edit {
	switch {
	case k+1 < len(els):
		return edit{els[k].s, els[k+1].s, nil}
	case k > 0:
		return edit{els[k-1].e, els[k].e, nil}
	}
	return edit{els[k].s, els[k].e, nil}
}

// ---- OpenAI chat completions ----

// assistantContent returns message k and its content member when it is an
// assistant message with content.
func (h *historyCleaner) assistantContent(k int) (ms []member, cm member, ok bool) {
	ms, role := h.message(k)
	if role != "assistant" {
		return ms, cm, false
	}
	cm, ok = lookup(h.body, ms, "content")
	return ms, cm, ok
}

func (h *historyCleaner) openAI(k int) {
	b := h.body
	ms, cm, ok := h.assistantContent(k)
	if !ok {
		return
	}
	// The texts: the content string, or its text parts.
	var parts []span
	var texts []cleaned
	changed := false
	switch {
	case isString(b, cm):
		c := h.clean(h.str(cm))
		changed = c.markup
		texts = append(texts, c)
	case b[cm.vs] == '[':
		parts, _ = arrayElems(b, cm.vs, nil)
		for _, pt := range parts {
			var c cleaned
			pms, ok := objectMembers(b, pt.s, nil)
			tm, _ := lookup(b, pms, "type")
			if xm, has := lookup(b, pms, "text"); ok && has && string(stringValue(b, tm)) == "text" && isString(b, xm) {
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
	tm, hasTools := lookup(b, ms, "tool_calls")
	var tels []span
	if hasTools {
		tels, _ = arrayElems(b, tm.vs, nil)
		for _, te := range tels {
			tms, _ := objectMembers(b, te.s, nil)
			if im, has := lookup(b, tms, "id"); has {
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
		if im, has := lookup(b, rms, "tool_call_id"); has && !own[string(h.str(im))] {
			orphans = append(orphans, string(h.str(im)))
		}
	}
	var calls []Event
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
			content = appendQuoted(nil, texts[0].text)
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
				content = append(content, b[pt.s:pt.e]...)
				continue
			}
			pms, _ := objectMembers(b, pt.s, nil)
			xm, _ := lookup(b, pms, "text")
			content = splice(content, b[pt.s:pt.e], []edit{{xm.vs - pt.s, xm.ve - pt.s, appendQuoted(nil, c.text)}})
		}
		content = append(content, ']')
		if n == 0 {
			content = []byte(`""`)
			if native {
				content = []byte("null")
			}
		}
	}
	h.edits = append(h.edits, edit{cm.vs, cm.ve, content})

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
		end := tels[len(tels)-1].e
		h.edits = append(h.edits, edit{end, end, arr})
	case hasTools:
		h.edits = append(h.edits, edit{tm.vs, tm.ve, append(append([]byte("["), arr...), ']')})
	default:
		h.edits = append(h.edits, insertMember(ms, h.els[k].e, "tool_calls", append(append([]byte("["), arr...), ']')))
	}
}

// ---- Anthropic Messages ----

func (h *historyCleaner) anthropic(k int) {
	b := h.body
	_, cm, ok := h.assistantContent(k)
	if !ok {
		return
	}
	var blocks []span
	var texts []cleaned
	changed := false
	own := map[string]bool{}
	switch {
	case isString(b, cm):
		c := h.clean(h.str(cm))
		changed = c.markup
		texts = append(texts, c)
	case b[cm.vs] == '[':
		blocks, _ = arrayElems(b, cm.vs, nil)
		for _, bl := range blocks {
			var c cleaned
			bms, _ := objectMembers(b, bl.s, nil)
			tm, _ := lookup(b, bms, "type")
			switch string(stringValue(b, tm)) {
			case "text":
				if xm, has := lookup(b, bms, "text"); has && isString(b, xm) {
					c = h.clean(h.str(xm))
					changed = changed || c.markup
				}
			case "tool_use":
				if im, has := lookup(b, bms, "id"); has {
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
		if rc, has := lookup(b, rms, "content"); has && b[rc.vs] == '[' {
			rels, _ := arrayElems(b, rc.vs, nil)
			for _, re := range rels {
				bms, _ := objectMembers(b, re.s, nil)
				tm, _ := lookup(b, bms, "type")
				im, has := lookup(b, bms, "tool_use_id")
				if string(stringValue(b, tm)) == "tool_result" && has && !own[string(h.str(im))] {
					orphans = append(orphans, string(h.str(im)))
				}
			}
		}
	}
	var calls []Event
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
			add(appendQuoted([]byte(`{"type":"text","text":`), c.text))
			content = append(content, '}')
		}
		useCalls(c)
	} else {
		for i, bl := range blocks {
			c := texts[i]
			switch {
			case !c.markup:
				add(b[bl.s:bl.e])
			case !isBlank(c.text):
				bms, _ := objectMembers(b, bl.s, nil)
				xm, _ := lookup(b, bms, "text")
				add(splice(nil, b[bl.s:bl.e], []edit{{xm.vs - bl.s, xm.ve - bl.s, appendQuoted(nil, c.text)}}))
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
	h.edits = append(h.edits, edit{cm.vs, cm.ve, content})
}
