package chat

// OpenAI chat completions: streams, whole responses, content reading and
// history cleaning (the openAI codec).

import (
	"bytes"
	"strconv"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/sse"
)

// oaStream rewrites an OpenAI chat.completion.chunk stream.
type oaStream struct {
	textFeed
	choices []*oaChoice
	last    []byte  // the data of the last chunk with choices, or of one that differs from it only in content
	tmpl    []byte  // made of last when a chunk is made up: its top-level members but choices and usage, as `{...,`
	tmplOK  bool    // tmpl is made of last
	shape   oaShape // the shape of the last chunk of content only (openai_shape.go)
	typ     string  // the SSE event name the upstream uses (normally none)
	cur     *oaChoice
	done    bool // [DONE] came
	errored bool // the upstream sent an error chunk

	ms, cms, dms, tms, fms []jsonspan.Member
	lms                    []jsonspan.Member // the members of last, for tmpl
	els, tels              []jsonspan.Span
	edits                  []jsonspan.Edit
	tmp                    []byte
}

// maxChoices bounds the choices tracked per stream (the API allows 128).
const maxChoices = 128

// oaChoice is the state of one choice of the stream.
type oaChoice struct {
	textChan
	index    int
	closed   bool // finished: the parser is closed
	calls    int  // recovered calls
	nextTool int  // next tool_calls index of the output
	native   []*nativeCall
}

// nativeCall is a tool call the upstream sent natively. Its arguments pass
// through, unless they start with markup: then they are held until the
// call ends and sent as the JSON that ArgumentsFromMarkup makes of them.
type nativeCall struct {
	up, out int
	name    []byte
	mode    uint8
	buf     []byte
}

const (
	argsUndecided uint8 = iota
	argsJSON
	argsMarkup
	argsDone
)

func (s *oaStream) choice(i int) *oaChoice {
	if i < 0 || i >= maxChoices {
		return nil
	}
	for len(s.choices) <= i {
		s.choices = append(s.choices, nil)
	}
	if s.choices[i] == nil {
		s.choices[i] = &oaChoice{index: i, textChan: textChan{p: s.w.newParser(false, i), q: textQueue{rawOnly: true}}} // original sends raw
	}
	return s.choices[i]
}

// event rewrites one data event.
func (s *oaStream) event(ev *sse.Event) {
	w := s.w
	data := ev.Data
	if (len(data) == 0 || data[0] != '{') && string(bytes.TrimSpace(data)) == "[DONE]" { // a chunk is not trimmed
		s.done = true
		s.finish(false)
		w.out = append(w.out, ev.Raw...)
		return
	}
	if s.sameShape(ev) {
		return // more content for the chunk shape seen last (openai_shape.go)
	}
	if !w.validEvent(ev) {
		return
	}
	var ok bool
	s.ms, ok = w.ix.Members(data, 0, s.ms[:0])
	cm, has := jsonspan.Lookup(data, s.ms, "choices")
	if !ok || !has {
		if _, isErr := jsonspan.Lookup(data, s.ms, "error"); isErr {
			s.errored, w.stats.UpstreamError = true, true // the upstream ends the stream with its error
		}
		w.out = append(w.out, ev.Raw...) // usage, error or other chunk without choices
		return
	}
	w.noteUsage(data, s.ms)
	s.els, ok = w.ix.Elems(data, cm.Start, s.els[:0])
	if !ok || len(s.els) == 0 {
		if _, usage := jsonspan.Lookup(data, s.ms, "usage"); w.dropUsage && usage {
			return // the usage chunk the proxy asked for, not the client
		}
		w.out = append(w.out, ev.Raw...)
		return
	}
	s.typ = ev.Type
	s.last, s.tmplOK, s.shape.ch = append(s.last[:0], data...), false, nil
	s.edits = s.edits[:0]
	queued := false
	for _, el := range s.els {
		if w.stopped {
			break
		}
		queued = s.choiceDelta(ev, data, el, len(s.els) == 1)
	}
	if !queued && w.fault == nil { // a fault ends the stream with its error instead
		w.emitEdited(ev, s.edits)
	}
	if w.stopped {
		s.finish(true)
	}
}

