package chat

// Anthropic Messages: streams, whole responses, content reading and history
// cleaning (the anthropic codec).

import (
	"bytes"
	"strconv"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/sse"
)

// anStream rewrites an Anthropic Messages event stream. Content blocks are
// renumbered: a text block of the upstream may become several blocks of the
// output (text, tool_use, text again, thinking), so every later block moves.
type anStream struct {
	textFeed
	blocks map[int]*anBlock // by upstream index
	out    int              // next output block index
	calls  int
	tokens []byte // the last output_tokens value seen
	cur    *anBlock
	last   *anBlock // the last text block started
	// The end of the message: message_stop, or an error event.
	stopped, errored bool
	// wait holds what came after a text block's stop whose last batch
	// holds a call the end closed, until the stop reason tells whether
	// the model ended there (cut.go); waitCut is the verdict while the
	// held events are replayed.
	wait    *cutWait
	waitCut bool

	ms, dms, bms []jsonspan.Member
	edits        []jsonspan.Edit
	oedits       []jsonspan.Edit // original's, apart from the event's own edits
	tmp          []byte
}

// maxBlocks bounds the content blocks tracked per message.
const maxBlocks = 4096

// anBlock is one content block of the upstream.
type anBlock struct {
	textChan // the parser of a text block
	up       int
	text     bool // a text block, fed to a parser
	stopped  bool
	out      int // output index: of the block itself (not text), or of the open output block
	// open is what this text block has open in the output: a text block,
	// a thinking block made of reasoning markup, or nothing.
	open    runKind
	opened  bool // a text block was opened for it at least once
	hadCall bool
	// The upstream start event, sent when the first text arrives.
	startRaw, startData []byte
	// held are text deltas (whitespace only) that arrived while no text
	// block was open: a block is opened only for text that is not blank,
	// as the Messages API refuses blank text blocks in a conversation.
	held     []heldDelta
	heldSize int
}

// heldDelta is a text_delta event held back, with the span of its index.
type heldDelta struct {
	raw, data []byte
	is, ie    int
	pass      bool // an event passed on as it is (raw)
}

func (s *anStream) event(ev *sse.Event) {
	w := s.w
	data := ev.Data
	if s.wait != nil && s.waiting(ev) {
		return
	}
	if !w.validEvent(ev) {
		return
	}
	var ok bool
	s.ms, ok = w.ix.Members(data, 0, s.ms[:0])
	if !ok {
		w.out = append(w.out, ev.Raw...)
		return
	}
	typ := ev.Type
	if m, has := jsonspan.Lookup(data, s.ms, "type"); has && jsonspan.IsString(data, m) {
		typ = string(jsonspan.StringBody(data, m))
	}
	s.edits = s.edits[:0]
	switch typ {
	case "content_block_start":
		s.blockStart(ev, data)
	case "content_block_delta":
		s.blockDelta(ev, data)
	case "content_block_stop":
		s.blockStop(ev, data)
	case "message_delta":
		reason, sm, hasReason := stopReason(data, s.ms, &s.dms)
		s.closeTextBlocks(!hasReason || !naturalEnd(reason))
		if w.stopped {
			return
		}
		if hasReason && s.calls > 0 && w.stats.Truncated == 0 && !keepsFinish(reason) {
			s.edits = append(s.edits, jsonspan.Edit{Start: sm.Start, End: sm.End, Repl: []byte(`"tool_use"`)})
		}
		s.noteTokens(data, s.ms)
		w.emitEdited(ev, s.edits)
	case "message_start":
		if mm, has := jsonspan.Lookup(data, s.ms, "message"); has {
			if s.dms, ok = s.w.ix.Members(data, mm.Start, s.dms[:0]); ok {
				s.noteTokens(data, s.dms)
			}
		}
		w.out = append(w.out, ev.Raw...)
	default: // message_stop, ping, error, unknown
		switch typ {
		case "message_stop":
			s.stopped = true
		case "error":
			s.errored, w.stats.UpstreamError = true, true
		}
		if typ != "message_stop" && s.holdPass(ev) {
			return
		}
		w.out = append(w.out, ev.Raw...)
	}
}

