package chat

// The rewriter: a chat response in (an SSE stream or a whole JSON document,
// OpenAI or Anthropic), the same response out with the tool calls that the
// model wrote as markup turned into native tool calls.
//
// Streams are rewritten event by event as they arrive. Events that need no
// change are copied byte for byte. An event whose content the parser holds
// back (a possible marker, the first word of a line) waits, and goes out
// unchanged once the parser releases that content as plain text, so a
// stream without markup comes back byte-identical. When markup shows up, the
// event carrying it is edited in place (only the changed values are
// replaced), and recovered calls, with the text that preceded them, go out
// as extra events just before it. Work is constant per input byte and
// nothing is re-parsed: each content delta is fed once to the choice's (or
// the text block's) Parser. The provider-specific parts are in stream.go.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"unicode/utf8"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/sse"
)

// maxDocBytes caps a non-streamed response held for rewriting; a larger one
// passes through unchanged.
const maxDocBytes = 64 << 20

// maxHeldBytes caps the whitespace-only text an Anthropic text block holds
// back before it is opened (see anBlock.held), and the upstream events a
// content stream holds to pass them on unchanged (textQueue): a larger
// event is edited instead of copied.
const maxHeldBytes = 64 << 10

// RewriteStats sums up what a rewriter did, for logs.
type RewriteStats struct {
	Calls    int  // calls recovered from markup and sent as native calls
	Repaired int  // of those, calls that carry repairs
	Native   int  // native calls whose markup arguments were turned into JSON
	Runaway  bool // a runaway was detected and the upstream cut off
	Errors   int  // error events (malformed frames, unknown calls, ...)
	// Unrecovered counts the parsers' error events: markup meant as a
	// call that did not become one (no tool name, an undeclared tool, a
	// call refused by strict mode).
	Unrecovered int
	Refused     int // calls refused by strict mode (Options.Strict)
	EmptyBlocks int // call wrappers holding no call
	// Truncated counts calls the answer's cut left unfinished (see
	// cut.go): not handed on as calls.
	Truncated int
	// Incomplete is set when the stream ended (cleanly) before its API's
	// finish marker; the Rewriter's Read then ends with ErrTruncated.
	Incomplete bool
	// Torn counts events the end of the stream cut in the middle: they
	// are dropped, never passed on in part.
	Torn int
	// UpstreamError is set once an error event of the upstream went out
	// (OpenAI's error chunk, Anthropic's error event, the Responses
	// error or response.failed): the client has been told the answer
	// failed.
	UpstreamError bool
	// UpstreamCalls is set once the upstream sent a native call of its
	// own (an OpenAI tool_calls delta or member, an Anthropic tool_use
	// block, a Responses function_call item).
	UpstreamCalls bool
	// Dropped counts calls not passed on because the request turned
	// parallel calls off (Options.MaxCalls): their events are discards
	// with ReasonParallelCall, passed to Notify.
	Dropped int
	// Usage is the token usage the answer reported (usage.go).
	Usage Usage
	// Shown is set once the output holds text or reasoning that is not
	// whitespace (the content of an event that went out, or of one being
	// written): from then on a client has seen part of the answer.
	Shown bool
}

// streamRewriter is the push-mode core shared by Rewriter, the Transport and
// the proxy: Write appends the rewritten form of its input to out.
type streamRewriter struct {
	api    API
	opt    toolsieve.Options
	notify func(*toolsieve.Event)

	// mode is decided by the first non-blank byte: '{' or '[' is a JSON
	// document, anything else an event stream.
	mode    uint8
	lead    []byte // leading whitespace seen before the mode was known
	doc     []byte // a document being collected
	docOver bool   // the document outgrew maxDocBytes: pass through

	dec     sse.Decoder
	events0 bool      // the body is an event stream (ExpectEvents): one with no event is incomplete
	st      apiStream // the API's stream rewriter, once the API is known
	stopped bool      // a runaway cut the stream: ignore further input
	broken  bool      // the body broke off (not EOF): a call it cut is not run
	atEOF   bool      // the stream ended before its finish marker: what is open was cut
	cutting bool      // the batch being taken ends its content stream by a cut (cut.go)
	cutIdx  []int     // the calls of that batch the cut ends
	fault   error     // set with stopped when an event over the decoder's limit was lost
	closed  bool
	stats   RewriteStats
	// dropUsage: an OpenAI usage chunk is read, not passed on (usage.go).
	dropUsage bool

	out     []byte
	data    []byte // scratch for edited event data
	scratch []byte // scratch for an unquoted value
	arena   []byte // replacement values of the current event's edits

	// ix holds the members of the current event, found as it is validated.
	ix jsonspan.Index
}

