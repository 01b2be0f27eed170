package fsm

import "math"

// A loop after a whole call. A model may write a call whose JSON
// arguments are whole, leave out its closer, and run away in what follows
// (an invented tool result repeating one line, a second copy of the
// arguments without end). The runaway then stops the machine inside the
// call, and the call, which came before the loop and lost nothing, would
// go with it. A JSON body is self-delimiting: when the repeated tail that
// fired the guard began at or after the end of the call's arguments, the
// call is not part of the loop. It is completed where its arguments ended,
// with missing_closer, and the rest is the runaway. A call whose
// arguments were cut, could not be read, or were written in elements (a
// later element may still belong to it) is not: it goes with the runaway.

// argsWhole records, as a JSON body ends, where the call's arguments end
// in m.buf when they are whole (not cut short by the end of the body).
func (m *Machine) argsWhole(truncated bool) {
	m.call.argsEnd = 0
	end := m.call.jsonAt + m.json.Len()
	if truncated || m.call.unread || end > len(m.buf) || end > math.MaxInt32 {
		return
	}
	m.call.argsEnd = int32(end)
}

// callBeforeLoop completes the call in progress, at the end of its whole
// JSON arguments, when the loop that fired the guard began after them.
func (m *Machine) callBeforeLoop() {
	end := int(m.call.argsEnd)
	switch {
	case end == 0 || end > len(m.buf) || m.call.unread || len(m.call.params) > 0 || m.call.kv.has:
		return
	case m.lv != lvCall && m.lv != lvJSON && m.lv != lvValue:
		return
	case m.bufOff+int64(end) > m.lex.Guard().LoopStart():
		return // the loop began inside the arguments
	}
	m.lv = lvCall // a second body or value in progress is part of the runaway
	m.completeCall(end, RMissingCloser)
}