// stopReason reads the stop_reason of a message_delta (ms its members,
// dms scratch): its value when it is a string, and its span.
func stopReason(data []byte, ms []jsonspan.Member, dms *[]jsonspan.Member) ([]byte, jsonspan.Member, bool) {
	dm, has := jsonspan.Lookup(data, ms, "delta")
	if !has {
		return nil, jsonspan.Member{}, false
	}
	var ok bool
	if *dms, ok = jsonspan.Members(data, dm.Start, (*dms)[:0]); !ok {
		return nil, jsonspan.Member{}, false
	}
	m, has := jsonspan.Lookup(data, *dms, "stop_reason")
	if !has || !jsonspan.IsString(data, m) {
		return nil, m, false
	}
	return jsonspan.StringBody(data, m), m, true
}

// ended reports message_stop or an error event.
func (s *anStream) ended() bool { return s.stopped || s.errored }

// waiting handles an event that comes while a text block's end waits for
// the stop reason (cut.go): the next block's start says the model went on
// (it ended the block itself), a message_delta says it with its stop
// reason, message_stop, an error or too much in between say it was cut.
// Other events wait too. It reports an event that was held.
func (s *anStream) waiting(ev *sse.Event) bool {
	typ, data, ms := eventType(ev)
	cut := true
	switch typ {
	case "content_block_start":
		cut = false
	case "message_delta":
		var dms []jsonspan.Member
		reason, _, has := stopReason(data, ms, &dms)
		cut = !has || !naturalEnd(reason)
	case "message_stop", "error":
	default:
		if !s.wait.add(ev) {
			s.resolve(true) // too much in between: taken as cut (ev is replayed with the rest)
		}
		return true
	}
	s.resolve(cut)
	return s.w.stopped // a runaway ended the stream while replaying
}

// resolve replays the events held by the wait with its verdict: first the
// stop of the text block whose batch waited, then what followed it.
func (s *anStream) resolve(cut bool) {
	q := s.wait
	s.wait, s.waitCut = nil, cut
	for i := range q.evs {
		if s.w.stopped {
			break
		}
		s.w.arena = s.w.arena[:0]
		s.w.ix.Reset()
		s.event(&q.evs[i])
	}
	s.waitCut = false
}

// noteTokens remembers usage.output_tokens for a message_delta made up
// after a runaway.
func (s *anStream) noteTokens(data []byte, ms []jsonspan.Member) {
	s.w.noteUsage(data, ms)
	um, has := jsonspan.Lookup(data, ms, "usage")
	if !has {
		return
	}
	ums, ok := s.w.ix.Members(data, um.Start, nil)
	if !ok {
		return
	}
	if m, has := jsonspan.Lookup(data, ums, "output_tokens"); has {
		s.tokens = append(s.tokens[:0], data[m.Start:m.End]...)
	}
}

// upIndex reads the event's index.
func (s *anStream) upIndex(data []byte) (jsonspan.Member, int, bool) {
	m, has := jsonspan.Lookup(data, s.ms, "index")
	if !has {
		return m, 0, false
	}
	i, ok := jsonspan.Int(data, m)
	return m, i, ok
}

// reindex adds the edit that changes an event's index to out.
func (s *anStream) reindex(data []byte, m jsonspan.Member, up, out int) {
	if up != out {
		s.edits = append(s.edits, jsonspan.Edit{Start: m.Start, End: m.End, Repl: s.w.keepInt(out)})
	}
}