// keepQuoted returns b as a JSON string, kept in the arena until the next
// upstream event.
func (w *streamRewriter) keepQuoted(b []byte) []byte {
	n := len(w.arena)
	w.arena = jsonspan.AppendQuoted(w.arena, b)
	return w.arena[n:len(w.arena):len(w.arena)]
}

// keepInt returns n in decimal, kept like keepQuoted's result.
func (w *streamRewriter) keepInt(i int) []byte {
	n := len(w.arena)
	w.arena = strconv.AppendInt(w.arena, int64(i), 10)
	return w.arena[n:len(w.arena):len(w.arena)]
}

const (
	modeUnknown uint8 = iota
	modeSSE
	modeDoc
)

func newStreamRewriter(api API, opt toolsieve.Options) *streamRewriter {
	return &streamRewriter{api: api, opt: opt}
}

// report passes an event to the notify hook and counts it.
func (w *streamRewriter) report(e *toolsieve.Event) {
	switch e.Type {
	case toolsieve.ToolCall:
		w.stats.Calls++
		if len(e.Repairs) > 0 {
			w.stats.Repaired++
		}
	case toolsieve.Runaway:
		w.stats.Runaway = true
	case toolsieve.Error: // from a parser: see reportError for the rest
		w.stats.Errors++
		w.stats.Unrecovered++
		if e.Reason == toolsieve.ReasonRefused {
			w.stats.Refused++
		}
	case toolsieve.Discard:
		if e.Reason == toolsieve.ReasonEmptyBlock {
			w.stats.EmptyBlocks++
		}
		if e.Reason != toolsieve.ReasonParallelCall {
			return // not passed to notify
		}
		w.stats.Dropped++
	}
	if w.notify != nil {
		w.notify(e)
	}
}

// noteNative notes an upstream block or item of type typ: a native call
// (tool_use, function_call) sets UpstreamCalls.
func (w *streamRewriter) noteNative(typ []byte) {
	if s := string(typ); s == "tool_use" || s == "function_call" {
		w.stats.UpstreamCalls = true
	}
}

// show notes text or reasoning that goes out (see RewriteStats.Shown).
func (w *streamRewriter) show(text []byte) {
	if !w.stats.Shown && !isBlank(text) {
		w.stats.Shown = true
	}
}

// showString notes the string value of member m of data going out.
func (w *streamRewriter) showString(data []byte, ms []jsonspan.Member, key string) {
	if w.stats.Shown {
		return // once is enough: no lookups on every later event
	}
	if m, ok := jsonspan.Lookup(data, ms, key); ok && jsonspan.IsString(data, m) {
		w.scratch = jsonspan.AppendUnquoted(w.scratch[:0], data[m.Start:m.End])
		w.show(w.scratch)
	}
}

// reportError reports an error of the rewriter itself (a malformed frame
// or document, a limit), not of a parser.
func (w *streamRewriter) reportError(msg string, off int64) {
	e := toolsieve.Event{Type: toolsieve.Error, Message: msg, Offset: off}
	w.stats.Errors++
	if w.notify != nil {
		w.notify(&e)
	}
}

// idPrefix is the call id prefix for a parser of the stream: the Options'
// prefix, or a random one so that ids do not repeat across the turns of a
// conversation.
func (w *streamRewriter) idPrefix(anthropic bool, n int) string {
	p := w.opt.IDPrefix
	if p == "" {
		const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		var r [16]byte
		for i := range r {
			r[i] = alnum[rand.IntN(len(alnum))]
		}
		if anthropic {
			p = "toolu_" + string(r[:]) + "_"
		} else {
			p = "call_" + string(r[:]) + "_"
		}
		w.opt.IDPrefix = p
	}
	if n > 0 {
		p += strconv.Itoa(n) + "_"
	}
	return p
}

