package chat

// The OpenAI Responses API's streams (the codec is in responses.go).
//
// A response is a list of output items (message, reasoning, function_call,
// ...). Markup in the output_text of a message splits the message: the text
// before it stays in the message, each call becomes a function_call item
// right after it, reasoning markup a reasoning item, and the text after goes
// into a new message item. A message piece is opened only for text that is
// not blank, so a message that held nothing but markup disappears. Items are
// numbered (output_index) in the order they are added, and every event
// carries a sequence_number: both are renumbered as events are inserted or
// dropped, and the final event (response.completed, .incomplete, .failed)
// gets the output as it was streamed. A runaway ends the stream with
// response.incomplete (reason max_output_tokens), as when the token limit
// cuts an answer.

import (
	"bytes"
	"strconv"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/sse"
)

// maxParts bounds the content parts tracked per message item.
const maxParts = 64

// rsStream rewrites a Responses API event stream.
type rsStream struct {
	textFeed
	items   map[int]*rsItem // by upstream output_index
	order   []*rsItem       // in upstream order
	outs    []rsOut         // the output items, by output_index
	seq     int             // the next sequence_number of the output
	seqSet  bool            // seq is known
	resp    []byte          // the response object of response.created / in_progress
	parsers int
	changed bool // items were inserted, dropped or edited
	over    bool // the final event went out
	done    bool // [DONE] came
	errored bool // the upstream sent an error event
	cur     *rsPart
	// wait holds what came after a text part's end whose last batch holds
	// a call the end closed, until the response's end tells whether the
	// model ended there (cut.go); waitCut is the verdict while the held
	// events are replayed, finalCut the final event's.
	wait              *cutWait
	waitCut, finalCut bool

	ms, sms []jsonspan.Member
	sedits  []jsonspan.Edit
	tmp     []byte
}

// rsOut is one item of the output.
type rsOut struct {
	up   int    // upstream output_index of the item it passes on, or -1 (made up)
	json []byte // the item as its output_item.done carried it
}

// rsItem is one output item of the upstream.
type rsItem struct {
	up, out int    // upstream output_index; output_index of the item or of its open piece
	msg     bool   // a message: its output_text parts are fed to parsers
	id      []byte // the upstream item id (a JSON string body)
	added   rsHeld // the upstream output_item.added of a message, until its first piece opens
	// open is what the message has open in the output (curID: its id): a
	// message piece (runText), a reasoning item made of markup, or nothing.
	open     runKind
	curID    []byte
	made     int    // items given made-up ids
	nparts   int    // content parts opened in the open piece
	rsText   []byte // the text of the open reasoning item
	parts    []*rsPart
	held     []rsHeld // blank text deltas while no piece is open (one opens for text that is not)
	heldSize int
	changed  bool // its output differs from the upstream's
	done     bool
}

// rsPart is one content part of a message item.
type rsPart struct {
	textChan
	it     *rsItem
	up     int    // upstream content_index
	text   bool   // output_text: fed to the parser
	ended  bool   // the parser is closed
	ci     int    // content_index in the open piece, -1 when not open in it
	closed bool   // its content_part.done went out
	json   []byte // a part that is not output_text as it ended
	acc    []byte
	added  rsHeld // the upstream content_part.added, until the part first opens
}

// rsHeld is an upstream event kept for later (raw nil: made up, data nil:
// a made-up text delta of content).
type rsHeld struct {
	raw, data []byte
	part      *rsPart
	content   []byte
}

// rsTarget is where an event goes: output_index, content_index, item_id.
type rsTarget struct {
	out, ci int
	id      []byte
}

var rsKeep = rsTarget{out: -1, ci: -1} // as they are

