package chat

// Cut answers. A call that the end of its content closed (the parser marks
// it closed_at_eof) was finished by the model only when the model ended its
// answer itself: the API's finish marker came, with a finish reason that is
// the model's own (stop, end_turn, ...). When the answer was cut instead (the
// connection broke or closed before the finish marker, or the finish reason
// says the token limit or a filter ended it), such a call is never handed
// on as a call: its markup goes on as text, or, if it had started to
// stream, its arguments are left as the upstream sent them (never closed by
// repair bytes) and the stream ends with the upstream's own ending or an
// error. The call is reported as truncated (RewriteStats.Truncated, an
// error event with reason truncated).
//
// The content stream of an OpenAI choice ends with its finish reason, so
// the rewriter knows at once how it ended. An Anthropic text block and a
// Responses output_text part end before the message's stop reason (or the
// response's status) is known: when their last batch holds a call the end
// closed, the batch waits (cutWait) for the event that tells, and the
// events in between wait with it.

import (
	"bytes"
	"errors"
	"strconv"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/sse"
)

// ErrTruncated ends the output of a Rewriter whose upstream stream ended
// (cleanly) before its API's finish marker: OpenAI's finish_reason or
// [DONE], Anthropic's message_stop, a Responses final event, or an error
// event of the upstream. The answer is incomplete; a call it cut was not
// handed on.
var ErrTruncated = errors.New("toolsieve: the upstream's answer ended before its finish marker; it is incomplete")

// naturalEnd reports a finish reason that says the model ended its answer
// itself: a call the end of the content closed is then the model's (the
// closed_at_eof recovery). Any other reason (length, max_tokens,
// content_filter, refusal, a provider's own such as
// insufficient_system_resource) is a cut.
func naturalEnd(reason []byte) bool {
	switch string(bytes.ToLower(reason)) {
	case "stop", "tool_calls", "function_call", "end_turn", "stop_sequence", "tool_use":
		return true
	}
	return false
}

// closesCall reports a batch of parser events that holds a call the end of
// the content closed, or one it cut (kept as text: cutByEnd).
func closesCall(evs []toolsieve.Event) bool {
	for i := range evs {
		if evs[i].Type == toolsieve.ToolCall && evs[i].HasRepair("closed_at_eof") || cutByEnd(&evs[i]) {
			return true
		}
	}
	return false
}

// cutByEnd reports the parser's error for a call the end of the content
// cut right after its name or inside a value (reason cut_at_eof): its
// markup is text whoever ended the answer, and when the answer was cut,
// the call is reported as truncated (parserCut).
func cutByEnd(e *toolsieve.Event) bool {
	return e.Type == toolsieve.Error && e.Reason == toolsieve.ReasonCutAtEOF
}

// parserCut reports whether e is the parser's error for a call the end of
// the content cut (cutByEnd), in an answer that was cut: the call is
// truncated, not unrecovered markup of the model's.
func (w *streamRewriter) parserCut(e *toolsieve.Event) bool { return w.cutting && cutByEnd(e) }

// cloneEvents copies a batch of parser events out of the parser's buffers.
func cloneEvents(evs []toolsieve.Event) []toolsieve.Event {
	out := make([]toolsieve.Event, len(evs))
	for i := range evs {
		out[i] = evs[i].Clone()
	}
	return out
}

// processEnd takes the batch that ends content stream c (its parser's
// Close); cut says the stream was cut (a finish reason that is not the
// model's own). A broken body, or the end of a stream that had no finish
// marker, cuts it too.
func (f *textFeed) processEnd(s textSink, c *textChan, evs []toolsieve.Event, cut bool) (stop bool) {
	w := f.w
	w.cutting = cut || w.broken || w.atEOF
	stop = f.process(s, c, evs)
	w.cutting = false
	return stop
}

// markCuts notes the calls of a batch that the cut ends (runs calls it
// with each batch while cutting).
func (w *streamRewriter) markCuts(evs []toolsieve.Event) {
	w.cutIdx = w.cutIdx[:0]
	for i := range evs {
		if evs[i].Type == toolsieve.ToolCall && evs[i].HasRepair("closed_at_eof") {
			w.cutIdx = append(w.cutIdx, evs[i].Index)
		}
	}
}

// isCut reports an event of a call the cut ended (its start, a piece of
// its arguments, the call): it is not handed on.
func (w *streamRewriter) isCut(e *toolsieve.Event) bool {
	if !w.cutting {
		return false
	}
	for _, i := range w.cutIdx {
		if i == e.Index {
			return true
		}
	}
	return false
}