func (w *streamRewriter) newParser(anthropic bool, n int) *toolsieve.Parser {
	o := w.opt
	o.IDPrefix = w.idPrefix(anthropic, n)
	o.StreamCalls = o.StreamCalls && w.mode == modeSSE // a document's calls go out whole
	return toolsieve.NewParser(o)
}

// Write consumes the next bytes of the response.
func (w *streamRewriter) Write(p []byte) {
	if w.closed || len(p) == 0 {
		return
	}
	if w.stopped {
		return
	}
	if w.mode == modeUnknown {
		i := 0
		for i < len(p) && (jsonspan.IsSpace(p[i]) || p[i] == 0xEF || p[i] == 0xBB || p[i] == 0xBF) {
			i++
		}
		if i == len(p) {
			w.lead = append(w.lead, p...)
			return
		}
		if p[i] == '{' || p[i] == '[' {
			w.mode = modeDoc
		} else {
			w.mode = modeSSE
		}
		if len(w.lead) > 0 {
			lead := w.lead
			w.lead = nil
			w.input(lead)
		}
	}
	w.input(p)
}

func (w *streamRewriter) input(p []byte) {
	switch w.mode {
	case modeDoc:
		if w.docOver {
			w.out = append(w.out, p...)
			return
		}
		w.doc = append(w.doc, p...)
		if len(w.doc) > maxDocBytes {
			w.docOver = true
			w.reportError("response larger than the rewriting limit; passed through unchanged", -1)
			w.out = append(w.out, w.doc...)
			w.doc = nil
		}
	case modeSSE:
		evs, _ := w.dec.Feed(p)
		w.events(evs)
	}
}

// Close ends the input: held-back content is flushed, open markup closed.
func (w *streamRewriter) Close() {
	if w.closed {
		return
	}
	w.closed = true
	if w.stopped {
		return
	}
	switch w.mode {
	case modeUnknown:
		w.out = append(w.out, w.lead...)
		// Nothing but blank bytes came: an event stream with no event.
		w.stats.Incomplete = w.events0
	case modeDoc:
		if !w.docOver {
			w.rewriteDoc()
		}
	case modeSSE:
		w.lastEvents()
		if w.stopped {
			return
		}
		if w.st == nil || !w.st.ended() {
			// No finish marker: whatever is still open was cut.
			w.atEOF = w.api != APIAuto || w.st != nil
			w.stats.Incomplete = w.atEOF
		}
		if w.st != nil {
			w.st.finish(false)
		}
	}
}

// lastEvents takes the event the end of the stream left unterminated,
// once: whole (only its blank line missing), as any other; torn, it is
// dropped.
func (w *streamRewriter) lastEvents() {
	if w.mode != modeSSE {
		return
	}
	evs, _ := w.dec.Close() // nothing the second time
	for i := range evs {
		if w.stopped {
			return
		}
		ev, ok := whole(evs[i])
		if !ok {
			// Torn by the end of the stream: never passed on in part.
			w.stats.Torn++
			w.reportError("an event cut off by the end of the stream was dropped", ev.Offset)
			continue
		}
		w.events([]sse.Event{ev})
	}
}

func (w *streamRewriter) events(evs []sse.Event) {
	for i := range evs {
		if w.stopped {
			return
		}
		ev := &evs[i]
		w.arena = w.arena[:0]
		w.ix.Reset() // indexed again when the stream validates it
		if ev.Err != nil {
			// An event over the decoder's limit is lost: the answer cannot
			// be passed on whole. Stop; the reader gets the error.
			w.reportError(ev.Err.Error(), ev.Err.Offset)
			w.fault, w.stopped = ev.Err, true
			return
		}
		if !ev.IsMessage() {
			w.out = append(w.out, ev.Raw...)
			continue
		}
		if w.api == APIAuto {
			w.api = detectEventAPI(ev.Type, ev.Data)
		}
		if w.st == nil && w.api.codec() != nil {
			w.st = w.api.codec().newStream(w)
		}
		if w.st != nil {
			w.st.event(ev)
		} else {
			w.out = append(w.out, ev.Raw...)
		}
	}
}