func (s *rsStream) event(ev *sse.Event) {
	w := s.w
	data := ev.Data
	if s.wait != nil && s.waiting(ev) {
		return
	}
	if s.over || string(bytes.TrimSpace(data)) == "[DONE]" {
		s.done = s.done || !s.over // a server that ends its stream as chat completions do
		w.out = append(w.out, ev.Raw...)
		return
	}
	if !w.validEvent(ev) {
		return
	}
	var ok bool
	if s.ms, ok = w.ix.Members(data, 0, s.ms[:0]); !ok {
		w.out = append(w.out, ev.Raw...)
		return
	}
	typ := ev.Type
	if m, has := jsonspan.Lookup(data, s.ms, "type"); has && jsonspan.IsString(data, m) {
		typ = string(jsonspan.StringBody(data, m))
	}
	switch typ {
	case "response.created", "response.in_progress", "response.queued":
		if m, has := jsonspan.Lookup(data, s.ms, "response"); has {
			s.resp = append(s.resp[:0], data[m.Start:m.End]...)
		}
		s.send(ev.Raw, data, rsKeep, nil)
	case "response.output_item.added":
		s.itemAdded(ev, data)
	case "response.content_part.added":
		s.partAdded(ev, data)
	case "response.output_text.delta":
		s.textDelta(ev, data)
	case "response.output_text.done", "response.content_part.done":
		s.partDone(ev, data, typ == "response.content_part.done")
	case "response.output_item.done":
		s.itemDone(ev, data)
	case "response.completed", "response.incomplete", "response.failed":
		w.stats.UpstreamError = typ == "response.failed"
		if ms, ok := w.ix.Members(data, 0, nil); ok {
			w.noteNestedUsage(data, ms, "response")
		}
		s.final(ev, data, typ != "response.completed")
	case "error":
		s.errored, w.stats.UpstreamError = true, true
		s.other(ev, data)
	default:
		s.other(ev, data)
	}
}

// ended reports the final event, [DONE] or an error event.
func (s *rsStream) ended() bool { return s.over || s.done || s.errored }

// waiting handles an event that comes while a text part's end waits for
// the response's end (cut.go): a new item or part says the model went on
// (it ended the part itself), the final event says it by its status, an
// error or too much in between say it was cut. Other events wait too. It
// reports an event that was held.
func (s *rsStream) waiting(ev *sse.Event) bool {
	typ, _, _ := eventType(ev)
	if string(bytes.TrimSpace(ev.Data)) == "[DONE]" {
		typ = "[DONE]"
	}
	cut := true
	switch typ {
	case "response.output_item.added", "response.content_part.added", "response.completed":
		cut = false
	case "response.incomplete", "response.failed", "error":
	default:
		if !s.wait.add(ev) {
			s.resolve(true) // too much in between: taken as cut (ev is replayed with the rest)
		}
		return true
	}
	s.resolve(cut)
	return s.over || s.w.stopped // a runaway or a fault ended the stream while replaying
}

// resolve replays the events held by the wait with its verdict: first the
// event that ended the text part whose batch waited, then what followed.
func (s *rsStream) resolve(cut bool) {
	q := s.wait
	s.wait, s.waitCut = nil, cut
	for i := range q.evs {
		if s.over || s.w.stopped {
			break
		}
		s.w.arena = s.w.arena[:0]
		s.w.ix.Reset()
		s.event(&q.evs[i])
	}
	s.waitCut = false
}

// at returns the item and (with content_index) the part an event is about;
// with def >= 0 (the content_index when absent) a new part is added.
func (s *rsStream) at(data []byte, ms []jsonspan.Member, def int) (*rsItem, *rsPart) {
	it := s.items[intMember(data, ms, "output_index", -1)]
	ci := intMember(data, ms, "content_index", def)
	if it == nil || !it.msg || ci < 0 {
		return it, nil
	}
	for _, p := range it.parts {
		if p.up == ci {
			return it, p
		}
	}
	if def < 0 || len(it.parts) >= maxParts {
		return it, nil
	}
	p := &rsPart{it: it, up: ci, ci: -1}
	it.parts = append(it.parts, p)
	return it, p
}

// intMember reads an integer member, def when absent or not an integer.
func intMember(data []byte, ms []jsonspan.Member, key string, def int) int {
	if m, ok := jsonspan.Lookup(data, ms, key); ok {
		if n, ok := jsonspan.Int(data, m); ok {
			return n
		}
	}
	return def
}

