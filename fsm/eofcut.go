package fsm

import "strconv"

// A call that the end of input cut right after its name is not run with
// no arguments: at the end of input, a call of a markup dialect that holds
// nothing after its name (no argument, no body, no closer:
// `<function=bash>\n`, `<｜DSML｜invoke name="edit">`) is kept as text with
// an error event, never reported as a call with `{}`. A call cut inside a
// value is still reported, with closed_at_eof (the chat layer then decides
// by the answer's finish reason, strict mode refuses it), and so is a call
// whose body is complete but lacks its closer.

// cutAtEOF reports whether the call in progress holds nothing after its
// name at the end of input.
func (m *Machine) cutAtEOF() bool {
	c := &m.call
	if c.spec == nil || c.muted || c.done || len(m.envs) > 0 || c.spec.command != "" {
		return false
	}
	return m.lv == lvCall && c.name.b > c.name.a && len(c.params) == 0 && c.args == nil && !c.kv.has && c.loose < 0
}

// refuseCut keeps the call in progress as text with an error event if the
// end of input cut it (cutAtEOF). It reports whether it did.
func (m *Machine) refuseCut() bool {
	if !m.cutAtEOF() {
		return false
	}
	msg := "tool call " + strconv.Quote(string(m.nameOf(m.call.name))) + " (" + m.call.spec.Name +
		") was cut by the end of input right after its name; kept as text"
	m.envs = m.envs[:0]
	m.keepAsText(msg, len(m.buf), m.call.byOpener)
	m.blk.muted++ // the block's own markup stays text too
	m.call = call{loose: -1}
	m.lv = lvBlock
	return true
}