// shrink gives back scratch that a large event grew (the output buffer
// once it has been read, the edit and stream buffers between events).
func (w *streamRewriter) shrink() {
	for _, b := range [...]*[]byte{&w.out, &w.data, &w.scratch, &w.arena} {
		if cap(*b) > 4*maxScratch {
			*b = (*b)[:0:0]
		}
	}
	if w.st != nil {
		w.st.shrink()
	}
}

// emitEvent appends an SSE event with the given type and data.
func (w *streamRewriter) emitEvent(typ string, data []byte) {
	w.out = sse.AppendEvent(w.out, typ, data)
}

// emitEdited appends ev with edits applied to its data, or its raw bytes
// when there are none. The id field is kept; retry and comments of an
// edited event are not.
func (w *streamRewriter) emitEdited(ev *sse.Event, edits []jsonspan.Edit) {
	if len(edits) == 0 {
		w.out = append(w.out, ev.Raw...)
		return
	}
	jsonspan.SortEdits(edits)
	w.data = jsonspan.Splice(w.data[:0], ev.Data, edits)
	if ev.HasID {
		w.out = append(w.out, "id: "...)
		w.out = append(w.out, ev.ID...)
		w.out = append(w.out, '\n')
	}
	w.emitEvent(ev.Type, w.data)
}

func (w *streamRewriter) rewriteDoc() {
	var out []byte
	var ok bool
	api := w.api
	if api == APIAuto {
		api = detectEventAPI("", w.doc)
	}
	if c := api.codec(); c != nil {
		if ms, ok := jsonspan.Members(w.doc, 0, nil); ok {
			w.noteUsage(w.doc, ms)
		}
		out, ok = c.rewriteDoc(w, w.out, w.doc)
	}
	if ok {
		w.out = out
	} else {
		w.out = append(w.out, w.doc...)
	}
	w.doc = nil
}

// ---- runs: what a parser's events become ----

// runKind is what kind of output a run of events makes.
type runKind uint8

const (
	runNone runKind = iota
	runText
	runReasoning
)

// sink receives the pieces a batch of parser events makes, in order: text
// and reasoning runs (adjacent events merged) and calls.
type sink interface {
	text(b []byte)           // a text run that is followed by something else
	reasoning(b []byte)      // a reasoning run
	call(e *toolsieve.Event) // a recovered call
	// A streamed call (streamcalls.go): its start, a piece of its
	// arguments, its end.
	callStart(sc *streamedCall)
	callDelta(sc *streamedCall, piece []byte)
	callEnd(sc *streamedCall)
}

// runs groups events of content stream c into runs and passes them to s;
// the last text run is returned instead (it goes into the event being
// edited). buf is scratch.
// stop is true when a runaway was met; events after it are ignored.
func (w *streamRewriter) runs(evs []toolsieve.Event, s sink, c *textChan, kind *runKind, buf *[]byte) (stop bool) {
	if w.cutting {
		w.markCuts(evs)
	}
	for i := range evs {
		e := &evs[i]
		if handled, stop := w.streamEvent(e, s, c, kind, buf); stop {
			return true
		} else if handled {
			continue
		}
		switch e.Type {
		case toolsieve.Text:
			if *kind == runReasoning {
				s.reasoning(*buf)
				*buf = (*buf)[:0]
			}
			*kind = runText
			*buf = append(*buf, e.Text...)
			w.show(e.Text)
		case toolsieve.Reasoning:
			if len(e.Raw) == 0 || len(e.Text) == 0 {
				continue // separate channel (not from a parser) or a bare tag
			}
			if *kind == runText && len(*buf) > 0 {
				s.text(*buf)
				*buf = (*buf)[:0]
			}
			*kind = runReasoning
			*buf = append(*buf, e.Text...)
			w.show(e.Text)
		case toolsieve.ToolCall:
			if w.isCut(e) {
				// Cut before the model finished it: its markup goes on as text.
				if *kind == runReasoning {
					s.reasoning(*buf)
					*buf = (*buf)[:0]
				}
				*kind = runText
				*buf = append(*buf, e.Raw...)
				w.reportTruncated(c, e, false)
				continue
			}
			w.flushRun(s, kind, buf)
			w.report(e)
			s.call(e)
		case toolsieve.Runaway:
			w.flushRun(s, kind, buf)
			w.report(e)
			w.stopped = true
			return true
		case toolsieve.Error, toolsieve.Discard:
			if w.parserCut(e) {
				w.reportTruncated(c, e, false) // its markup, text, follows
				continue
			}
			if w.refusedCut(e) {
				w.stats.Truncated++
				c.cut = true
			}
			w.report(e)
		}
	}
	return false
}