func (s *anStream) blockStart(ev *sse.Event, data []byte) {
	w := s.w
	im, up, ok := s.upIndex(data)
	if !ok {
		w.out = append(w.out, ev.Raw...)
		return
	}
	if s.blocks == nil {
		s.blocks = map[int]*anBlock{}
	}
	if len(s.blocks) >= maxBlocks {
		w.reportError("too many content blocks; passed through", ev.Offset)
		w.out = append(w.out, ev.Raw...)
		return
	}
	b := &anBlock{up: up}
	s.blocks[up] = b
	cb, has := jsonspan.Lookup(data, s.ms, "content_block")
	var initial []byte
	s.bms = s.bms[:0]
	if has {
		if s.bms, ok = s.w.ix.Members(data, cb.Start, s.bms[:0]); ok {
			m, has := jsonspan.Lookup(data, s.bms, "type")
			s.w.noteNative(jsonspan.StringBody(data, m))
			if has && string(jsonspan.StringBody(data, m)) == "text" {
				b.text = true
				if tm, has := jsonspan.Lookup(data, s.bms, "text"); has && jsonspan.IsString(data, tm) && tm.End-tm.Start > 2 {
					initial = jsonspan.AppendUnquoted(nil, data[tm.Start:tm.End])
					s.edits = append(s.edits, jsonspan.Edit{Start: tm.Start, End: tm.End, Repl: []byte(`""`)})
				}
			}
		}
	}
	if !b.text {
		if m, has := jsonspan.Lookup(data, s.bms, "type"); has && string(jsonspan.StringBody(data, m)) == "redacted_thinking" {
			w.stats.Shown = true
		}
		w.showString(data, s.bms, "thinking")
		b.out = s.out
		s.out++
		s.reindex(data, im, up, b.out)
		w.emitEdited(ev, s.edits)
		return
	}
	b.p = w.newParser(true, up)
	s.last = b
	if len(s.edits) > 0 {
		b.startData = jsonspan.Splice(nil, data, s.edits)
	} else {
		b.startRaw = bytes.Clone(ev.Raw)
		b.startData = bytes.Clone(data)
	}
	if len(initial) > 0 {
		s.feedText(b, nil, initial)
	}
}

func (s *anStream) blockDelta(ev *sse.Event, data []byte) {
	w := s.w
	im, up, ok := s.upIndex(data)
	b := s.blocks[up]
	if !ok || b == nil || b.stopped && b.text {
		w.out = append(w.out, ev.Raw...)
		return
	}
	dm, has := jsonspan.Lookup(data, s.ms, "delta")
	if !b.text {
		if has && !w.stats.Shown {
			if s.dms, ok = s.w.ix.Members(data, dm.Start, s.dms[:0]); ok {
				w.showString(data, s.dms, "thinking")
			}
		}
		s.reindex(data, im, up, b.out)
		w.emitEdited(ev, s.edits)
		return
	}
	if has {
		s.dms, ok = s.w.ix.Members(data, dm.Start, s.dms[:0])
		has = ok
	}
	var tm jsonspan.Member
	if has {
		var isText bool
		if m, ok := jsonspan.Lookup(data, s.dms, "type"); ok {
			isText = string(jsonspan.StringBody(data, m)) == "text_delta"
		}
		tm, ok = jsonspan.Lookup(data, s.dms, "text")
		has = isText && ok && jsonspan.IsString(data, tm)
	}
	if !has {
		// citations and other deltas of the text block: into the open text block.
		s.cur = b
		s.openText(b)
		s.reindex(data, im, up, b.out)
		w.emitEdited(ev, s.edits)
		return
	}
	s.in = jsonspan.AppendUnquoted(s.in[:0], data[tm.Start:tm.End])
	s.feedText(b, &editable{ev: ev, data: data, im: im, tm: tm}, s.in)
}

// editable is the upstream text_delta event that carries the last text run.
type editable struct {
	ev     *sse.Event
	data   []byte
	im, tm jsonspan.Member
}

