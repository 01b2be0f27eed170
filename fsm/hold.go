package fsm

import (
	"math"

	"github.com/toolsieve/toolsieve/internal/repeat"
)

// loopHold stands between the machine and its sink. A call that may belong
// to a loop (see loops.go) is held: it is not reported yet, and every
// event after it waits behind it, in order, so that the sink still sees
// the input's bytes in order. What is held is released as it stands once
// the stream shows it was no loop, or folded into the runaway's raw when
// the loop detector fires: a loop's calls never reach the sink as calls.
//
// Release rule. Held events are released, in order, at the first of:
//   - a call the machine reports as not held: one closed by its own closer,
//     a wrapper closer, the end of its body or the end of input, that does
//     not repeat the call before it;
//   - text that is not only whitespace, unless the repetition guard sees the
//     stream's tail repeat a unit holding markup (guard.go), or reasoning
//     (whitespace text, discarded markup, call starts and errors wait with
//     the rest);
//   - the end of input (Machine.Close).
//
// Bounds: at most limit held calls, and limit × Options.MaxCall held bytes
// (limit is the largest of the openers, repeated-calls and guard's markup
// thresholds). Past
// either, the oldest held call is released, with what waits before it:
// loops of the shapes the detector knows are cut before that.
//
// A runaway drops the call starts it folds: those calls were part of the
// loop and never complete (see emitter.ToolCallStart).
type loopHold struct {
	out      Sink
	rep      *repeat.Guard // while it sees a unit repeat, text does not release (nil: off)
	entries  []heldEntry
	raw      []byte // the held input bytes, in order: a runaway's raw is raw + its own
	meta     []byte // names, ids, arguments and parameters of held calls
	params   []heldParam
	maxBytes int
	units    int32 // held calls in entries (int32s: an idle machine stays small)
	maxUnits int32
}

// heldKind is what a held entry stands for.
type heldKind uint8

const (
	hText heldKind = iota
	hDiscard
	hStart
	hCall
	hError
)

// heldEntry is one event waiting. Spans are in raw (raw) and meta (the rest).
type heldEntry struct {
	kind    heldKind
	unit    bool // a held call (or the markup of a held unnamed call)
	raw     span
	name    span
	id      span
	args    span
	hasArgs bool // the call's arguments are JSON (Call.Args), not Params
	params  span // in params
	dialect string
	repairs Repairs
	reason  Reason
	msg     string
	off     int64
}

type heldParam struct {
	name, val span
	hint      Hint
}

func newLoopHold(out Sink, opt *Options) loopHold {
	n := max(opt.Runaway.OpenersWithoutCloser, opt.Runaway.RepeatedCalls)
	if !opt.Runaway.NoGuard {
		n = max(n, opt.Runaway.UnitRepeats)
	}
	return loopHold{out: out, maxUnits: int32(min(n, math.MaxInt32)), maxBytes: n * opt.MaxCall}
}

// busy reports whether anything is held.
func (h *loopHold) busy() bool { return len(h.entries) > 0 }

// holding is the number of input bytes held.
func (h *loopHold) holding() int { return len(h.raw) }

// ---- Sink: what the machine reports while a call may be held ----

func (h *loopHold) Text(b []byte) {
	if !h.busy() || len(b) == 0 {
		h.out.Text(b)
		return
	}
	if len(b) > h.maxBytes || !isBlank(b) && (h.rep == nil || !h.rep.Repeating()) {
		h.release()
		h.out.Text(b)
		return
	}
	if n := len(h.entries); n > 0 && h.entries[n-1].kind == hText && !h.entries[n-1].unit {
		h.raw = append(h.raw, b...) // adjacent text: one entry
		h.entries[n-1].raw.b = len(h.raw)
	} else {
		h.push(heldEntry{kind: hText, raw: h.keepRaw(b)})
	}
	h.trim()
}

func (h *loopHold) Reasoning(text, raw []byte) {
	h.release()
	h.out.Reasoning(text, raw)
}

func (h *loopHold) CallStart(name []byte) {
	if !h.busy() {
		h.out.CallStart(name)
		return
	}
	h.push(heldEntry{kind: hStart, name: h.keepMeta(name)})
}

// Call reports a call that is not held: what waits before it goes first.
func (h *loopHold) Call(c *Call) {
	h.release()
	h.out.Call(c)
}

func (h *loopHold) Discard(raw []byte, reason Reason) {
	if !h.busy() || len(raw) > h.maxBytes {
		h.release()
		h.out.Discard(raw, reason)
		return
	}
	h.push(heldEntry{kind: hDiscard, raw: h.keepRaw(raw), reason: reason})
	h.trim()
}

// Runaway folds everything held into the runaway's raw. Held errors go
// out first; held call starts are dropped.
func (h *loopHold) Runaway(raw []byte, reason Reason) {
	if !h.busy() {
		h.out.Runaway(raw, reason)
		return
	}
	for i := range h.entries {
		if e := &h.entries[i]; e.kind == hError {
			h.emitError(e)
		}
	}
	h.raw = append(h.raw, raw...)
	h.out.Runaway(h.raw, reason)
	h.reset()
}

func (h *loopHold) Error(msg string, offset int64) {
	if !h.busy() {
		h.out.Error(msg, offset)
		return
	}
	h.push(heldEntry{kind: hError, msg: msg, off: offset})
}

// ---- holding ----