// validEvent reports whether the data of a stream event is JSON; a
// malformed event is reported and passed through. The same pass indexes
// the event's members (w.ix), so that reading its fields does not walk its
// bytes again.
func (w *streamRewriter) validEvent(ev *sse.Event) bool {
	if w.ix.Parse(ev.Data) {
		return true
	}
	w.reportError("malformed JSON in a stream event; passed through", ev.Offset)
	w.out = append(w.out, ev.Raw...)
	return false
}

// template returns the last chunk's top-level members, but choices and
// usage, for the chunks the rewriter makes up. It is made only when a chunk
// is made up, from the copy of the last chunk (valid JSON).
func (s *oaStream) template() []byte {
	if s.tmplOK {
		return s.tmpl
	}
	s.lms, _ = jsonspan.Members(s.last, 0, s.lms[:0])
	s.tmpl = append(s.tmpl[:0], '{')
	for _, m := range s.lms {
		switch string(m.Key) {
		case "choices", "usage":
			continue
		}
		s.tmpl = append(s.tmpl, s.last[m.KeyStart:m.End]...)
		s.tmpl = append(s.tmpl, ',')
	}
	s.tmplOK = true
	return s.tmpl
}

// synth emits a made-up chunk for choice ch with the given delta object.
func (s *oaStream) synth(ch *oaChoice, delta []byte, finish string) {
	w := s.w
	d := append(w.data[:0], s.template()...)
	d = append(d, `"choices":[{"index":`...)
	d = strconv.AppendInt(d, int64(ch.index), 10)
	d = append(d, `,"delta":`...)
	d = append(d, delta...)
	d = append(d, `,"logprobs":null,"finish_reason":`...)
	if finish == "" {
		d = append(d, "null"...)
	} else {
		d = jsonspan.AppendQuoted(d, finish)
	}
	d = append(d, "}]}"...)
	w.data = d
	w.emitEvent(s.typ, d)
}

// sink methods: runs and calls of the current choice become chunks.

func (s *oaStream) text(b []byte) {
	s.tmp = jsonspan.AppendQuoted(append(s.tmp[:0], `{"content":`...), b)
	s.tmp = append(s.tmp, '}')
	s.synth(s.cur, s.tmp, "")
}

func (s *oaStream) reasoning(b []byte) {
	s.tmp = jsonspan.AppendQuoted(append(s.tmp[:0], `{"reasoning_content":`...), b)
	s.tmp = append(s.tmp, '}')
	s.synth(s.cur, s.tmp, "")
}

func (s *oaStream) call(e *toolsieve.Event) {
	ch := s.cur
	s.tmp = append(s.tmp[:0], `{"tool_calls":[`...)
	s.tmp = appendOpenAICall(s.tmp, ch.nextTool, callOut{id: e.ID, name: e.Name, args: callArgs(e)})
	s.tmp = append(s.tmp, "]}"...)
	ch.nextTool++
	ch.calls++
	s.synth(ch, s.tmp, "")
}

// callStart opens a streamed call: its tool_calls entry with id, type and
// name, and empty arguments.
func (s *oaStream) callStart(sc *streamedCall) {
	ch := s.cur
	sc.out = ch.nextTool
	ch.nextTool++
	s.tmp = append(s.tmp[:0], `{"tool_calls":[`...)
	s.tmp = appendOpenAICall(s.tmp, sc.out, callOut{id: sc.id, name: sc.name})
	s.tmp = append(s.tmp, "]}"...)
	s.synth(ch, s.tmp, "")
}

// callDelta sends a piece of a streamed call's arguments.
func (s *oaStream) callDelta(sc *streamedCall, piece []byte) {
	s.tmp = append(s.tmp[:0], `{"tool_calls":[{"index":`...)
	s.tmp = strconv.AppendInt(s.tmp, int64(sc.out), 10)
	s.tmp = append(s.tmp, `,"function":{"arguments":`...)
	s.tmp = jsonspan.AppendQuoted(s.tmp, piece)
	s.tmp = append(s.tmp, "}}]}"...)
	s.synth(s.cur, s.tmp, "")
}

