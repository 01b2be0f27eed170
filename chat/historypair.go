package chat

// History pairing: strict providers refuse a request whose history holds a
// tool result without its call, or a call without its result before the
// next turn. Clients send such histories (a call trimmed from a long
// conversation, a result kept after its message was edited, a call whose
// run was cancelled). PairHistory mends them: a result whose call is not
// where the API wants it gets that call back when the history holds it
// elsewhere (with the same id); otherwise it is dropped, as is a call that
// no result answers.

import (
	"bytes"

	"github.com/toolsieve/toolsieve/internal/jsonspan"
)

// PairResult counts what PairHistory mended.
type PairResult struct {
	CallsRestored  int // calls put back before results that lacked them
	CallsDropped   int // calls no result answers, removed
	ResultsDropped int // results whose call is nowhere in the history, removed
	// Messages counts the messages (Responses: input items) removed
	// because nothing was left in them.
	Messages int
}

// Changed reports whether anything was mended.
func (r PairResult) Changed() bool { return r.CallsRestored+r.CallsDropped+r.ResultsDropped > 0 }

// PairHistory pairs the native calls and results of a request's history
// as strict providers require:
//
//   - OpenAI chat: a role "tool" message answers a call of the assistant
//     message before its run of tool messages, and every call of an
//     assistant message is answered in the run right after it;
//   - Anthropic: the tool_result blocks of a user message answer the
//     tool_use blocks of the assistant message right before it, all of
//     them;
//   - Responses: a function_call_output item follows the function_call
//     item with its call_id, and every function_call has one.
//
// A result whose call is missing there gets a copy of the call with its id
// from elsewhere in the history (which then leaves its old place); when
// the history holds none, the result is removed. A call that no result
// answers is removed. A message left with nothing (no text, no call, no
// result) is removed too. Messages that do not change keep their bytes; a
// body that needs no mending comes back unchanged (the same slice).
func PairHistory(body []byte, api API) ([]byte, PairResult) {
	var res PairResult
	refs, els, arr, ok := historyIDs(body, api)
	if !ok || len(refs) == 0 {
		return body, res
	}
	roles := make([]string, len(els))
	for k, el := range els {
		if ms, ok := jsonspan.Members(body, el.Start, nil); ok {
			if m, ok := jsonspan.Lookup(body, ms, "role"); ok && jsonspan.IsString(body, m) {
				roles[k] = string(jsonspan.StringBody(body, m))
			}
		}
	}
	// slot is the message whose calls results in message j answer (-1:
	// none can); Responses: any earlier item.
	slot := func(j int) int {
		switch api {
		case APIOpenAI:
			k := j - 1
			for k >= 0 && roles[k] == "tool" {
				k--
			}
			if k >= 0 && roles[k] == "assistant" {
				return k
			}
		case APIAnthropic:
			if j > 0 && roles[j-1] == "assistant" {
				return j - 1
			}
		}
		return -1
	}
	pairs := func(c, r *idRef) bool {
		if !bytes.Equal(body[c.id.Start:c.id.End], body[r.id.Start:r.id.End]) {
			return false
		}
		if api == APIResponses {
			return c.msg < r.msg
		}
		return slot(r.msg) == c.msg
	}
	paired := make([]bool, len(refs))
	for i := range refs {
		for j := range refs {
			if refs[i].call && !refs[j].call && pairs(&refs[i], &refs[j]) {
				paired[i], paired[j] = true, true
			}
		}
	}
	p := &pairPlan{drop: map[jsonspan.Span]bool{}, add: map[int][][]byte{}, before: map[int][][]byte{}, moved: map[jsonspan.Span]bool{}}
	for j := range refs {
		r := &refs[j]
		if r.call || paired[j] {
			continue
		}
		// A call with the same id, unanswered, elsewhere?
		from := -1
		for i := range refs {
			if c := &refs[i]; c.call && !paired[i] && bytes.Equal(body[c.id.Start:c.id.End], body[r.id.Start:r.id.End]) {
				from = i
				break
			}
		}
		to := slot(r.msg)
		if from >= 0 && (api == APIResponses || to >= 0) {
			c := &refs[from]
			paired[from] = true // it moves: its old place is dropped
			p.drop[c.el], p.moved[c.el] = true, true
			if api == APIResponses {
				p.before[r.msg] = append(p.before[r.msg], body[c.el.Start:c.el.End])
			} else {
				p.add[to] = append(p.add[to], body[c.el.Start:c.el.End])
			}
			res.CallsRestored++
			continue
		}
		p.drop[r.el] = true
		res.ResultsDropped++
	}
	for i := range refs {
		if refs[i].call && !paired[i] {
			p.drop[refs[i].el] = true
			res.CallsDropped++
		}
	}
	if !res.Changed() {
		return body, res
	}
	out := make([]byte, 0, len(body)+256)
	out = append(out, body[:arr.Start]...)
	out = append(out, '[')
	n := 0
	for k, el := range els {
		msgs := p.before[k]
		if m, keep := p.message(body, api, k, el, roles[k], &res); keep {
			msgs = append(msgs, m)
		}
		for _, m := range msgs {
			if n > 0 {
				out = append(out, ',')
			}
			out = append(out, m...)
			n++
		}
	}
	out = append(out, ']')
	return append(out, body[arr.End:]...), res
}