// send passes an upstream event on with its sequence_number, output_index,
// item_id and content_index set for the output (t) and the further edits
// applied; with nothing to change its raw bytes go out.
func (s *rsStream) send(raw, data []byte, t rsTarget, edits []jsonspan.Edit) {
	w := s.w
	s.sms, _ = s.w.ix.Members(data, 0, s.sms[:0])
	es := append(s.sedits[:0], edits...)
	if m, ok := jsonspan.Lookup(data, s.sms, "sequence_number"); ok {
		v, isInt := jsonspan.Int(data, m)
		if !s.seqSet && isInt {
			s.seq = v
		}
		s.seqSet = true
		if !isInt || v != s.seq {
			es = append(es, jsonspan.Edit{Start: m.Start, End: m.End, Repl: w.keepInt(s.seq)})
		}
		s.seq++
	}
	for k, want := range [...]int{t.out, t.ci} {
		m, ok := jsonspan.Lookup(data, s.sms, [...]string{"output_index", "content_index"}[k])
		if v, _ := jsonspan.Int(data, m); ok && want >= 0 && v != want {
			es = append(es, jsonspan.Edit{Start: m.Start, End: m.End, Repl: w.keepInt(want)})
		}
	}
	if m, ok := jsonspan.Lookup(data, s.sms, "item_id"); ok && t.id != nil && !bytes.Equal(jsonspan.StringBody(data, m), t.id) {
		es = append(es, jsonspan.Edit{Start: m.Start, End: m.End, Repl: quoteBody(t.id)})
	}
	s.sedits = es
	if len(es) == 0 && raw != nil {
		w.out = append(w.out, raw...)
		return
	}
	typ := ""
	if m, ok := jsonspan.Lookup(data, s.sms, "type"); ok {
		typ = string(jsonspan.StringBody(data, m))
	}
	jsonspan.SortEdits(es)
	w.data = jsonspan.Splice(w.data[:0], data, es)
	w.emitEvent(typ, w.data)
}

// put sends a made-up event: its type and sequence_number, then the
// members (each with a leading comma).
func (s *rsStream) put(typ string, members ...[]byte) {
	b := append(append(append(s.tmp[:0], `{"type":"`...), typ...), `","sequence_number":`...)
	b = strconv.AppendInt(b, int64(s.seq), 10)
	s.seq, s.seqSet = s.seq+1, true
	for _, m := range members {
		b = append(b, m...)
	}
	s.tmp = append(b, '}')
	s.w.emitEvent(typ, s.tmp)
}

// putItem sends an output_item event.
func (s *rsStream) putItem(typ string, out int, item []byte) {
	s.put(typ, strconv.AppendInt([]byte(`,"output_index":`), int64(out), 10), []byte(`,"item":`), item)
}

// putPart sends an event about content part ci (-1: none) of item id.
func (s *rsStream) putPart(typ string, id []byte, out, ci int, rest ...[]byte) {
	b := strconv.AppendInt(append(append([]byte(`,"item_id":"`), id...), `","output_index":`...), int64(out), 10)
	if ci >= 0 {
		b = strconv.AppendInt(append(b, `,"content_index":`...), int64(ci), 10)
	}
	s.put(typ, append([][]byte{b}, rest...)...)
}

// member returns `,"key":value` with value a JSON string.
func member(key string, value []byte) []byte {
	return jsonspan.AppendQuoted(append(append([]byte(`,"`), key...), `":`...), value)
}

var noLogprobs = []byte(`,"logprobs":[]`)

// newOut adds an output item and returns its output_index.
func (s *rsStream) newOut(up int) int {
	s.outs = append(s.outs, rsOut{up: up})
	return len(s.outs) - 1
}

func (s *rsStream) itemAdded(ev *sse.Event, data []byte) {
	im, hasItem := jsonspan.Lookup(data, s.ms, "item")
	up := intMember(data, s.ms, "output_index", -1)
	if !hasItem || up < 0 || s.items[up] != nil || len(s.items) >= maxBlocks {
		s.send(ev.Raw, data, rsKeep, nil)
		return
	}
	it := &rsItem{up: up}
	if s.items == nil {
		s.items = map[int]*rsItem{}
	}
	s.items[up] = it
	s.order = append(s.order, it)
	ims, _ := s.w.ix.Members(data, im.Start, nil)
	tm, _ := jsonspan.Lookup(data, ims, "type")
	s.w.noteNative(jsonspan.StringBody(data, tm))
	if string(jsonspan.StringBody(data, tm)) == "message" {
		it.msg = true
		if m, ok := jsonspan.Lookup(data, ims, "id"); ok {
			it.id = bytes.Clone(jsonspan.StringBody(data, m))
		}
		it.added = rsHeld{raw: bytes.Clone(ev.Raw), data: bytes.Clone(data)}
		return // held until its first piece opens
	}
	it.out = s.newOut(up)
	s.send(ev.Raw, data, rsTarget{out: it.out, ci: -1}, nil)
}