// feedText feeds text of block b to its parser and sends what comes out.
// The last text run goes into the upstream event e when there is one.
func (s *anStream) feedText(b *anBlock, e *editable, text []byte) {
	w := s.w
	s.cur = b
	s.begin()
	if s.process(s, &b.textChan, b.p.Feed(text)) {
		s.finish(true)
		return
	}
	if s.clean {
		// Only text came out: the upstream event can go out as it is once
		// all of its text has been released.
		if e != nil && len(b.carry) == 0 && wholeChars(text) && len(e.ev.Raw) <= maxHeldBytes {
			s.hold(s, &b.textChan, e.ev, text, e.im)
			return
		}
		s.settle(s, &b.textChan, nil, false)
	}
	run := s.lastRun(s, &b.textChan, false)
	if e == nil {
		if len(run) > 0 {
			s.text2(b, run)
		}
		return
	}
	same := bytes.Equal(run, text)
	if len(run) == 0 && !same {
		return
	}
	if !same {
		s.edits = append(s.edits, jsonspan.Edit{Start: e.tm.Start, End: e.tm.End, Repl: w.keepQuoted(run)})
	}
	if b.open != runText && isBlank(run) {
		if b.heldSize+len(e.data) <= maxHeldBytes {
			d := jsonspan.Splice(nil, e.data, s.sorted())
			// the index span in d: the edits above are all after it or
			// are the index itself, which is not edited yet.
			h := heldDelta{data: d, is: e.im.Start, ie: e.im.End}
			if !same {
				h.is, h.ie = shiftSpan(e.im, s.edits)
			} else {
				h.raw = bytes.Clone(e.ev.Raw)
			}
			b.held = append(b.held, h)
			b.heldSize += len(d)
			return
		}
	}
	if b.open == runReasoning {
		s.closeOpen(b)
	}
	s.openText(b)
	s.reindex(e.data, e.im, b.up, b.out)
	w.emitEdited(e.ev, s.edits)
}

// original sends an upstream text delta of the current block whose text
// is unchanged.
func (s *anStream) original(qe queued) {
	w := s.w
	b := s.cur
	if b.open != runText && isBlank(qe.content) && b.heldSize+len(qe.raw) <= maxHeldBytes {
		b.held = append(b.held, heldDelta{raw: bytes.Clone(qe.raw), data: bytes.Clone(qe.data), is: qe.idx.Start, ie: qe.idx.End})
		b.heldSize += len(qe.raw)
		return
	}
	s.openText(b)
	if b.out == b.up {
		w.out = append(w.out, qe.raw...)
		return
	}
	s.oedits = append(s.oedits[:0], jsonspan.Edit{Start: qe.idx.Start, End: qe.idx.End, Repl: w.keepInt(b.out)})
	w.data = jsonspan.Splice(w.data[:0], qe.data, s.oedits)
	w.emitEvent("content_block_delta", w.data)
}

// sorted returns the edits sorted.
func (s *anStream) sorted() []jsonspan.Edit {
	jsonspan.SortEdits(s.edits)
	return s.edits
}

// shiftSpan returns the span of member m after edits that may come before
// it are applied.
func shiftSpan(m jsonspan.Member, edits []jsonspan.Edit) (int, int) {
	d := 0
	for _, e := range edits {
		if e.End <= m.Start {
			d += len(e.Repl) - (e.End - e.Start)
		}
	}
	return m.Start + d, m.End + d
}

// text2 sends a text run of b as a made-up delta (not the last run of an
// upstream event).
func (s *anStream) text2(b *anBlock, run []byte) {
	const pre = `{"type":"content_block_delta","index":`
	if b.open != runText && isBlank(run) && b.heldSize+len(run) <= maxHeldBytes {
		// Blank text while no text block is open: held, and dropped if a
		// call or thinking comes before text that is not blank.
		d := jsonspan.AppendQuoted([]byte(pre+`0,"delta":{"type":"text_delta","text":`), run)
		d = append(d, "}}"...)
		b.held = append(b.held, heldDelta{data: d, is: len(pre), ie: len(pre) + 1})
		b.heldSize += len(d)
		return
	}
	s.openText(b)
	s.deltaBlock(b.out, "text_delta", "text", run)
}

// sink methods for the current block.

func (s *anStream) text(b []byte) { s.text2(s.cur, b) }

func (s *anStream) reasoning(t []byte) {
	b := s.cur
	if b.open == runText {
		s.closeOpen(b)
	}
	s.dropHeld(b)
	if b.open != runReasoning {
		b.out = s.out
		s.out++
		b.open = runReasoning
		s.startBlock(b.out, []byte(`{"type":"thinking","thinking":"","signature":""}`))
	}
	s.deltaBlock(b.out, "thinking_delta", "thinking", t)
}

