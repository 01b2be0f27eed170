package fsm

import "strconv"

// A call that the end of input cut is run only when every argument value
// it holds is complete. At the end of input, a call of a markup dialect
// that holds nothing after its name (no argument, no body, no closer:
// `<function=bash>\n`, `<｜DSML｜invoke name="edit">`), or whose last
// argument value is still open (`<parameter=content>` and part of a file,
// no closer of the value, while the values before it had theirs), is kept
// as text with an error event: a write
// with half its content must not run. A call whose values are complete but
// that lacks its own closer is still reported, with closed_at_eof (the chat
// layer then decides by the answer's finish reason, strict mode refuses
// it).

// cutAtEOF reports whether the call in progress holds nothing after its
// name at the end of input.
func (m *Machine) cutAtEOF() bool {
	c := &m.call
	if c.spec == nil || c.muted || c.done || len(m.envs) > 0 || c.spec.command != "" {
		return false
	}
	if m.lv == lvValue {
		// The last value has no closer: it may be cut anywhere, unless the
		// call's earlier values ended without theirs too (a model that
		// writes no closers at all: its last value ends at the end).
		return c.repairs&RMissingCloser == 0
	}
	return m.lv == lvCall && c.name.b > c.name.a && len(c.params) == 0 && c.args == nil && !c.kv.has && c.loose < 0
}

// refuseCut keeps the call in progress as text with an error event if the
// end of input cut it (cutAtEOF). It reports whether it did.
func (m *Machine) refuseCut() bool {
	if !m.cutAtEOF() {
		return false
	}
	where := "right after its name"
	if m.lv == lvValue {
		where = "inside an argument value"
	}
	name := m.nameOf(m.call.name)
	msg := "tool call " + strconv.Quote(string(name)) + " (" + m.call.spec.Name +
		") was cut by the end of input " + where + "; kept as text"
	m.envs = m.envs[:0]
	m.keepAsTextFor(ErrorCutAtEOF, name, msg, len(m.buf), m.call.byOpener)
	m.blk.muted++ // the block's own markup stays text too
	m.call = call{loose: -1}
	m.lv = lvBlock
	return true
}