func (s *rsStream) partAdded(ev *sse.Event, data []byte) {
	it, p := s.at(data, s.ms, 0)
	if p == nil || p.added.data != nil || p.ci >= 0 || p.ended {
		s.other(ev, data)
		return
	}
	p.added = rsHeld{raw: bytes.Clone(ev.Raw), data: bytes.Clone(data)}
	if pm, ok := jsonspan.Lookup(data, s.ms, "part"); ok {
		pms, _ := s.w.ix.Members(data, pm.Start, nil)
		tm, _ := jsonspan.Lookup(data, pms, "type")
		if string(jsonspan.StringBody(data, tm)) == "output_text" {
			s.textPart(p)
		}
	}
	if !p.text {
		// A refusal or other part: it goes into the open piece as it is.
		s.openPiece(it)
		s.openPart(p)
	}
}

// textPart makes p an output_text part, fed to a parser.
func (s *rsStream) textPart(p *rsPart) {
	if p.p == nil {
		p.text, p.p = true, s.w.newParser(false, s.parsers)
		s.parsers++
	}
}

func (s *rsStream) textDelta(ev *sse.Event, data []byte) {
	_, p := s.at(data, s.ms, 0)
	dm, has := jsonspan.Lookup(data, s.ms, "delta")
	if p != nil && p.added.data == nil && p.ci < 0 && !p.ended {
		s.textPart(p) // a part the upstream did not announce
	}
	if p == nil || !p.text || p.ended || !has || !jsonspan.IsString(data, dm) {
		s.other(ev, data)
		return
	}
	s.in = jsonspan.AppendUnquoted(s.in[:0], data[dm.Start:dm.End])
	s.cur = p
	s.begin()
	if s.process(s, &p.textChan, p.p.Feed(s.in)) {
		s.finish(true)
		return
	}
	if s.clean {
		// Only text came out: the upstream event can go out as it is once
		// all of its text has been released.
		if len(p.carry) == 0 && wholeChars(s.in) && len(ev.Raw) <= maxHeldBytes {
			s.hold(s, &p.textChan, ev, s.in, jsonspan.Member{})
			return
		}
		s.settle(s, &p.textChan, nil, false)
	}
	run := s.lastRun(s, &p.textChan, false)
	switch {
	case len(run) == 0:
	case bytes.Equal(run, s.in):
		s.textOut(p, ev.Raw, data, run)
	default:
		d := jsonspan.Splice(nil, data, []jsonspan.Edit{{Start: dm.Start, End: dm.End, Repl: jsonspan.AppendQuoted(nil, run)}})
		s.textOut(p, nil, d, run)
	}
}

// textOut sends text of part p: an upstream delta event (data), or a
// made-up one (data nil). Blank text waits while no piece is open.
func (s *rsStream) textOut(p *rsPart, raw, data, text []byte) {
	it := p.it
	if it.open != runText && isBlank(text) && it.heldSize+len(raw)+len(data) <= maxHeldBytes {
		h := rsHeld{part: p, content: bytes.Clone(text)}
		if data != nil {
			h.raw, h.data = bytes.Clone(raw), bytes.Clone(data)
		}
		it.held = append(it.held, h)
		it.heldSize += len(h.raw) + len(h.data) + len(text)
		return
	}
	s.openPiece(it)
	s.sendText(p, raw, data, text)
}

// sendText sends text of p into the open piece.
func (s *rsStream) sendText(p *rsPart, raw, data, text []byte) {
	it := p.it
	s.openPart(p)
	if data == nil {
		s.putPart("response.output_text.delta", it.curID, it.out, p.ci, member("delta", text), noLogprobs)
	} else {
		s.send(raw, data, rsTarget{out: it.out, id: it.curID, ci: p.ci}, nil)
	}
	p.acc = append(p.acc, text...)
}

