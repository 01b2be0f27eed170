package chat

// The OpenAI Responses API (POST .../responses): the responses codec, whole
// responses, content reading and history cleaning. Its streams, and what
// the codec does to a response's items, are in responses_stream.go.

import (
	"bytes"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
)

// ---- whole responses, content reading and history ----

// responses is the API's codec (see apiCodec).
type responses struct{}

func (responses) newStream(w *streamRewriter) apiStream { return &rsStream{textFeed: textFeed{w: w}} }

func (responses) historyKey() string { return "input" }

// responseText reads the output_text parts of a response's message items
// and the text parts of its reasoning items.
func (responses) responseText(t *DocText, doc []byte, ms []jsonspan.Member) bool {
	om, has := jsonspan.Lookup(doc, ms, "output")
	if !has || doc[om.Start] != '[' {
		return false
	}
	items, _ := jsonspan.Elems(doc, om.Start, nil)
	for _, it := range items {
		ims, ok := jsonspan.Members(doc, it.Start, nil)
		if !ok {
			continue
		}
		tm, _ := jsonspan.Lookup(doc, ims, "type")
		cm, has := jsonspan.Lookup(doc, ims, "content")
		if !has || doc[cm.Start] != '[' {
			continue
		}
		parts, _ := jsonspan.Elems(doc, cm.Start, nil)
		for _, p := range parts {
			pms, ok := jsonspan.Members(doc, p.Start, nil)
			if !ok {
				continue
			}
			xm, has := jsonspan.Lookup(doc, pms, "text")
			if !has || !jsonspan.IsString(doc, xm) {
				continue
			}
			switch string(jsonspan.StringBody(doc, tm)) {
			case "message":
				t.Content = jsonspan.AppendUnquoted(t.Content, doc[xm.Start:xm.End])
			case "reasoning":
				t.Reasoning = jsonspan.AppendUnquoted(t.Reasoning, doc[xm.Start:xm.End])
			}
		}
	}
	return true
}

func (responses) rewriteDoc(w *streamRewriter, dst, doc []byte) ([]byte, bool) {
	ms, els, ok := w.docArray(doc, "output")
	if !ok {
		return dst, false
	}
	// A response that did not complete was cut in its last item.
	sm, hasStatus := jsonspan.Lookup(doc, ms, "status")
	limited := hasStatus && jsonspan.IsString(doc, sm) && string(jsonspan.StringBody(doc, sm)) != "completed"
	var out [][]byte
	changed, cut := false, false
	parsers := 0
	for k, el := range els {
		if cut {
			changed = true // items after a runaway are dropped
			continue
		}
		items, ch, stop := w.docItem(doc, el, &parsers, limited && k == len(els)-1)
		out, changed, cut = append(out, items...), changed || ch, stop
	}
	if !changed {
		return dst, false
	}
	kv := []any{"output", jsonArray(out)}
	if cut {
		kv = append(kv, "status", []byte(`"incomplete"`), "incomplete_details", []byte(`{"reason":"max_output_tokens"}`))
	}
	return append(dst, setMembers(doc, kv...)...), true
}

// docItem rewrites one output item of a whole response: a message whose
// text holds markup becomes the messages, reasoning and function_call
// items it is made of. limited says the response was cut in this item: a
// call the end of its last text part closed is kept as text.
func (w *streamRewriter) docItem(doc []byte, el jsonspan.Span, parsers *int, limited bool) (items [][]byte, changed, cut bool) {
	raw := doc[el.Start:el.End]
	ims, _ := jsonspan.Members(doc, el.Start, nil)
	tm, _ := jsonspan.Lookup(doc, ims, "type")
	cm, hasContent := jsonspan.Lookup(doc, ims, "content")
	w.noteNative(jsonspan.StringBody(doc, tm))
	if string(jsonspan.StringBody(doc, tm)) != "message" || !hasContent {
		return [][]byte{raw}, false, false
	}
	parts, _ := jsonspan.Elems(doc, cm.Start, nil)
	it := &rsItem{}
	if m, ok := jsonspan.Lookup(doc, ims, "id"); ok {
		it.id = jsonspan.StringBody(doc, m)
	}
	var cur [][]byte // the parts of the message being made
	first := true
	flush := func(status string) {
		switch {
		case len(cur) == 0:
		case first: // the first message keeps the item's other fields
			kv := []any{"content", jsonArray(cur)}
			if status != "completed" {
				kv = append(kv, "status", []byte(`"`+status+`"`))
			}
			items, first = append(items, setMembers(raw, kv...)), false
		default:
			items = append(items, messageJSON(nil, it.madeID(), status, jsonArray(cur)))
		}
		cur = nil
	}
	for k, pt := range parts {
		praw := doc[pt.Start:pt.End]
		pms, _ := jsonspan.Members(doc, pt.Start, nil)
		ptm, _ := jsonspan.Lookup(doc, pms, "type")
		xm, hasText := jsonspan.Lookup(doc, pms, "text")
		if string(jsonspan.StringBody(doc, ptm)) != "output_text" || !hasText || !jsonspan.IsString(doc, xm) {
			cur = append(cur, praw)
			continue
		}
		text := jsonspan.AppendUnquoted(nil, doc[xm.Start:xm.End])
		d, stop := w.parseDoc(text, false, *parsers, limited && k == len(parts)-1)
		*parsers++
		if !stop && (len(d.pieces) == 0 && len(text) == 0 || len(d.pieces) == 1 && d.pieces[0].kind == runText && bytes.Equal(d.pieces[0].b, text)) {
			cur = append(cur, praw)
			continue
		}
		changed = true
		other := false // calls or reasoning: blank text between them goes
		for _, pc := range d.pieces {
			other = other || pc.kind != runText
		}
		for _, pc := range d.pieces {
			switch pc.kind {
			case runText: // made anew, as annotations no longer fit
				if len(pc.b) > 0 && !(other && isBlank(pc.b)) {
					cur = append(cur, textPartJSON(nil, pc.b))
				}
			case runReasoning:
				flush("completed")
				items = append(items, reasoningJSON(nil, it.madeID(), "completed", jsonArray([][]byte{reasoningPartJSON(nil, pc.b)})))
			default:
				flush("completed")
				items = append(items, appendResponsesCall(nil, idBody("fc_"+pc.call.id), pc.call, "completed", true))
			}
		}
		if stop {
			cut = true
			break
		}
	}
	if cut {
		flush("incomplete")
	}
	flush("completed")
	return items, changed, cut
}