// callEnd counts a streamed call: its arguments went out with its pieces.
func (s *oaStream) callEnd(*streamedCall) { s.cur.calls++ }

// choiceDelta handles one element of a chunk's choices array.
func (s *oaStream) choiceDelta(ev *sse.Event, data []byte, el jsonspan.Span, single bool) (held bool) {
	var ok bool
	s.cms, ok = s.w.ix.Members(data, el.Start, s.cms[:0])
	if !ok {
		return false
	}
	idx := 0
	if m, has := jsonspan.Lookup(data, s.cms, "index"); has {
		if idx, ok = jsonspan.Int(data, m); !ok {
			return false
		}
	}
	ch := s.choice(idx)
	if ch == nil || ch.closed {
		return false
	}
	dm, hasDelta := jsonspan.Lookup(data, s.cms, "delta")
	contentM, toolsM := jsonspan.Member{Start: -1}, jsonspan.Member{Start: -1}
	if hasDelta {
		if s.dms, ok = s.w.ix.Members(data, dm.Start, s.dms[:0]); !ok {
			hasDelta = false
		}
	}
	if hasDelta {
		for _, k := range [...]string{"reasoning_content", "reasoning", "refusal"} {
			s.w.showString(data, s.dms, k) // other channels pass through as they are
		}
		if m, has := jsonspan.Lookup(data, s.dms, "content"); has && jsonspan.IsString(data, m) {
			contentM = m
		}
		if m, has := jsonspan.Lookup(data, s.dms, "tool_calls"); has && !jsonspan.IsNull(data, m) {
			toolsM = m
			s.w.stats.UpstreamCalls = true
		}
	}
	fm, hasFinish := jsonspan.Lookup(data, s.cms, "finish_reason")
	d := oaDelta{content: contentM, tools: toolsM, delta: dm, hasDelta: hasDelta, finish: fm,
		finishing: hasFinish && jsonspan.IsString(data, fm), single: single, only: -1}
	held = s.apply(ev, data, ch, &d)
	s.noteShape(data, ch, &d)
	return held
}

// oaDelta is what the rewriting of one choice of a chunk needs of it.
type oaDelta struct {
	content, tools, delta, finish jsonspan.Member // Start -1 when absent
	hasDelta, finishing, single   bool
	only                          int8 // onlyContent's verdict when known: 1 yes, 0 no, -1 unknown
}

// apply rewrites choice ch of a chunk, described by d: its content goes
// through the choice's parser. It reports whether the chunk was held.
func (s *oaStream) apply(ev *sse.Event, data []byte, ch *oaChoice, d *oaDelta) (held bool) {
	s.cur = ch
	s.begin()
	s.in = s.in[:0]
	contentM, toolsM, fm, finishing, single := &d.content, &d.tools, &d.finish, d.finishing, d.single
	cut := false // a runaway
	if contentM.Start >= 0 {
		s.in = jsonspan.AppendUnquoted(s.in, data[contentM.Start:contentM.End])
		cut = s.process(s, &ch.textChan, ch.p.Feed(s.in))
	}
	if !cut && finishing {
		cut = s.processEnd(s, &ch.textChan, ch.p.Close(), !naturalEnd(jsonspan.StringBody(data, *fm)))
	}
	if cut {
		// What came before the loop went out in chunks of its own; a chunk
		// that ends the choice ends it as cut short (finish then adds none).
		if contentM.Start >= 0 {
			s.edits = append(s.edits, jsonspan.Edit{Start: contentM.Start, End: contentM.End, Repl: []byte(`""`)})
		}
		if finishing {
			s.edits = append(s.edits, jsonspan.Edit{Start: fm.Start, End: fm.End, Repl: []byte(`"length"`)})
			s.endNative(ch, -1)
			ch.closed = true
		}
		return false
	}
	if s.clean {
		// Only text came out: the upstream events can go out as they are
		// once all their content has been released.
		if single && !finishing && toolsM.Start < 0 && contentM.Start >= 0 && len(ch.carry) == 0 && wholeChars(s.in) && len(ev.Raw) <= maxHeldBytes {
			if ch.q.direct(s.in, s.tb) { // what hold would do, without queueing
				s.w.out = append(s.w.out, ev.Raw...)
				return true
			}
			s.hold(s, &ch.textChan, ev, s.in, jsonspan.Member{})
			return true
		}
		s.settle(s, &ch.textChan, s.in, true)
	}
	if toolsM.Start >= 0 {
		s.nativeCalls(ch, data, *toolsM)
	}
	if finishing {
		s.endNative(ch, -1)
		ch.closed = true
		if ch.calls > 0 && !ch.cut && !keepsFinish(jsonspan.StringBody(data, *fm)) {
			s.edits = append(s.edits, jsonspan.Edit{Start: fm.Start, End: fm.End, Repl: []byte(`"tool_calls"`)})
		}
	}
	run := s.lastRun(s, &ch.textChan, finishing)
	switch {
	case len(run) == 0 && len(s.in) > 0 && s.onlyContent(data, d):
		return true // its content went into the chunks made before it, or waits: nothing is left to send
	case contentM.Start >= 0:
		if !bytes.Equal(run, s.in) {
			s.edits = append(s.edits, jsonspan.Edit{Start: contentM.Start, End: contentM.End, Repl: s.w.keepQuoted(run)})
		}
	case len(run) > 0 && d.hasDelta:
		s.edits = append(s.edits, jsonspan.InsertMember(s.dms, d.delta.End, "content", jsonspan.AppendQuoted(nil, run)))
	case len(run) > 0:
		s.text(run)
	}
	return false
}