// original sends a held upstream delta of the current part, text unchanged.
func (s *rsStream) original(qe queued) { s.textOut(s.cur, qe.raw, qe.data, qe.content) }

// openPiece makes sure the message has a piece open in the output: the
// upstream's own item the first time, a made-up message after that.
func (s *rsStream) openPiece(it *rsItem) {
	if it.open == runText {
		return
	}
	if it.open == runReasoning {
		s.closeReasoning(it)
	}
	if it.added.data != nil {
		it.out, it.curID = s.newOut(it.up), it.id
		s.send(it.added.raw, it.added.data, rsTarget{out: it.out, ci: -1}, nil)
		it.added = rsHeld{}
	} else {
		it.out, it.curID = s.newOut(-1), it.madeID()
		s.putItem("response.output_item.added", it.out, messageJSON(nil, it.curID, "in_progress", []byte("[]")))
		s.changed = true
	}
	it.open, it.nparts = runText, 0
	for _, p := range it.parts {
		p.ci, p.closed, p.acc = -1, false, p.acc[:0]
	}
	for _, h := range it.held {
		s.sendText(h.part, h.raw, h.data, h.content)
	}
	it.held, it.heldSize = nil, 0
}

// madeID returns the id of an item made of part of message it.
func (it *rsItem) madeID() []byte {
	it.made++
	return strconv.AppendInt(append(bytes.Clone(it.id), '_'), int64(it.made), 10)
}

// openPart makes sure p is open in the open piece.
func (s *rsStream) openPart(p *rsPart) {
	if p.ci >= 0 {
		return
	}
	it := p.it
	p.ci, it.nparts, p.acc = it.nparts, it.nparts+1, p.acc[:0]
	if p.added.data != nil {
		s.send(p.added.raw, p.added.data, rsTarget{out: it.out, id: it.curID, ci: p.ci}, nil)
		p.added = rsHeld{}
		return
	}
	s.putPart("response.content_part.added", it.curID, it.out, p.ci, []byte(`,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""}`))
}

// closePiece ends the open piece of it with the given status, sending the
// done events of its parts and of the item.
func (s *rsStream) closePiece(it *rsItem, status string) {
	if it.open != runText {
		return
	}
	for _, p := range it.parts {
		if p.ci < 0 || p.closed || !p.text {
			continue
		}
		s.putPart("response.output_text.done", it.curID, it.out, p.ci, member("text", p.acc), noLogprobs)
		s.putPart("response.content_part.done", it.curID, it.out, p.ci, []byte(`,"part":`), textPartJSON(nil, p.acc))
		p.closed = true
	}
	item := messageJSON(nil, it.curID, status, s.pieceContent(it))
	s.putItem("response.output_item.done", it.out, item)
	s.outs[it.out].json = item
	it.open, it.changed, s.changed = runNone, true, true
}

// pieceContent returns the content array of the open piece (its text
// parts made anew: annotations and logprobs no longer fit the text).
func (s *rsStream) pieceContent(it *rsItem) []byte {
	var pjs [][]byte
	for _, p := range it.parts {
		switch {
		case p.ci >= 0 && p.text:
			pjs = append(pjs, textPartJSON(nil, p.acc))
		case p.ci >= 0 && p.json != nil:
			pjs = append(pjs, p.json)
		}
	}
	return jsonArray(pjs)
}

// closeReasoning ends the open reasoning item of it.
func (s *rsStream) closeReasoning(it *rsItem) {
	if it.open != runReasoning {
		return
	}
	s.putPart("response.reasoning_text.done", it.curID, it.out, 0, member("text", it.rsText))
	pj := reasoningPartJSON(nil, it.rsText)
	s.putPart("response.content_part.done", it.curID, it.out, 0, []byte(`,"part":`), pj)
	item := reasoningJSON(nil, it.curID, "completed", jsonArray([][]byte{pj}))
	s.putItem("response.output_item.done", it.out, item)
	s.outs[it.out].json = item
	it.open = runNone
}