func (s *anStream) call(e *toolsieve.Event) {
	sc := streamedCall{id: e.ID, name: e.Name}
	s.callStart(&sc)
	s.callDelta(&sc, callArgs(e))
	s.callEnd(&sc)
}

// callStart opens a streamed call's tool_use block.
func (s *anStream) callStart(sc *streamedCall) {
	b := s.cur
	s.closeOpen(b)
	s.dropHeld(b)
	b.hadCall = true
	sc.out = s.out
	s.out++
	s.startBlock(sc.out, appendToolUse(nil, callOut{id: sc.id, name: sc.name}, false))
}

// callDelta sends a piece of a streamed call's input.
func (s *anStream) callDelta(sc *streamedCall, piece []byte) {
	s.deltaBlock(sc.out, "input_json_delta", "partial_json", piece)
}

// callEnd closes a streamed call's block.
func (s *anStream) callEnd(sc *streamedCall) {
	s.calls++
	s.stopBlock(sc.out)
}

// startBlock sends the content_block_start of output block idx, holding
// the JSON object block.
func (s *anStream) startBlock(idx int, block []byte) {
	s.tmp = append(s.tmp[:0], `{"type":"content_block_start","index":`...)
	s.tmp = strconv.AppendInt(s.tmp, int64(idx), 10)
	s.tmp = append(append(append(s.tmp, `,"content_block":`...), block...), '}')
	s.w.emitEvent("content_block_start", s.tmp)
}

// deltaBlock sends a content_block_delta of output block idx: a delta of
// type typ whose member field is the string v.
func (s *anStream) deltaBlock(idx int, typ, field string, v []byte) {
	s.tmp = append(s.tmp[:0], `{"type":"content_block_delta","index":`...)
	s.tmp = strconv.AppendInt(s.tmp, int64(idx), 10)
	s.tmp = append(append(append(append(s.tmp, `,"delta":{"type":"`...), typ...), `","`...), field...)
	s.tmp = jsonspan.AppendQuoted(append(s.tmp, `":`...), v)
	s.tmp = append(s.tmp, "}}"...)
	s.w.emitEvent("content_block_delta", s.tmp)
}

func (s *anStream) stopBlock(idx int) {
	s.tmp = append(s.tmp[:0], `{"type":"content_block_stop","index":`...)
	s.tmp = strconv.AppendInt(s.tmp, int64(idx), 10)
	s.tmp = append(s.tmp, '}')
	s.w.emitEvent("content_block_stop", s.tmp)
}

// openText makes sure b has a text block open in the output, sending the
// upstream start event (the first time) and any held deltas.
func (s *anStream) openText(b *anBlock) {
	if b.open == runText {
		return
	}
	w := s.w
	if b.open == runReasoning {
		s.closeOpen(b)
	}
	b.out = s.out
	s.out++
	b.open = runText
	if !b.opened && b.startData != nil {
		if b.startRaw != nil && b.out == b.up {
			w.out = append(w.out, b.startRaw...)
		} else {
			ms, _ := jsonspan.Members(b.startData, 0, nil)
			var es []jsonspan.Edit
			if m, has := jsonspan.Lookup(b.startData, ms, "index"); has && b.out != b.up {
				es = append(es, jsonspan.Edit{Start: m.Start, End: m.End, Repl: strconv.AppendInt(nil, int64(b.out), 10)})
			}
			w.emitEvent("content_block_start", jsonspan.Splice(nil, b.startData, es))
		}
	} else {
		s.startBlock(b.out, []byte(`{"type":"text","text":""}`))
	}
	b.opened = true
	for _, h := range b.held {
		if h.pass || h.raw != nil && b.out == b.up {
			w.out = append(w.out, h.raw...)
			continue
		}
		w.data = jsonspan.Splice(w.data[:0], h.data, []jsonspan.Edit{{Start: h.is, End: h.ie, Repl: w.keepInt(b.out)}})
		w.emitEvent("content_block_delta", w.data)
	}
	b.held, b.heldSize = nil, 0
}