// onlyContent reports whether the chunk being handled says nothing but
// its choice's content: one choice, no finish, role, tool calls or usage.
func (s *oaStream) onlyContent(data []byte, d *oaDelta) bool {
	if d.only >= 0 {
		return d.only == 1
	}
	if !d.single || d.finishing || d.tools.Start >= 0 || len(s.dms) != 1 || len(s.cms) > 4 {
		return false
	}
	for _, m := range s.cms {
		switch string(m.Key) {
		case "index", "delta", "logprobs", "finish_reason":
		default:
			return false
		}
	}
	u, has := jsonspan.Lookup(data, s.ms, "usage")
	return !has || jsonspan.IsNull(data, u)
}

// original sends a held chunk of the current choice as it came.
func (s *oaStream) original(qe queued) { s.w.out = append(s.w.out, qe.raw...) }

// nativeCalls passes the upstream's own tool call deltas on, renumbered
// after the recovered calls, holding arguments that are markup.
func (s *oaStream) nativeCalls(ch *oaChoice, data []byte, m jsonspan.Member) {
	var ok bool
	s.tels, ok = s.w.ix.Elems(data, m.Start, s.tels[:0])
	if !ok {
		return
	}
	for _, el := range s.tels {
		if s.tms, ok = s.w.ix.Members(data, el.Start, s.tms[:0]); !ok {
			continue
		}
		up := 0
		im, hasIndex := jsonspan.Lookup(data, s.tms, "index")
		if hasIndex {
			if up, ok = jsonspan.Int(data, im); !ok {
				continue
			}
		}
		s.endNative(ch, up)
		var nc *nativeCall
		for _, c := range ch.native {
			if c.up == up {
				nc = c
			}
		}
		if nc == nil {
			nc = &nativeCall{up: up, out: ch.nextTool}
			ch.nextTool++
			ch.native = append(ch.native, nc)
		}
		if hasIndex && nc.out != up {
			s.edits = append(s.edits, jsonspan.Edit{Start: im.Start, End: im.End, Repl: s.w.keepInt(nc.out)})
		}
		fn, has := jsonspan.Lookup(data, s.tms, "function")
		if !has {
			continue
		}
		if s.fms, ok = s.w.ix.Members(data, fn.Start, s.fms[:0]); !ok {
			continue
		}
		if nm, has := jsonspan.Lookup(data, s.fms, "name"); has && jsonspan.IsString(data, nm) {
			nc.name = jsonspan.AppendUnquoted(nc.name, data[nm.Start:nm.End])
		}
		am, has := jsonspan.Lookup(data, s.fms, "arguments")
		if !has || !jsonspan.IsString(data, am) || nc.mode == argsJSON || nc.mode == argsDone {
			continue
		}
		args := jsonspan.AppendUnquoted(nil, data[am.Start:am.End])
		held := len(nc.buf)
		nc.buf = append(nc.buf, args...)
		if nc.mode == argsUndecided {
			t := bytes.TrimLeft(nc.buf, " \t\r\n")
			switch {
			case len(t) == 0:
			case t[0] == '<' || t[0] == '[':
				nc.mode = argsMarkup
			default:
				nc.mode = argsJSON
				if held > 0 {
					s.edits = append(s.edits, jsonspan.Edit{Start: am.Start, End: am.End, Repl: jsonspan.AppendQuoted(nil, nc.buf)})
				}
				nc.buf = nil
				continue
			}
		}
		if max := s.w.maxCall(); len(nc.buf) > max {
			// Too long to hold: give up on it and let it through.
			s.w.reportError("native call arguments over the size limit; passed through", -1)
			nc.mode = argsJSON
			s.edits = append(s.edits, jsonspan.Edit{Start: am.Start, End: am.End, Repl: jsonspan.AppendQuoted(nil, nc.buf)})
			nc.buf = nil
			continue
		}
		if len(args) > 0 {
			s.edits = append(s.edits, jsonspan.Edit{Start: am.Start, End: am.End, Repl: []byte(`""`)})
		}
	}
}