// flushRun passes a pending run of either kind to s.
func (w *streamRewriter) flushRun(s sink, kind *runKind, buf *[]byte) {
	switch *kind {
	case runText:
		if len(*buf) > 0 {
			s.text(*buf)
		}
	case runReasoning:
		s.reasoning(*buf)
	}
	*kind = runNone
	*buf = (*buf)[:0]
}

// ---- held events: byte-identical output for plain text ----

// textQueue holds the upstream events of one content stream whose content
// the parser has not released yet (it holds back possible marker bytes and
// the first word of a line). While only plain text comes out, such events go
// out unchanged, byte for byte, as soon as all their content has been
// released; when markup shows up instead, they are given up and the text
// released from them goes out in an event of its own.
type textQueue struct {
	buf  []byte // holds the queued events' bytes; reused once the queue empties
	head int    // bytes at the front of buf of events already dropped
	evs  []queued
	rel  []byte // text released from the queued events and not sent yet
	size int
	// rawOnly: held events are sent by their raw bytes alone (an OpenAI
	// choice's), so their data is not kept.
	rawOnly bool
}

// queued is a held upstream event.
type queued struct {
	raw, data, content []byte
	idx                jsonspan.Member // the span of its index (Anthropic)
}

// push adds an event whose content released the text rel. direct
// reports that nothing was held and all of the event's content is
// released: the event goes out now and is not kept. Otherwise the first
// ready() events of the queue can go out.
func (q *textQueue) push(ev *sse.Event, content, rel []byte, idx jsonspan.Member) (direct bool) {
	if q.direct(content, rel) {
		return true // the usual case, without copying rel
	}
	q.rel = append(q.rel, rel...)
	if len(q.evs) == 0 && bytes.Equal(q.rel, content) {
		q.rel = q.rel[:0]
		return true
	}
	qe := queued{raw: q.keep(ev.Raw), idx: idx} // kept in this order: compact
	if !q.rawOnly {
		qe.data = q.keep(ev.Data)
	}
	qe.content = q.keep(content)
	q.evs = append(q.evs, qe)
	q.size += len(ev.Raw)
	return false
}

// direct reports whether an event whose content released the text rel
// would go out at once and not be kept (push): nothing is held and rel is
// all of its content.
func (q *textQueue) direct(content, rel []byte) bool {
	return len(q.evs) == 0 && len(q.rel) == 0 && bytes.Equal(rel, content)
}

// keep copies b into the queue's buffer.
func (q *textQueue) keep(b []byte) []byte {
	n := len(q.buf)
	q.buf = append(q.buf, b...)
	return q.buf[n:len(q.buf):len(q.buf)]
}

// ready returns how many events at the front of the queue have had all
// their content released; the caller sends them and drops them.
func (q *textQueue) ready() int {
	n := 0
	for n < len(q.evs) && len(q.rel) >= len(q.evs[n].content) {
		c := q.evs[n].content
		if !bytes.Equal(q.rel[:len(c)], c) {
			break // cannot happen while only text comes out
		}
		q.rel = q.rel[len(c):]
		n++
	}
	return n
}

// drop removes the first n events.
func (q *textQueue) drop(n int) {
	if n == 0 {
		return
	}
	for i := range n {
		e := &q.evs[i]
		q.size -= len(e.raw)
		q.head += len(e.raw) + len(e.data) + len(e.content)
	}
	k := copy(q.evs, q.evs[n:])
	clear(q.evs[k:])
	q.evs = q.evs[:k]
	switch {
	case k == 0:
		q.buf, q.head = q.buf[:0], 0
	case q.head >= minCompact && 2*q.head > len(q.buf):
		q.compact()
	}
}

// minCompact is the size of dropped events from which a queue that never
// empties moves its events to the front of its buffer.
const minCompact = 1 << 10