// sink methods for the current part.

func (s *rsStream) text(b []byte) { s.textOut(s.cur, nil, nil, b) }

// split ends the open piece of the current message before an item made of
// markup, and forgets its held blank text.
func (s *rsStream) split() *rsItem {
	it := s.cur.it
	s.closePiece(it, "completed")
	it.held, it.heldSize = nil, 0
	it.changed, s.changed = true, true
	return it
}

func (s *rsStream) reasoning(t []byte) {
	it := s.split()
	if it.open != runReasoning {
		it.out, it.curID = s.newOut(-1), it.madeID()
		it.open, it.rsText = runReasoning, it.rsText[:0]
		s.putItem("response.output_item.added", it.out, reasoningJSON(nil, it.curID, "in_progress", []byte("[]")))
		s.putPart("response.content_part.added", it.curID, it.out, 0, []byte(`,"part":{"type":"reasoning_text","text":""}`))
	}
	s.putPart("response.reasoning_text.delta", it.curID, it.out, 0, member("delta", t))
	it.rsText = append(it.rsText, t...)
}

func (s *rsStream) call(e *toolsieve.Event) {
	sc := streamedCall{id: e.ID, name: e.Name, args: callArgs(e)}
	s.callStart(&sc)
	s.callDelta(&sc, sc.args)
	s.callEnd(&sc)
}

// callStart opens a streamed call's function_call item.
func (s *rsStream) callStart(sc *streamedCall) {
	it := s.split()
	s.closeReasoning(it)
	sc.out, sc.item = s.newOut(-1), idBody("fc_"+sc.id)
	s.putItem("response.output_item.added", sc.out, appendResponsesCall(nil, sc.item, callOut{id: sc.id, name: sc.name}, "in_progress", false))
}

// callDelta sends a piece of a streamed call's arguments.
func (s *rsStream) callDelta(sc *streamedCall, piece []byte) {
	s.putPart("response.function_call_arguments.delta", sc.item, sc.out, -1, member("delta", piece))
}

// callEnd sends a streamed call's arguments whole and its item, done.
func (s *rsStream) callEnd(sc *streamedCall) {
	c := callOut{id: sc.id, name: sc.name, args: sc.args}
	s.putPart("response.function_call_arguments.done", sc.item, sc.out, -1, member("arguments", c.args))
	item := appendResponsesCall(nil, sc.item, c, "completed", true)
	s.putItem("response.output_item.done", sc.out, item)
	s.outs[sc.out].json = item
}

// endPart closes p's parser and sends what it held. It reports a runaway,
// or a batch that waits for the response's end (cut.go): ev, the upstream
// event that ended the part (nil: its end is known), waits with it.
func (s *rsStream) endPart(p *rsPart, ev *sse.Event) bool {
	evs := p.closing
	if evs != nil {
		p.closing = nil // replayed: its batch waited for the response's end
	} else if evs = p.p.Close(); ev != nil && closesCall(evs) {
		p.closing = cloneEvents(evs)
		s.wait = &cutWait{}
		s.wait.add(ev)
		return true
	}
	p.ended = true
	s.cur = p
	s.begin()
	if s.processEnd(s, &p.textChan, evs, s.waitCut || s.finalCut) {
		s.finish(true)
		return true
	}
	if s.clean {
		s.settle(s, &p.textChan, nil, true)
	}
	s.w.flushRun(s, &s.kind, &s.run)
	return false
}

// endParts ends the parsers of every message. It reports a runaway.
func (s *rsStream) endParts() bool {
	for _, it := range s.order {
		for _, p := range it.parts {
			if p.text && !p.ended && s.endPart(p, nil) {
				return true
			}
		}
	}
	return false
}