// dropHeld forgets the blank text held by b, sending the other events
// held with it.
func (s *anStream) dropHeld(b *anBlock) {
	for _, h := range b.held {
		if h.pass {
			s.w.out = append(s.w.out, h.raw...)
		}
	}
	b.held, b.heldSize = nil, 0
}

// holdPass queues an event that is not about content (a ping) behind the
// text held by the last text block, so that a plain stream keeps its order.
func (s *anStream) holdPass(ev *sse.Event) bool {
	b := s.last
	if b == nil || b.stopped || b.open != runNone || b.opened && len(b.held) == 0 || b.heldSize+len(ev.Raw) > maxHeldBytes {
		return false
	}
	b.held = append(b.held, heldDelta{raw: bytes.Clone(ev.Raw), pass: true})
	b.heldSize += len(ev.Raw)
	return true
}

// closeOpen closes the output block b has open, if any.
func (s *anStream) closeOpen(b *anBlock) {
	if b.open != runNone {
		s.stopBlock(b.out)
		b.open = runNone
	}
}

func (s *anStream) blockStop(ev *sse.Event, data []byte) {
	w := s.w
	im, up, ok := s.upIndex(data)
	b := s.blocks[up]
	if !ok || b == nil || b.stopped {
		w.out = append(w.out, ev.Raw...)
		return
	}
	if !b.text {
		b.stopped = true
		s.reindex(data, im, up, b.out)
		w.emitEdited(ev, s.edits)
		return
	}
	evs, cut := b.closing, s.waitCut
	if evs != nil {
		b.closing = nil // replayed: its batch waited for the stop reason
	} else if evs = b.p.Close(); closesCall(evs) {
		// The stop reason, still to come, says whether the call the end
		// of the block closed is the model's.
		b.closing = cloneEvents(evs)
		s.wait = &cutWait{}
		s.wait.add(ev)
		return
	}
	b.stopped = true
	if s.endBatch(b, evs, cut) {
		return
	}
	switch {
	case b.open == runText:
		b.open = runNone
		s.reindex(data, im, up, b.out)
		w.emitEdited(ev, s.edits)
	case b.open == runReasoning:
		s.closeOpen(b)
	case !b.opened && !b.hadCall:
		// Nothing but blank text (or nothing): the block as it came.
		s.openText(b)
		b.open = runNone
		s.reindex(data, im, up, b.out)
		w.emitEdited(ev, s.edits)
	}
	s.dropHeld(b)
}

// endText closes b's parser and sends what it held; cut says the message
// was cut (cut.go). It reports a runaway.
func (s *anStream) endText(b *anBlock, cut bool) bool {
	return s.endBatch(b, b.p.Close(), cut)
}

// endBatch sends what the last batch of b's parser holds.
func (s *anStream) endBatch(b *anBlock, evs []toolsieve.Event, cut bool) bool {
	s.cur = b
	s.begin()
	if s.processEnd(s, &b.textChan, evs, cut) {
		s.finish(true)
		return true
	}
	if s.clean {
		s.settle(s, &b.textChan, nil, true)
	}
	s.w.flushRun(s, &s.kind, &s.run)
	return false
}

// closeTextBlocks ends text blocks that were never stopped (before
// message_delta, whose stop reason says whether the message was cut).
func (s *anStream) closeTextBlocks(cut bool) {
	for _, b := range s.sortedBlocks() {
		if b.text && !b.stopped {
			b.stopped = true
			if s.endText(b, cut) {
				return
			}
			s.closeOpen(b)
		}
	}
}

// sortedBlocks returns the blocks in upstream order.
func (s *anStream) sortedBlocks() []*anBlock {
	bs := make([]*anBlock, 0, len(s.blocks))
	for _, b := range s.blocks {
		bs = append(bs, b)
	}
	for i := 1; i < len(bs); i++ {
		for j := i; j > 0 && bs[j].up < bs[j-1].up; j-- {
			bs[j], bs[j-1] = bs[j-1], bs[j]
		}
	}
	return bs
}

