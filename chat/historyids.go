package chat

// Call ids in history: a provider that accepts only its own id format
// (Mistral: nine alphanumerics) refuses a request whose history holds
// calls and results with other ids, such as those of another provider or
// of a client that numbered calls it read from text. FormatHistoryIDs
// rewrites them, the same id to the same new id, so that pairs stay pairs.

import (
	"github.com/toolsieve/toolsieve/internal/jsonspan"
)

// IDFormat says which call ids a provider accepts and makes one of them
// from any other id.
type IDFormat struct {
	Valid func(id []byte) bool
	// From must give the same id for the same input, and different ids
	// for different inputs as far as it can.
	From func(id []byte) string
}

// idRef is a call id or a result's reference to one in a history.
type idRef struct {
	msg  int             // the message (or Responses input item)
	id   jsonspan.Member // the id's value
	call bool            // the call's own id (else a result's reference)
	el   jsonspan.Span   // the call or result element (a tool_calls entry, a block, an item)
	list []jsonspan.Span // the elements of the array el is in
	k    int             // el's index in list
}

// historyIDs returns the call ids and result references of a request
// body's history, in order, with the history's messages.
func historyIDs(body []byte, api API) (refs []idRef, els []jsonspan.Span, mm jsonspan.Member, ok bool) {
	c := api.codec()
	if c == nil || !jsonspan.Valid(body) {
		return nil, nil, mm, false
	}
	ms, ok := jsonspan.Members(body, 0, nil)
	if !ok {
		return nil, nil, mm, false
	}
	mm, has := jsonspan.Lookup(body, ms, c.historyKey())
	if !has || body[mm.Start] != '[' {
		return nil, nil, mm, false
	}
	els, ok = jsonspan.Elems(body, mm.Start, nil)
	if !ok {
		return nil, nil, mm, false
	}
	str := func(ms []jsonspan.Member, key string) (jsonspan.Member, bool) {
		m, ok := jsonspan.Lookup(body, ms, key)
		return m, ok && jsonspan.IsString(body, m)
	}
	for k, el := range els {
		ms, ok := jsonspan.Members(body, el.Start, nil)
		if !ok {
			continue
		}
		role, _ := str(ms, "role")
		typ, _ := str(ms, "type")
		r, t := string(jsonspan.StringBody(body, role)), string(jsonspan.StringBody(body, typ))
		switch api {
		case APIOpenAI:
			if r == "tool" {
				if m, ok := str(ms, "tool_call_id"); ok {
					refs = append(refs, idRef{msg: k, id: m, el: el, list: els, k: k})
				}
			}
			if tm, ok := jsonspan.Lookup(body, ms, "tool_calls"); ok && r == "assistant" {
				tels, _ := jsonspan.Elems(body, tm.Start, nil)
				for j, te := range tels {
					if tms, ok := jsonspan.Members(body, te.Start, nil); ok {
						if m, ok := str(tms, "id"); ok {
							refs = append(refs, idRef{msg: k, id: m, call: true, el: te, list: tels, k: j})
						}
					}
				}
			}
		case APIAnthropic:
			cm, ok := jsonspan.Lookup(body, ms, "content")
			if !ok || body[cm.Start] != '[' {
				continue
			}
			bels, _ := jsonspan.Elems(body, cm.Start, nil)
			for j, be := range bels {
				bms, ok := jsonspan.Members(body, be.Start, nil)
				if !ok {
					continue
				}
				bt, _ := str(bms, "type")
				switch string(jsonspan.StringBody(body, bt)) {
				case "tool_use":
					if m, ok := str(bms, "id"); ok {
						refs = append(refs, idRef{msg: k, id: m, call: true, el: be, list: bels, k: j})
					}
				case "tool_result":
					if m, ok := str(bms, "tool_use_id"); ok {
						refs = append(refs, idRef{msg: k, id: m, el: be, list: bels, k: j})
					}
				}
			}
		case APIResponses:
			if t != "function_call" && t != "function_call_output" {
				continue
			}
			if m, ok := str(ms, "call_id"); ok {
				refs = append(refs, idRef{msg: k, id: m, call: t == "function_call", el: el, list: els, k: k})
			}
		}
	}
	return refs, els, mm, true
}

// FormatHistoryIDs rewrites the call ids of a request's history (OpenAI
// tool_calls ids and tool_call_id, Anthropic tool_use ids and tool_use_id,
// Responses call_id) that f does not accept, each to f.From of it. It
// returns the body (the same slice when nothing changed) and how many ids
// it rewrote.
func FormatHistoryIDs(body []byte, api API, f IDFormat) ([]byte, int) {
	refs, _, _, ok := historyIDs(body, api)
	if !ok {
		return body, 0
	}
	var edits []jsonspan.Edit
	for _, r := range refs {
		id := jsonspan.AppendUnquoted(nil, body[r.id.Start:r.id.End])
		if f.Valid(id) {
			continue
		}
		edits = append(edits, jsonspan.Edit{Start: r.id.Start, End: r.id.End, Repl: jsonspan.AppendQuoted(nil, f.From(id))})
	}
	if len(edits) == 0 {
		return body, 0
	}
	jsonspan.SortEdits(edits)
	return jsonspan.Spliced(body, edits), len(edits)
}
