package fsm

// Errors about one call. A call kept as text for a reason of the
// vocabulary (the end of input cut it: ErrorCutAtEOF) is reported with
// that reason and the call's tool name, so that the layers above can act
// on it (the chat layer counts a call the answer's cut ended as
// truncated) without reading messages. The sinks between the machine and
// the event builder pass such errors on as they are; a sink that does not
// take them gets a plain Error.

// CallErrorSink is a Sink that takes errors about one call with their
// reason and the call's tool name.
type CallErrorSink interface {
	CallError(reason Reason, name []byte, msg string, offset int64)
}

// callError reports an error about one call to s: with its reason and
// name when s takes them (reason 0: none, a plain Error).
func callError(s Sink, reason Reason, name []byte, msg string, offset int64) {
	if cs, ok := s.(CallErrorSink); ok && reason.IsError() {
		cs.CallError(reason, name, msg, offset)
		return
	}
	s.Error(msg, offset)
}

func (h *loopHold) CallError(reason Reason, name []byte, msg string, offset int64) {
	if !h.busy() {
		callError(h.out, reason, name, msg, offset)
		return
	}
	h.push(heldEntry{kind: hError, reason: reason, name: h.keepMeta(name), msg: msg, off: offset})
}

// emitError reports held error e.
func (h *loopHold) emitError(e *heldEntry) {
	callError(h.out, e.reason, h.meta[e.name.a:e.name.b], e.msg, e.off)
}

func (s tailSink) CallError(reason Reason, name []byte, msg string, offset int64) {
	callError(s.Sink, reason, name, msg, offset)
}

func (s *headerSink) CallError(reason Reason, name []byte, msg string, offset int64) {
	s.release()
	callError(s.Sink, reason, name, msg, offset)
}

// CallError is dropped, as Error is.
func (h *thinkCalls) CallError(Reason, []byte, string, int64) {}