// finish ends the stream at its end of input, or cleanly after a runaway:
// open blocks are stopped and a message_delta and message_stop follow.
func (s *anStream) finish(runaway bool) {
	if s.w.fault != nil {
		return // the stream ends with an error, not as an answer
	}
	if !runaway {
		if s.wait != nil {
			s.resolve(true) // no stop reason came
		}
		for _, b := range s.sortedBlocks() {
			if b.text && !b.stopped {
				b.stopped = true
				if s.endText(b, true) { // no message_delta came to say how it ended
					return
				}
			}
		}
		return
	}
	for _, b := range s.sortedBlocks() {
		switch {
		case b.stopped:
		case b.text && b == s.cur:
			s.closeOpen(b)
		case b.text:
			b.stopped = true
			s.cur = b
			s.materialize(s, &b.textChan)
			s.kind = runNone
			s.startRun(&b.textChan, nil)
			if !s.w.runs(b.p.Close(), s, &b.textChan, &s.kind, &s.run) {
				s.w.flushRun(s, &s.kind, &s.run)
			}
			s.closeOpen(b)
		default:
			s.stopBlock(b.out)
		}
		b.stopped = true
	}
	// The answer was cut short by a loop: as when the token limit cuts it
	// (calls completed before the loop went out).
	const reason = "max_tokens"
	tokens := s.tokens
	if len(tokens) == 0 {
		tokens = []byte("0")
	}
	s.tmp = append(s.tmp[:0], `{"type":"message_delta","delta":{"stop_reason":"`...)
	s.tmp = append(s.tmp, reason...)
	s.tmp = append(s.tmp, `","stop_sequence":null},"usage":{"output_tokens":`...)
	s.tmp = append(s.tmp, tokens...)
	s.tmp = append(s.tmp, "}}"...)
	s.w.emitEvent("message_delta", s.tmp)
	s.w.emitEvent("message_stop", []byte(`{"type":"message_stop"}`))
}

// ---- whole responses, content reading and history ----

// anthropic is the API's codec (see apiCodec).
type anthropic struct{}

func (anthropic) newStream(w *streamRewriter) apiStream { return &anStream{textFeed: textFeed{w: w}} }

func (anthropic) historyKey() string { return "messages" }