// pairPlan is what PairHistory changes.
type pairPlan struct {
	drop   map[jsonspan.Span]bool // call and result elements (or whole items) removed
	add    map[int][][]byte       // calls appended to message k's calls
	before map[int][][]byte       // Responses: items put before item k
	moved  map[jsonspan.Span]bool // calls dropped from where they were because they moved
}

// message returns message k as it is to be sent, or keep false when it is
// removed.
func (p *pairPlan) message(body []byte, api API, k int, el jsonspan.Span, role string, res *PairResult) ([]byte, bool) {
	raw := body[el.Start:el.End]
	if p.drop[el] { // an OpenAI tool message, a Responses item
		if !p.moved[el] {
			res.Messages++
		}
		return nil, false
	}
	add := p.add[k]
	ms, ok := jsonspan.Members(body, el.Start, nil)
	if !ok {
		return raw, true
	}
	key := "content"
	if api == APIOpenAI {
		key = "tool_calls"
	}
	am, has := jsonspan.Lookup(body, ms, key)
	if !has && len(add) == 0 || has && body[am.Start] != '[' {
		return raw, true
	}
	var kept [][]byte
	changed := len(add) > 0
	if has {
		items, _ := jsonspan.Elems(body, am.Start, nil)
		for _, it := range items {
			if p.drop[it] {
				changed = true
				continue
			}
			kept = append(kept, body[it.Start:it.End])
		}
	}
	if !changed {
		return raw, true
	}
	kept = append(kept, add...)
	var edit jsonspan.Edit
	switch {
	case len(kept) > 0:
		v := append([]byte{'['}, bytes.Join(kept, []byte{','})...)
		v = append(v, ']')
		edit = jsonspan.SetMember(body, ms, el.End, key, v)
	case api == APIOpenAI && hasText(body, ms):
		edit = removeMember(ms, am)
	default: // nothing left in it
		res.Messages++
		return nil, false
	}
	edit.Start, edit.End = edit.Start-el.Start, edit.End-el.Start
	return jsonspan.Spliced(raw, []jsonspan.Edit{edit}), true
}

// hasText reports an OpenAI message whose content is not empty.
func hasText(body []byte, ms []jsonspan.Member) bool {
	m, ok := jsonspan.Lookup(body, ms, "content")
	if !ok || jsonspan.IsNull(body, m) {
		return false
	}
	return !jsonspan.IsString(body, m) || m.End-m.Start > 2
}

// removeMember returns the edit that removes member m (one of ms) with its
// comma.
func removeMember(ms []jsonspan.Member, m jsonspan.Member) jsonspan.Edit {
	for i := range ms {
		if ms[i].KeyStart != m.KeyStart {
			continue
		}
		switch {
		case i > 0:
			return jsonspan.Edit{Start: ms[i-1].End, End: ms[i].End}
		case i+1 < len(ms):
			return jsonspan.Edit{Start: ms[i].KeyStart, End: ms[i+1].KeyStart}
		}
		return jsonspan.Edit{Start: ms[i].KeyStart, End: ms[i].End}
	}
	return jsonspan.Edit{Start: m.Start, End: m.Start}
}