// holdCall holds call c: it may belong to a loop.
func (h *loopHold) holdCall(c *Call) {
	e := heldEntry{kind: hCall, unit: true, raw: h.keepRaw(c.Raw), name: h.keepMeta(c.Name), id: h.keepMeta(c.ID),
		dialect: c.Dialect, repairs: c.Repairs, off: c.Offset}
	e.args, e.hasArgs = h.keepMeta(c.Args), c.Args != nil
	e.params.a = len(h.params)
	for _, p := range c.Params {
		h.params = append(h.params, heldParam{name: h.keepMeta(p.Name), val: h.keepMeta(p.Value), hint: p.Hint})
	}
	e.params.b = len(h.params)
	h.push(e)
	h.units++
	h.trim()
}

// holdAsText holds the markup of a call that is not run (no name, or
// arguments that could not be read), given back as text after its error
// when released, or taken by a runaway.
func (h *loopHold) holdAsText(reason Reason, name []byte, msg string, off int64, raw []byte) {
	h.push(heldEntry{kind: hError, reason: reason, name: h.keepMeta(name), msg: msg, off: off})
	h.push(heldEntry{kind: hText, unit: true, raw: h.keepRaw(raw)})
	h.units++
	h.trim()
}

func (h *loopHold) push(e heldEntry) { h.entries = append(h.entries, e) }

func (h *loopHold) keepRaw(b []byte) span {
	a := len(h.raw)
	h.raw = append(h.raw, b...)
	return span{a, len(h.raw)}
}

func (h *loopHold) keepMeta(b []byte) span {
	a := len(h.meta)
	h.meta = append(h.meta, b...)
	return span{a, len(h.meta)}
}

// trim keeps the hold within its bounds: the oldest held call goes first.
func (h *loopHold) trim() {
	for h.busy() && (h.units > h.maxUnits || len(h.raw) > h.maxBytes) {
		h.releaseOldest()
	}
}

// ---- releasing ----

// release reports everything held, in order.
func (h *loopHold) release() {
	if !h.busy() {
		return
	}
	for i := range h.entries {
		h.emit(&h.entries[i])
	}
	h.reset()
}

// releaseOldest reports the entries up to the first held call, and that
// call; with no held call left, the rest too.
func (h *loopHold) releaseOldest() {
	n := 0
	for n < len(h.entries) {
		e := &h.entries[n]
		h.emit(e)
		n++
		if e.unit {
			h.units--
			break
		}
	}
	if h.units == 0 {
		for ; n < len(h.entries); n++ {
			h.emit(&h.entries[n])
		}
	}
	h.drop(n)
}

// drop forgets the first n entries, which were reported, and the bytes
// only they used.
func (h *loopHold) drop(n int) {
	if n == len(h.entries) {
		h.reset()
		return
	}
	rest := h.entries[n:]
	ra, ma, pa := len(h.raw), len(h.meta), len(h.params)
	for i := range rest {
		e := &rest[i]
		if e.kind != hStart && e.kind != hError {
			ra = min(ra, e.raw.a)
		}
		if e.kind == hStart || e.kind == hCall {
			ma = min(ma, e.name.a) // a call's name is kept before its other fields
		}
		if e.kind == hCall {
			pa = min(pa, e.params.a)
		}
	}
	for i := range rest {
		e := &rest[i]
		if e.kind != hStart && e.kind != hError {
			e.raw = e.raw.minus(ra)
		}
		if e.kind == hStart || e.kind == hCall {
			e.name = e.name.minus(ma)
		}
		if e.kind == hCall {
			e.id, e.args, e.params = e.id.minus(ma), e.args.minus(ma), e.params.minus(pa)
		}
	}
	for i := pa; i < len(h.params); i++ {
		p := &h.params[i]
		p.name, p.val = p.name.minus(ma), p.val.minus(ma)
	}
	h.raw = h.raw[:copy(h.raw, h.raw[ra:])]
	h.meta = h.meta[:copy(h.meta, h.meta[ma:])]
	h.params = h.params[:copy(h.params, h.params[pa:])]
	h.entries = h.entries[:copy(h.entries, rest)]
}

func (s span) minus(n int) span { return span{s.a - n, s.b - n} }

func (h *loopHold) reset() {
	h.entries = h.entries[:0]
	h.raw = h.raw[:0]
	h.meta = h.meta[:0]
	h.params = h.params[:0]
	h.units = 0
}

// emit reports one held entry to the sink.
func (h *loopHold) emit(e *heldEntry) {
	raw := h.raw[e.raw.a:e.raw.b]
	switch e.kind {
	case hText:
		h.out.Text(raw)
	case hDiscard:
		h.out.Discard(raw, e.reason)
	case hStart:
		h.out.CallStart(h.meta[e.name.a:e.name.b])
	case hError:
		h.emitError(e)
	case hCall:
		c := Call{Dialect: e.dialect, Name: h.meta[e.name.a:e.name.b], Repairs: e.repairs, Raw: raw, Offset: e.off}
		if e.id.b > e.id.a {
			c.ID = h.meta[e.id.a:e.id.b]
		}
		if e.hasArgs {
			c.Args = h.meta[e.args.a:e.args.b:e.args.b]
			if c.Args == nil {
				c.Args = []byte{}
			}
		}
		if held := h.params[e.params.a:e.params.b]; len(held) > 0 {
			c.Params = make([]Param, 0, len(held)) // a rare path: no buffer kept for it
			for _, p := range held {
				c.Params = append(c.Params, Param{Name: h.meta[p.name.a:p.name.b], Value: h.meta[p.val.a:p.val.b], Hint: p.hint})
			}
		}
		h.out.Call(&c)
	}
}