// partDone handles output_text.done and (part) content_part.done: the text
// they carry becomes what the piece got.
func (s *rsStream) partDone(ev *sse.Event, data []byte, part bool) {
	it, p := s.at(data, s.ms, 0)
	if p == nil {
		s.other(ev, data)
		return
	}
	if p.text && !p.ended && s.endPart(p, ev) {
		return
	}
	if p.ci < 0 || p.closed {
		if it.changed {
			it.held, it.heldSize = nil, 0 // nothing of it is open in the output: dropped
			return
		}
		s.openPiece(it)
		s.openPart(p)
	}
	tms := s.ms
	pm, hasPart := jsonspan.Lookup(data, s.ms, "part")
	if hasPart = part && hasPart; hasPart {
		tms, _ = s.w.ix.Members(data, pm.Start, nil)
	}
	var edits []jsonspan.Edit
	if tm, ok := jsonspan.Lookup(data, tms, "text"); ok && p.text && jsonspan.IsString(data, tm) {
		if !bytes.Equal(jsonspan.AppendUnquoted(s.w.scratch[:0], data[tm.Start:tm.End]), p.acc) {
			edits = append(edits, jsonspan.Edit{Start: tm.Start, End: tm.End, Repl: jsonspan.AppendQuoted(nil, p.acc)})
			it.changed, s.changed = true, true
		}
	}
	if hasPart && !p.text {
		p.json = bytes.Clone(data[pm.Start:pm.End])
	}
	p.closed = p.closed || part
	s.send(ev.Raw, data, rsTarget{out: it.out, id: it.curID, ci: p.ci}, edits)
}

func (s *rsStream) itemDone(ev *sse.Event, data []byte) {
	it := s.items[intMember(data, s.ms, "output_index", -1)]
	im, hasItem := jsonspan.Lookup(data, s.ms, "item")
	if it == nil || it.done || !hasItem {
		s.other(ev, data)
		return
	}
	if !it.msg {
		it.done = true
		s.outs[it.out].json = bytes.Clone(data[im.Start:im.End])
		s.send(ev.Raw, data, rsTarget{out: it.out, ci: -1}, nil)
		return
	}
	for _, p := range it.parts {
		if p.text && !p.ended && s.endPart(p, ev) {
			return
		}
	}
	s.closeReasoning(it)
	it.done = true
	if it.open != runText {
		if it.changed {
			return // the message made nothing but calls: dropped
		}
		s.openPiece(it)
	}
	it.open = runNone
	v := bytes.Clone(data[im.Start:im.End])
	var edits []jsonspan.Edit
	if it.changed {
		v = setMembers(v, "id", quoteBody(it.curID), "content", s.pieceContent(it))
		edits = append(edits, jsonspan.Edit{Start: im.Start, End: im.End, Repl: v})
	}
	s.outs[it.out].json = v
	s.send(ev.Raw, data, rsTarget{out: it.out, ci: -1}, edits)
}

// other passes on an event that is not about output_text, pointed at the
// item it is about in the output.
func (s *rsStream) other(ev *sse.Event, data []byte) {
	t := rsKeep
	it, p := s.at(data, s.ms, -1)
	switch {
	case it == nil:
	case !it.msg:
		t.out = it.out
	default:
		if it.open != runText && !it.done {
			s.openPiece(it)
		}
		t.out, t.id = it.out, it.curID
		if p != nil {
			t.ci = p.ci
		}
	}
	if tm, ok := jsonspan.Lookup(data, s.ms, "type"); ok && bytes.HasSuffix(jsonspan.StringBody(data, tm), []byte(".delta")) {
		s.w.showString(data, s.ms, "delta") // reasoning, refusal: shown as they are
	}
	s.send(ev.Raw, data, t, nil)
}

// final passes the response's final event on, its output as streamed;
// cut is set for a response that did not complete.
func (s *rsStream) final(ev *sse.Event, data []byte, cut bool) {
	s.finalCut = cut
	stop := s.endParts()
	s.finalCut = false
	if stop || s.w.stopped {
		return
	}
	var edits []jsonspan.Edit
	if s.changed {
		if rm, ok := jsonspan.Lookup(data, s.ms, "response"); ok {
			rms, _ := s.w.ix.Members(data, rm.Start, nil)
			if om, ok := jsonspan.Lookup(data, rms, "output"); ok {
				els, _ := s.w.ix.Elems(data, om.Start, nil)
				edits = append(edits, jsonspan.Edit{Start: om.Start, End: om.End, Repl: s.output(data, els)})
			}
		}
	}
	s.over = true
	s.send(ev.Raw, data, rsKeep, edits)
}