// compact moves the bytes of the queued events to the front of the buffer,
// so that a queue that never empties (a line's first word is held as the
// next event comes) does not grow with the stream. It copies fewer bytes
// than were dropped since the last time: linear in the stream.
func (q *textQueue) compact() {
	q.buf = q.buf[:copy(q.buf, q.buf[q.head:])]
	q.head = 0
	off := 0
	at := func(b []byte) []byte {
		off += len(b)
		return q.buf[off-len(b) : off : off]
	}
	for i := range q.evs {
		e := &q.evs[i]
		e.raw, e.data, e.content = at(e.raw), at(e.data), at(e.content)
	}
}

// over reports a queue to give up: too large, or out of step (which only
// text coming out cannot cause).
func (q *textQueue) over() bool {
	return q.size > maxHeldBytes || len(q.evs) > 1024 || len(q.evs) == 0 && len(q.rel) > 0
}

// covers reports whether the released text plus t is exactly the held
// content plus c: then the held events and the one carrying c can go out
// unchanged.
func (q *textQueue) covers(t, c []byte) bool {
	n := len(c)
	for i := range q.evs {
		n += len(q.evs[i].content)
	}
	if len(q.rel)+len(t) != n {
		return false
	}
	if len(q.evs) == 0 && len(q.rel) == 0 {
		return bytes.Equal(t, c)
	}
	var have, want []byte
	have = append(append(have, q.rel...), t...)
	for i := range q.evs {
		want = append(want, q.evs[i].content...)
	}
	return bytes.Equal(have, append(want, c...))
}

// drain sends every held event and empties the queue.
func (q *textQueue) drain(emit func(queued)) {
	for i := range q.evs {
		emit(q.evs[i])
	}
	q.reset()
}

func (q *textQueue) reset() {
	q.buf, q.head = q.buf[:0], 0
	if cap(q.buf) > maxScratch {
		q.buf = nil // grown by a large event: not kept
	}
	clear(q.evs)
	q.evs = q.evs[:0]
	q.rel = q.rel[:0]
	q.size = 0
}

// allText reports a batch of events that are all text.
func allText(evs []toolsieve.Event) bool {
	for i := range evs {
		if evs[i].Type != toolsieve.Text {
			return false
		}
	}
	return true
}

// wholeChars reports content that neither starts nor ends inside a UTF-8
// sequence.
func wholeChars(b []byte) bool {
	return len(b) == 0 || utf8.RuneStart(b[0]) && incompleteUTF8(b) == 0
}

// ---- Rewriter: an io.ReadCloser ----

// Rewriter rewrites a chat response body as it is read: recovered tool
// calls come out as native calls of the same API (see the package
// documentation and docs/contract.md). It reads the upstream body only when it is
// read itself, holds no goroutine, and on a runaway closes the upstream body
// at once and ends its output cleanly. An upstream event larger than the SSE
// decoder's limit cannot be passed on: the upstream body is closed and Read
// returns the *sse.Error after the output that came before the event.
type Rewriter struct {
	// Notify, when set before the first Read, is called with every
	// recovered call, runaway and error event (and with a tool_call of
	// dialect "native" for native calls whose markup arguments were
	// converted). The event is valid only during the call.
	Notify func(*toolsieve.Event)
	// Hold, when set before the first Read, is called with the
	// rewriter's Footprint each time it has taken more of the upstream
	// body (a large event takes many reads before any output). An error
	// stops the rewriting there: the upstream body is closed and Read
	// returns the error after the output made before. A proxy keeps its
	// memory budget with it.
	Hold    func(footprint int64) error
	body    io.ReadCloser
	w       *streamRewriter
	buf     []byte // the upstream's bytes of a read into a small p
	off     int
	err     error
	eof     bool
	closed  bool
	started bool
}

// minReadBuf is the smallest read of the upstream's body: a Read with a
// smaller p reads into a buffer of this size.
const minReadBuf = 4 << 10

// ErrRewriterClosed is returned by Read after Close.
var ErrRewriterClosed = errors.New("toolsieve: read from closed Rewriter")

// NewRewriter returns a reader of body rewritten for api (APIAuto detects
// it). The body may be an event stream or a whole JSON response. opt
// configures the parsers; declare the request's tools in opt.Tools.
func NewRewriter(body io.ReadCloser, api API, opt toolsieve.Options) *Rewriter {
	return &Rewriter{body: body, w: newStreamRewriter(api, opt)}
}