func (w *streamRewriter) maxCall() int {
	if w.opt.MaxCallBytes > 0 {
		return w.opt.MaxCallBytes
	}
	return 1 << 20
}

// endNative ends the held native calls of ch other than the one with
// upstream index keep (-1: all), sending their converted arguments.
func (s *oaStream) endNative(ch *oaChoice, keep int) {
	for _, nc := range ch.native {
		if nc.up == keep || nc.mode == argsDone || nc.mode == argsJSON {
			continue
		}
		if nc.mode == argsUndecided && keep >= 0 {
			continue
		}
		args := s.w.nativeArgs(nc.name, nc.buf)
		nc.mode = argsDone
		nc.buf = nil
		if args == nil {
			continue
		}
		s.tmp = append(s.tmp[:0], `{"tool_calls":[{"index":`...)
		s.tmp = strconv.AppendInt(s.tmp, int64(nc.out), 10)
		s.tmp = append(s.tmp, `,"function":{"arguments":`...)
		s.tmp = jsonspan.AppendQuoted(s.tmp, args)
		s.tmp = append(s.tmp, "}}]}"...)
		s.synth(ch, s.tmp, "")
	}
}

// nativeArgs turns held native arguments into JSON; when they are not a
// recognisable call they come back unchanged, with an error reported.
func (w *streamRewriter) nativeArgs(name, held []byte) []byte {
	if len(held) == 0 {
		return nil
	}
	obj, repairs, ok := toolsieve.ArgumentsFromMarkup(string(name), held, w.opt)
	if !ok {
		w.reportError("native call "+strconv.Quote(string(name))+": arguments are neither JSON nor markup; passed through", -1)
		return held
	}
	w.stats.Native++
	if w.notify != nil {
		e := toolsieve.Event{Type: toolsieve.ToolCall, Name: string(name), Arguments: obj, Dialect: "native", Repairs: repairs, Raw: held, Offset: -1}
		w.notify(&e)
	}
	return obj
}

// finish ends every open choice: at [DONE], at the end of input, or after
// a runaway (then each choice also gets a final chunk and the stream
// [DONE]).
func (s *oaStream) finish(runaway bool) {
	if s.w.fault != nil {
		return // the stream ends with an error, not as an answer
	}
	w := s.w
	if len(s.last) == 0 {
		return // no chunk with choices yet
	}
	for _, ch := range s.choices {
		if ch == nil || ch.closed {
			continue
		}
		s.cur = ch
		s.begin()
		if !runaway {
			// No finish_reason came for the choice: its end is not the
			// model's own as far as anyone knows (at [DONE], or at the end
			// of the stream).
			s.processEnd(s, &ch.textChan, ch.p.Close(), true)
		}
		if s.clean {
			s.settle(s, &ch.textChan, nil, !runaway)
		}
		w.flushRun(s, &s.kind, &s.run)
		s.endNative(ch, -1)
		ch.closed = true
		if runaway {
			// The answer was cut short by a loop: as when the token limit
			// cuts it (calls completed before the loop went out).
			s.synth(ch, []byte("{}"), "length")
		}
	}
	if runaway {
		w.out = append(w.out, "data: [DONE]\n\n"...)
	}
}

