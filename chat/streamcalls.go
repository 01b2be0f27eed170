package chat

// Streamed calls (Options.StreamCalls): a recovered call goes out as a
// native provider streams one, while the model is still writing it. Its
// parser's tool_call_start becomes the call's opening (OpenAI: a tool_calls
// delta with id, type and name; Anthropic: a tool_use content_block_start;
// Responses: a function_call output_item.added), each tool_call_delta a
// piece of its arguments (OpenAI function.arguments, Anthropic
// input_json_delta, Responses function_call_arguments.delta), and its
// tool_call the call's end (Anthropic content_block_stop, Responses
// function_call_arguments.done and output_item.done).
//
// A started call that does not complete:
//   - a runaway (it belonged to a loop): the stream ends with an error
//     (ErrStreamedLoop), never with a call a client would run;
//   - its markup given back as text (arguments that could not be read,
//     a value the end of input cut, refused by strict mode): nothing more
//     is sent and the stream ends with an error (ErrStreamedLost when no
//     argument had gone out, ErrStreamedUnread after some had): finished,
//     it would run with no arguments, or with arguments the parser did not
//     read as the call's, or that strict mode refused;
//   - cut before the model finished it (a broken connection, no finish
//     marker, the token limit; see cut.go): nothing more is sent, not even
//     the bytes that would close its arguments; the stream ends with an
//     error (the connection's, ErrTruncated, or ErrStreamedCut in place of
//     the upstream's token-limit ending).

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/toolsieve/toolsieve"
)

// ErrStreamedCall is what ends a stream whose call had started to go out
// and then could not complete as a call a client may run; the errors
// below say why, and match it (errors.Is).
var ErrStreamedCall = errors.New("toolsieve: a streamed tool call could not complete; the answer is cut")

// ErrStreamedLoop: a loop was found after its call started streaming.
var ErrStreamedLoop = fmt.Errorf("%w: a loop was found after it started", ErrStreamedCall)

// ErrStreamedLost: the call could not complete before any of its arguments
// went out; finished, it would run with none.
var ErrStreamedLost = fmt.Errorf("%w: it lost its arguments", ErrStreamedCall)

// ErrStreamedUnread: the call's markup was given back as text after some
// of its arguments went out (the rest could not be read, the end of input
// cut a value, strict mode refused it). Finishing it with the arguments
// sent would run a call the parser did not recover.
var ErrStreamedUnread = fmt.Errorf("%w: its markup was given back as text after its arguments started", ErrStreamedCall)

// ErrStreamedCut: the upstream's own ending said the answer was cut (the
// token limit, a filter) while the call was streaming. The stream ends
// with this error instead of that ending: some clients complete the
// arguments of a call left open (Anthropic's SDKs read them as partial
// JSON), and only an error makes every client drop it.
var ErrStreamedCut = fmt.Errorf("%w: the answer was cut (token limit) while it streamed", ErrStreamedCall)

// streamedCall is the call a content stream is sending piece by piece.
type streamedCall struct {
	open     bool
	index    int // the parser's call index
	id, name string
	args     []byte // the arguments sent so far
	out      int    // where the API's stream put it (tool index, block, output item)
	item     []byte // Responses: the item id, a JSON string body
}

// sentArgs reports whether anything of the arguments went out beyond
// their opening brace.
func (sc *streamedCall) sentArgs() bool { return len(sc.args) > 1 }

// streamEvent handles the events of a streamed call; it reports false for
// an event it leaves to runs. c is the content stream the events are of.
func (w *streamRewriter) streamEvent(e *toolsieve.Event, s sink, c *textChan, kind *runKind, buf *[]byte) (handled, stop bool) {
	sc := &c.sc
	switch e.Type {
	case toolsieve.ToolCallStart:
		if !w.opt.StreamCalls || w.isCut(e) {
			return true, false // a call the cut ends does not start: its markup stays text
		}
		w.flushRun(s, kind, buf)
		*sc = streamedCall{open: true, index: e.Index, id: e.ID, name: e.Name, args: sc.args[:0]}
		s.callStart(sc)
		return true, false
	case toolsieve.ToolCallDelta:
		if sc.open && e.Index == sc.index && !w.isCut(e) {
			sc.args = append(sc.args, e.Arguments...)
			s.callDelta(sc, e.Arguments)
		}
		return true, false
	}
	if !sc.open {
		return false, false
	}
	switch e.Type {
	case toolsieve.ToolCall:
		if e.Index != sc.index {
			return false, false
		}
		sc.open = false
		if w.isCut(e) {
			// Left as it went out: what would close its arguments is not
			// the model's.
			w.reportTruncated(c, e, true)
			return true, false
		}
		w.report(e)
		s.callEnd(sc)
		return true, false
	case toolsieve.Runaway:
		sc.open = false
		w.report(e)
		w.reportError("a loop was found after tool call "+strconv.Quote(sc.name)+" started streaming; the answer is cut", e.Offset)
		w.fault, w.stopped = ErrStreamedLoop, true
		return true, true
	case toolsieve.Text, toolsieve.Error:
		sc.open = false
		if w.cutting {
			// The cut ended it: nothing completes what went out (its
			// markup, given back, is not sent again; its error is the cut).
			cut := toolsieve.Event{Name: sc.name, Index: sc.index, Offset: e.Offset}
			w.reportTruncated(c, &cut, true)
			return true, false
		}
		// The call's markup given back as text (its error follows), or an
		// error that ends it: what went out is never finished as a call
		// (fail closed); the answer ends with an error.
		if !sc.sentArgs() {
			w.reportError("streamed tool call "+strconv.Quote(sc.name)+" lost its arguments; the answer is cut", e.Offset)
			w.fault, w.stopped = ErrStreamedLost, true
			return true, true
		}
		w.reportError("streamed tool call "+strconv.Quote(sc.name)+" could not complete (its markup was given back as text); the answer is cut", e.Offset)
		w.fault, w.stopped = ErrStreamedUnread, true
		return true, true
	}
	return false, false
}