// cutCause says what cut the answer, for messages.
func (w *streamRewriter) cutCause() string {
	switch {
	case w.broken:
		return "the upstream's answer broke off"
	case w.atEOF:
		return "the upstream's answer ended before its finish marker"
	}
	return "the finish reason says the answer was cut"
}

// reportTruncated reports call e of content stream c as cut: kept as text,
// or (streamed) left with the arguments sent so far.
func (w *streamRewriter) reportTruncated(c *textChan, e *toolsieve.Event, streamed bool) {
	w.stats.Truncated++
	w.stats.Errors++
	c.cut = true
	how := "kept as text"
	if streamed {
		how = "its arguments were not completed"
		if !w.broken && !w.atEOF {
			// Cut by the limit: the stream ends with an error, not with
			// the upstream's ending (ErrStreamedCut).
			w.fault, w.stopped = ErrStreamedCut, true
		}
	}
	if w.notify != nil {
		n := toolsieve.Event{Type: toolsieve.Error, Reason: toolsieve.ReasonTruncated, Name: e.Name, Offset: e.Offset,
			Message: "tool call " + strconv.Quote(e.Name) + " cut off before the model finished it (" + w.cutCause() + "); " + how}
		w.notify(&n)
	}
}

// refusedCut reports whether e is strict mode's refusal of a call the cut
// ended (it carried closed_at_eof): it is counted as truncated too.
func (w *streamRewriter) refusedCut(e *toolsieve.Event) bool {
	return w.cutting && e.Reason == toolsieve.ReasonRefused && bytes.Contains([]byte(e.Message), []byte("closed_at_eof"))
}

// ---- waiting for the end ----

// cutWait holds the upstream events that came after a content stream's end
// whose last batch holds a call the end closed, until an event says whether
// the model ended there (the next block or item, a natural stop reason) or
// was cut (a limit, an error, the end of the stream). The first event held
// is the one that ended the content stream: replayed, it takes the batch
// kept with the stream.
type cutWait struct {
	evs  []sse.Event
	size int
}

// maxWaitBytes bounds the events held by a cutWait; past it the call is
// taken as cut.
const maxWaitBytes = 64 << 10

// add holds a copy of ev; false when the wait is over its bound.
func (q *cutWait) add(ev *sse.Event) bool {
	q.evs = append(q.evs, ev.Clone())
	q.size += len(ev.Raw)
	return q.size <= maxWaitBytes && len(q.evs) <= 256
}

// eventType returns the type an event declares in its data ("type"), or
// its SSE event name.
func eventType(ev *sse.Event) (string, []byte, []jsonspan.Member) {
	if !jsonspan.Valid(ev.Data) {
		return ev.Type, nil, nil
	}
	ms, _ := jsonspan.Members(ev.Data, 0, nil)
	if m, ok := jsonspan.Lookup(ev.Data, ms, "type"); ok && jsonspan.IsString(ev.Data, m) {
		return string(jsonspan.StringBody(ev.Data, m)), ev.Data, ms
	}
	return ev.Type, ev.Data, ms
}

// ---- torn events ----

// whole returns an event that the end of the stream left unterminated as a
// whole event (its blank line added), or false when it was torn: a data
// line cut before its JSON (or [DONE]) was complete, or a line cut short.
// A torn event is never passed on: a client would read its half line glued
// to whatever follows.
func whole(ev sse.Event) (sse.Event, bool) {
	if !ev.Unterminated || ev.Err != nil {
		return ev, true
	}
	raw := ev.Raw
	lineEnd := len(raw) > 0 && (raw[len(raw)-1] == '\n' || raw[len(raw)-1] == '\r')
	switch {
	case ev.IsMessage():
		if !jsonspan.Valid(ev.Data) && string(bytes.TrimSpace(ev.Data)) != "[DONE]" {
			return ev, false
		}
	case !lineEnd:
		return ev, false
	}
	ev = ev.Clone()
	switch {
	case !lineEnd:
		ev.Raw = append(ev.Raw, "\n\n"...)
	case raw[len(raw)-1] == '\r':
		ev.Raw = append(ev.Raw, '\r') // a CR line end: CR CR ends the block
	default:
		ev.Raw = append(ev.Raw, '\n')
	}
	ev.Unterminated = false
	return ev, true
}