// footprint adds the copy of the last chunk (the template of made-up
// chunks) to the batch buffers.
func (s *oaStream) footprint() int {
	return s.textFeed.footprint() + cap(s.last) + cap(s.tmpl) + cap(s.tmp)
}

// shrink drops scratch grown past maxScratch; the last chunk's copy is
// kept (made-up chunks need it).
func (s *oaStream) shrink() {
	s.textFeed.shrink()
	if cap(s.tmp) > maxScratch {
		s.tmp = nil
	}
}

// ended reports [DONE], an error chunk, or every choice finished.
func (s *oaStream) ended() bool {
	if s.done || s.errored {
		return true
	}
	n := 0
	for _, ch := range s.choices {
		if ch != nil {
			if !ch.closed {
				return false
			}
			n++
		}
	}
	return n > 0
}

// ---- whole responses, content reading and history ----

// openAI is the API's codec (see apiCodec).
type openAI struct{}

func (openAI) newStream(w *streamRewriter) apiStream { return &oaStream{textFeed: textFeed{w: w}} }

func (openAI) historyKey() string { return "messages" }

func (openAI) rewriteDoc(w *streamRewriter, dst, doc []byte) ([]byte, bool) {
	_, els, ok := w.docArray(doc, "choices")
	if !ok {
		return dst, false
	}
	var edits []jsonspan.Edit
	for k, el := range els {
		cms, ok := jsonspan.Members(doc, el.Start, nil)
		if !ok {
			continue
		}
		mm, has := jsonspan.Lookup(doc, cms, "message")
		if !has {
			continue
		}
		mms, ok := jsonspan.Members(doc, mm.Start, nil)
		if !ok {
			continue
		}
		var d docParse
		var cut bool // a runaway cut the content
		fm, hasFinish := jsonspan.Lookup(doc, cms, "finish_reason")
		limited := hasFinish && jsonspan.IsString(doc, fm) && !naturalEnd(jsonspan.StringBody(doc, fm))
		cont, hasContent := jsonspan.Lookup(doc, mms, "content")
		if hasContent && jsonspan.IsString(doc, cont) {
			text := jsonspan.AppendUnquoted(nil, doc[cont.Start:cont.End])
			d, cut = w.parseDoc(text, false, k, limited)
			if !bytes.Equal(d.text, text) || len(d.calls) > 0 {
				v := []byte("null")
				if len(d.calls) == 0 || !isBlank(d.text) {
					v = jsonspan.AppendQuoted(nil, d.text)
				}
				edits = append(edits, jsonspan.Edit{Start: cont.Start, End: cont.End, Repl: v})
			}
		}
		if len(d.reasoning) > 0 {
			if rm, has := jsonspan.Lookup(doc, mms, "reasoning_content"); has && jsonspan.IsString(doc, rm) {
				r := jsonspan.AppendUnquoted(nil, doc[rm.Start:rm.End])
				edits = append(edits, jsonspan.Edit{Start: rm.Start, End: rm.End, Repl: jsonspan.AppendQuoted(nil, append(r, d.reasoning...))})
			} else if has {
				edits = append(edits, jsonspan.Edit{Start: rm.Start, End: rm.End, Repl: jsonspan.AppendQuoted(nil, d.reasoning)})
			} else {
				edits = append(edits, jsonspan.InsertMember(mms, mm.End, "reasoning_content", jsonspan.AppendQuoted(nil, d.reasoning)))
			}
		}
		// Native calls: markup arguments become JSON.
		tm, hasTools := jsonspan.Lookup(doc, mms, "tool_calls")
		var tels []jsonspan.Span
		if hasTools {
			tels, _ = jsonspan.Elems(doc, tm.Start, nil)
			w.stats.UpstreamCalls = w.stats.UpstreamCalls || len(tels) > 0
			for _, te := range tels {
				edits = w.nativeDocCall(doc, te, edits)
			}
		}
		if len(d.calls) > 0 {
			var arr []byte
			for i, c := range d.calls {
				if i > 0 || len(tels) > 0 {
					arr = append(arr, ',')
				}
				arr = appendOpenAICall(arr, -1, c)
			}
			switch {
			case hasTools && len(tels) > 0:
				end := tels[len(tels)-1].End
				edits = append(edits, jsonspan.Edit{Start: end, End: end, Repl: arr})
			case hasTools:
				edits = append(edits, jsonspan.Edit{Start: tm.Start, End: tm.End, Repl: append(append([]byte("["), arr...), ']')})
			default:
				edits = append(edits, jsonspan.InsertMember(mms, mm.End, "tool_calls", append(append([]byte("["), arr...), ']')))
			}
			if hasFinish && !cut && !d.cut && !keepsFinish(jsonspan.StringBody(doc, fm)) {
				edits = append(edits, jsonspan.Edit{Start: fm.Start, End: fm.End, Repl: []byte(`"tool_calls"`)})
			}
		}
		if hasFinish && cut {
			edits = append(edits, jsonspan.Edit{Start: fm.Start, End: fm.End, Repl: []byte(`"length"`)})
		}
	}
	if len(edits) == 0 {
		return dst, false
	}
	jsonspan.SortEdits(edits)
	return jsonspan.Splice(dst, doc, edits), true
}