// Footprint returns the bytes the rewriter holds in its buffers (their
// capacity: the SSE decoder's, a whole document being read, the output not
// read yet, the scratch of the event being rewritten) and, for an event
// still coming, the copies it will take once whole (eventCopies times what
// came of it). It is about the largest upstream event (or the whole
// document) times a small factor; a proxy counts it in its memory budget
// after each Read, and so knows of a large event before it is rewritten.
func (r *Rewriter) Footprint() int64 {
	w := r.w
	n := w.dec.Footprint() + eventCopies*w.dec.Pending() + cap(w.doc) + cap(w.out) + cap(w.data) + cap(w.scratch) + cap(w.arena) + cap(w.lead) + cap(r.buf)
	if w.st != nil {
		n += w.st.footprint()
	}
	return int64(n)
}

// eventCopies is how many copies of an upstream event the rewriting of a
// large one takes at most besides the decoder's: its content unquoted, the
// text collected from it, the run edited into it, the event as edited,
// the output, and (OpenAI) the copy kept as the template of made-up
// chunks.
const eventCopies = 6

// ExpectEvents tells the rewriter, before the first Read, that the body is
// an event stream (its Content-Type says so): a body that ends before any
// event then ends with ErrTruncated too.
func (r *Rewriter) ExpectEvents() { r.w.events0 = true }

// Stats reports what the rewriter has done so far.
func (r *Rewriter) Stats() RewriteStats { return r.w.stats }

// Read implements io.Reader. With a p of at least 4 KiB it reads the
// upstream's body into p and needs no buffer of its own.
func (r *Rewriter) Read(p []byte) (n int, err error) {
	if r.closed {
		return 0, ErrRewriterClosed
	}
	defer func() {
		// A bug in the parser must not take the caller's program down: the
		// stream ends with an error instead.
		if x := recover(); x != nil {
			r.body.Close()
			r.eof = true
			r.err = fmt.Errorf("toolsieve: internal error while rewriting: %v", x)
			r.w.out, r.off = r.w.out[:0], 0
			n, err = 0, r.err
		}
	}()
	if !r.started {
		r.started = true
		r.w.notify = r.Notify
	}
	w := r.w
	for r.off == len(w.out) {
		if r.eof {
			if r.err != nil {
				return 0, r.err
			}
			return 0, io.EOF
		}
		w.out = w.out[:0]
		r.off = 0
		w.shrink()
		// The upstream's bytes are read into p, the caller's buffer, when
		// it is large enough: the rewriter takes from them what it keeps
		// before its output goes there, so a stream needs no read buffer
		// of its own.
		in := p
		if len(p) < minReadBuf {
			if r.buf == nil {
				r.buf = make([]byte, minReadBuf)
			}
			in = r.buf
		}
		n, err := r.body.Read(in)
		if n > 0 {
			w.Write(in[:n])
			if w.stopped {
				// A runaway or a lost event: stop the upstream at once.
				r.body.Close()
				r.eof, r.err = true, w.fault
				break
			}
			if r.Hold != nil {
				if herr := r.Hold(r.Footprint()); herr != nil {
					r.body.Close()
					r.eof, r.err = true, herr
					break
				}
			}
		}
		if err != nil {
			if !w.stopped {
				w.lastEvents()
			}
			if err != io.EOF && w.st != nil && w.st.ended() && !w.stopped {
				// It broke off after the answer's end: the answer is whole.
				w.reportError("the upstream's body broke off after the answer's end: "+err.Error(), w.dec.Offset())
				err = io.EOF
			}
			// A body that broke off (a reset, a timeout) ended inside
			// whatever was being written: a call still open then was cut
			// by the failure, not by the model, and is never run.
			w.broken = err != io.EOF
			w.Close()
			r.eof = true
			switch {
			case err != io.EOF:
				r.err = err
			case w.fault != nil:
				r.err = w.fault
			case w.stats.Incomplete:
				r.err = ErrTruncated
			}
		}
	}
	n = copy(p, w.out[r.off:])
	r.off += n
	return n, nil
}

// Close closes the upstream body.
func (r *Rewriter) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	return r.body.Close()
}