func (anthropic) rewriteDoc(w *streamRewriter, dst, doc []byte) ([]byte, bool) {
	ms, els, ok := w.docArray(doc, "content")
	if !ok {
		return dst, false
	}
	var edits []jsonspan.Edit
	calls, cut, truncated := 0, false, false // cut: a runaway cut a text block
	sm, hasStop := jsonspan.Lookup(doc, ms, "stop_reason")
	// Only the last block can have been cut by the limit: the model went
	// on after the others.
	limited := hasStop && jsonspan.IsString(doc, sm) && !naturalEnd(jsonspan.StringBody(doc, sm))
	for k, el := range els {
		bms, ok := jsonspan.Members(doc, el.Start, nil)
		if !ok {
			continue
		}
		tm, has := jsonspan.Lookup(doc, bms, "type")
		w.noteNative(jsonspan.StringBody(doc, tm))
		if !has || string(jsonspan.StringBody(doc, tm)) != "text" {
			continue
		}
		xm, has := jsonspan.Lookup(doc, bms, "text")
		if !has || !jsonspan.IsString(doc, xm) {
			continue
		}
		text := jsonspan.AppendUnquoted(nil, doc[xm.Start:xm.End])
		d, stop := w.parseDoc(text, true, k, limited && k == len(els)-1)
		cut = cut || stop
		truncated = truncated || d.cut
		if len(d.pieces) == 1 && d.pieces[0].kind == runText && bytes.Equal(d.pieces[0].b, text) {
			continue
		}
		calls += len(d.calls)
		var repl []byte
		first := true
		for _, pc := range d.pieces {
			switch pc.kind {
			case runText:
				if len(d.calls) > 0 && isBlank(pc.b) || len(pc.b) == 0 {
					continue
				}
				if !first {
					repl = append(repl, ',')
				}
				// The first text piece keeps the block's other fields.
				if len(repl) == 0 {
					repl = jsonspan.Splice(repl, doc[el.Start:el.End], []jsonspan.Edit{{Start: xm.Start - el.Start, End: xm.End - el.Start, Repl: jsonspan.AppendQuoted(nil, pc.b)}})
				} else {
					repl = jsonspan.AppendQuoted(append(repl, `{"type":"text","text":`...), pc.b)
					repl = append(repl, '}')
				}
			case runReasoning:
				if !first {
					repl = append(repl, ',')
				}
				repl = jsonspan.AppendQuoted(append(repl, `{"type":"thinking","thinking":`...), pc.b)
				repl = append(repl, `,"signature":""}`...)
			default:
				if !first {
					repl = append(repl, ',')
				}
				repl = appendToolUse(repl, pc.call, true)
			}
			first = false
		}
		if len(repl) == 0 {
			// The whole block was markup that made nothing: drop it with a comma.
			if k+1 < len(els) {
				edits = append(edits, jsonspan.Edit{Start: el.Start, End: els[k+1].Start, Repl: nil})
			} else if k > 0 {
				edits = append(edits, jsonspan.Edit{Start: els[k-1].End, End: el.End, Repl: nil})
			} else {
				edits = append(edits, jsonspan.Edit{Start: el.Start, End: el.End, Repl: nil})
			}
			continue
		}
		edits = append(edits, jsonspan.Edit{Start: el.Start, End: el.End, Repl: repl})
	}
	if hasStop {
		switch {
		case cut:
			edits = append(edits, jsonspan.Edit{Start: sm.Start, End: sm.End, Repl: []byte(`"max_tokens"`)})
		case calls > 0 && !truncated && !keepsFinish(jsonspan.StringBody(doc, sm)):
			edits = append(edits, jsonspan.Edit{Start: sm.Start, End: sm.End, Repl: []byte(`"tool_use"`)})
		}
	}
	if len(edits) == 0 {
		return dst, false
	}
	jsonspan.SortEdits(edits)
	return jsonspan.Splice(dst, doc, edits), true
}

func (anthropic) content(c *ContentReader, data []byte, ms []jsonspan.Member) {
	tm, _ := jsonspan.Lookup(data, ms, "type")
	if string(jsonspan.StringBody(data, tm)) != "content_block_delta" {
		return
	}
	dm, has := jsonspan.Lookup(data, ms, "delta")
	if !has {
		return
	}
	dms, ok := jsonspan.Members(data, dm.Start, nil)
	if !ok {
		return
	}
	typ, _ := jsonspan.Lookup(data, dms, "type")
	switch string(jsonspan.StringBody(data, typ)) {
	case "text_delta":
		if m, has := jsonspan.Lookup(data, dms, "text"); has && jsonspan.IsString(data, m) {
			c.content = jsonspan.AppendUnquoted(c.content, data[m.Start:m.End])
		}
	case "thinking_delta":
		if m, has := jsonspan.Lookup(data, dms, "thinking"); has && jsonspan.IsString(data, m) {
			c.events = append(c.events, toolsieve.Event{Type: toolsieve.Reasoning, Text: jsonspan.AppendUnquoted(nil, data[m.Start:m.End]), Offset: -1})
		}
	}
}

// responseText reads the text and thinking blocks of a message (a body of
// type "message", or of role "assistant", with a content array).
func (anthropic) responseText(t *DocText, doc []byte, ms []jsonspan.Member) bool {
	tm, _ := jsonspan.Lookup(doc, ms, "type")
	rm, _ := jsonspan.Lookup(doc, ms, "role")
	cm, has := jsonspan.Lookup(doc, ms, "content")
	isMsg := string(jsonspan.StringBody(doc, tm)) == "message" || string(jsonspan.StringBody(doc, rm)) == "assistant"
	if !isMsg || !has || doc[cm.Start] != '[' {
		return false
	}
	readBlocks(t, doc, cm.Start)
	return true
}

func (anthropic) cleanMessage(h *historyCleaner, k int) {
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