// output returns the output array as streamed; els are the upstream's
// (nil after a runaway). Items the stream never mentioned are kept.
func (s *rsStream) output(data []byte, els []jsonspan.Span) []byte {
	var vs [][]byte
	for _, o := range s.outs {
		v := o.json
		if o.up >= 0 && o.up < len(els) && !s.items[o.up].changed {
			v = data[els[o.up].Start:els[o.up].End]
		}
		if v != nil {
			vs = append(vs, v)
		}
	}
	for j, el := range els {
		if s.items[j] == nil {
			vs = append(vs, data[el.Start:el.End])
		}
	}
	return jsonArray(vs)
}

// finish ends the stream: at its end of input (the parsers' held text goes
// out), or after a runaway: what is open is closed and a
// response.incomplete ends the stream, as when the token limit cuts it.
func (s *rsStream) finish(runaway bool) {
	if s.w.fault != nil {
		return // the stream ends with an error, not as an answer
	}
	if s.over {
		return
	}
	if !runaway {
		// The response never said how it ended ([DONE] without a final
		// event, or the end of the stream): a call its end closed was cut.
		if s.wait != nil {
			s.resolve(true)
		}
		s.finalCut = true
		s.endParts()
		s.finalCut = false
		return
	}
	s.over = true
	cur := s.cur
	for _, it := range s.order {
		if !it.msg || it.done {
			continue
		}
		for _, p := range it.parts {
			if p.text && !p.ended && p != cur {
				s.endPart(p, nil) // another message's text so far
			}
		}
		s.closeReasoning(it)
		s.closePiece(it, "incomplete")
	}
	resp := s.resp
	if resp == nil {
		resp = []byte(`{"object":"response"}`)
	}
	resp = setMembers(resp, "status", []byte(`"incomplete"`), "incomplete_details", []byte(`{"reason":"max_output_tokens"}`), "output", s.output(nil, nil))
	s.put("response.incomplete", []byte(`,"response":`), resp)
}

// setMembers returns object obj (a JSON value that has members) with the
// members key, value (in pairs) set.
func setMembers(obj []byte, kv ...any) []byte {
	ms, _ := jsonspan.Members(obj, 0, nil)
	var edits []jsonspan.Edit
	for i := 0; i+1 < len(kv); i += 2 {
		edits = append(edits, jsonspan.SetMember(obj, ms, len(obj), kv[i].(string), kv[i+1].([]byte)))
	}
	jsonspan.SortEdits(edits)
	return jsonspan.Splice(nil, obj, edits)
}

// ---- item encodings ----

// idBody returns id as the body of a JSON string (ids are kept as bodies);
// quoteBody makes a body a JSON string again.
func idBody(id string) []byte {
	q := jsonspan.AppendQuoted(nil, id)
	return q[1 : len(q)-1]
}

func quoteBody(b []byte) []byte { return append(append([]byte{'"'}, b...), '"') }

// jsonArray joins JSON values into an array.
func jsonArray(vs [][]byte) []byte {
	return append(append([]byte{'['}, bytes.Join(vs, []byte{','})...), ']')
}

func textPartJSON(dst, text []byte) []byte {
	dst = append(dst, `{"type":"output_text","annotations":[],"logprobs":[],"text":`...)
	return append(jsonspan.AppendQuoted(dst, text), '}')
}

func reasoningPartJSON(dst, text []byte) []byte {
	dst = append(dst, `{"type":"reasoning_text","text":`...)
	return append(jsonspan.AppendQuoted(dst, text), '}')
}

// messageJSON encodes a message item; id is a JSON string body, content
// the content array.
func messageJSON(dst, id []byte, status string, content []byte) []byte {
	dst = append(append(append(dst, `{"id":"`...), id...), `","type":"message","status":"`...)
	dst = append(append(dst, status...), `","content":`...)
	return append(append(dst, content...), `,"role":"assistant"}`...)
}

func reasoningJSON(dst, id []byte, status string, content []byte) []byte {
	dst = append(append(append(dst, `{"id":"`...), id...), `","type":"reasoning","summary":[],"content":`...)
	return append(append(append(append(dst, content...), `,"status":"`...), status...), `"}`...)
}