func (openAI) content(c *ContentReader, data []byte, ms []jsonspan.Member) {
	cms, ok := choiceZero(data, ms)
	if !ok {
		return
	}
	dm, has := jsonspan.Lookup(data, cms, "delta")
	if !has {
		dm, has = jsonspan.Lookup(data, cms, "message")
	}
	if !has {
		return
	}
	dms, ok := jsonspan.Members(data, dm.Start, nil)
	if !ok {
		return
	}
	for _, key := range [...]string{"reasoning_content", "reasoning"} {
		if m, has := jsonspan.Lookup(data, dms, key); has && jsonspan.IsString(data, m) && m.End-m.Start > 2 {
			c.events = append(c.events, toolsieve.Event{Type: toolsieve.Reasoning, Text: jsonspan.AppendUnquoted(nil, data[m.Start:m.End]), Offset: -1})
		}
	}
	if m, has := jsonspan.Lookup(data, dms, "content"); has && jsonspan.IsString(data, m) {
		c.content = jsonspan.AppendUnquoted(c.content, data[m.Start:m.End])
	}
}

// responseText reads choice 0's message of a chat completion.
func (openAI) responseText(t *DocText, doc []byte, ms []jsonspan.Member) bool {
	if cm, has := jsonspan.Lookup(doc, ms, "choices"); !has || doc[cm.Start] != '[' {
		return false
	}
	if cms, ok := choiceZero(doc, ms); ok {
		if mm, has := jsonspan.Lookup(doc, cms, "message"); has {
			mms, _ := jsonspan.Members(doc, mm.Start, nil)
			readMessage(t, doc, mms)
		}
	}
	return true
}

// choiceZero returns the members of choice 0 (the first choice with index
// 0, or with no index) of a chunk or completion whose top-level members
// are ms.
func choiceZero(doc []byte, ms []jsonspan.Member) ([]jsonspan.Member, bool) {
	cm, has := jsonspan.Lookup(doc, ms, "choices")
	if !has || doc[cm.Start] != '[' {
		return nil, false
	}
	els, _ := jsonspan.Elems(doc, cm.Start, nil)
	for _, el := range els {
		cms, ok := jsonspan.Members(doc, el.Start, nil)
		if !ok {
			continue
		}
		if im, has := jsonspan.Lookup(doc, cms, "index"); has {
			if i, _ := jsonspan.Int(doc, im); i != 0 {
				continue
			}
		}
		return cms, true
	}
	return nil, false
}

func (openAI) cleanMessage(h *historyCleaner, k int) {
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