func (responses) content(c *ContentReader, data []byte, ms []jsonspan.Member) {
	tm, _ := jsonspan.Lookup(data, ms, "type")
	dm, has := jsonspan.Lookup(data, ms, "delta")
	if !has || !jsonspan.IsString(data, dm) {
		return
	}
	switch string(jsonspan.StringBody(data, tm)) {
	case "response.output_text.delta":
		c.content = jsonspan.AppendUnquoted(c.content, data[dm.Start:dm.End])
	case "response.reasoning_text.delta", "response.reasoning_summary_text.delta":
		c.events = append(c.events, toolsieve.Event{Type: toolsieve.Reasoning, Text: jsonspan.AppendUnquoted(nil, data[dm.Start:dm.End]), Offset: -1})
	}
}

// responses cleans input item k when it is an assistant message: its text
// loses the markup (the message goes when no text is left), and the calls
// recovered from it become function_call items right after it, with the
// call_ids of the function_call_output items that follow it (up to the
// next message) and answer no function_call of the input.
func (responses) cleanMessage(h *historyCleaner, k int) {
	b, el := h.body, h.els[k]
	ms, role := h.message(k)
	cm, ok := jsonspan.Lookup(b, ms, "content")
	if typ, _ := h.itemType(k); role != "assistant" || typ != "message" || !ok {
		return
	}
	// The texts: the content string, or those of its parts.
	texts := []jsonspan.Member{cm}
	if b[cm.Start] == '[' {
		texts = texts[:0]
		parts, _ := jsonspan.Elems(b, cm.Start, nil)
		for _, pt := range parts {
			pms, _ := jsonspan.Members(b, pt.Start, nil)
			if xm, ok := jsonspan.Lookup(b, pms, "text"); ok && jsonspan.IsString(b, xm) {
				texts = append(texts, xm)
			}
		}
	}
	var edits []jsonspan.Edit
	var calls []toolsieve.Event
	blank := true
	for _, xm := range texts {
		c := h.clean(h.str(xm))
		blank = blank && isBlank(c.text)
		if c.markup {
			calls = append(calls, c.calls...)
			edits = append(edits, jsonspan.Edit{Start: xm.Start - el.Start, End: xm.End - el.Start, Repl: jsonspan.AppendQuoted(nil, c.text)})
		}
	}
	if len(edits) == 0 {
		return
	}
	h.res.Messages++
	own := map[string]bool{}
	for j := range h.els {
		if typ, ims := h.itemType(j); typ == "function_call" {
			if m, ok := jsonspan.Lookup(b, ims, "call_id"); ok {
				own[string(h.str(m))] = true
			}
		}
	}
	var orphans []string
	for j := k + 1; j < len(h.els); j++ {
		typ, ims := h.itemType(j)
		if typ == "message" {
			break
		}
		if m, ok := jsonspan.Lookup(b, ims, "call_id"); ok && typ == "function_call_output" && !own[string(h.str(m))] {
			orphans = append(orphans, string(h.str(m)))
		}
	}
	var repl []byte
	if !blank {
		repl = jsonspan.Splice(nil, b[el.Start:el.End], edits)
	}
	for _, c := range h.pair(calls, orphans) {
		if len(repl) > 0 {
			repl = append(repl, ',')
		}
		repl = jsonspan.AppendQuoted(append(repl, `{"type":"function_call","call_id":`...), c.id)
		repl = jsonspan.AppendQuoted(append(repl, `,"name":`...), c.name)
		repl = append(jsonspan.AppendQuoted(append(repl, `,"arguments":`...), c.args), '}')
	}
	if len(repl) == 0 {
		h.edits = append(h.edits, dropElem(h.els, k))
		return
	}
	h.edits = append(h.edits, jsonspan.Edit{Start: el.Start, End: el.End, Repl: repl})
}

// itemType returns input item j's type ("message" for an item with a role
// and no type) and members.
func (h *historyCleaner) itemType(j int) (string, []jsonspan.Member) {
	ms, _ := jsonspan.Members(h.body, h.els[j].Start, nil)
	if tm, ok := jsonspan.Lookup(h.body, ms, "type"); ok {
		return string(jsonspan.StringBody(h.body, tm)), ms
	}
	if _, ok := jsonspan.Lookup(h.body, ms, "role"); ok {
		return "message", ms
	}
	return "", ms
}
