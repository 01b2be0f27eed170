package fsm

import (
	"bytes"
	"strconv"
)

// A call whose markup held arguments that the machine could not read, and
// none it could, is never reported as a call with `{}`: it would run with
// no arguments where its writer gave some. The handlers that drop argument
// bytes mark the call (call.unread): loose text in a call's body that is no
// argument element (`<invoke name="x">ls -la</invoke>`), a key/value
// dialect's key or value that lost its partner, an argument element without
// a name, a JSON body or attribute that repairs emptied, and arguments that
// are not an object. When such a call completes with no argument read, its
// markup goes back to the text with an error event. A call that kept some
// arguments is reported with them (an argument without a name is left
// out). Calls that really have no arguments (`<invoke name="x"></invoke>`,
// `{"name":"x"}`) are reported with `{}` as before.

// markUnread notes that the call in progress lost argument bytes.
func (m *Machine) markUnread() { m.call.unread = true }

// refuseUnread reports the call in progress, its markup ending at
// buf[:end], as text with an error event if it lost argument bytes and
// kept none. It reports whether it did.
func (m *Machine) refuseUnread(end int) bool {
	if m.namelessParam() {
		m.markUnread()
	}
	if !m.call.unread || m.readSome() {
		return false
	}
	msg := "arguments of tool call " + strconv.Quote(string(m.nameOf(m.call.name))) + " (" + m.call.spec.Name +
		") could not be read; kept as text"
	m.envs = m.envs[:0]
	m.keepAsText(msg, end, m.call.byOpener)
	m.blk.muted++ // the block's own markup stays text too
	m.call = call{loose: -1}
	m.lv = lvBlock
	return true
}

// namelessParam reports whether an argument of the call lost its name
// (`<parameter>v</parameter>`, a glm value without its key).
func (m *Machine) namelessParam() bool {
	for _, p := range m.call.params {
		if p.name.b == p.name.a {
			return true
		}
	}
	return false
}

// readSome reports whether the call in progress kept an argument: a named
// element or a member of its JSON arguments. An envelope marked unread lost
// the arguments of one of its calls.
func (m *Machine) readSome() bool {
	if len(m.envs) > 0 {
		return false
	}
	for _, p := range m.call.params {
		if p.name.b > p.name.a {
			return true
		}
	}
	for _, c := range m.call.args {
		if !isSpace(c) && c != '{' && c != '}' {
			return true
		}
	}
	return false
}

// lostContent reports whether repairs emptied a JSON object: out is `{}`
// but its source src held more than braces and whitespace.
func lostContent(src, out []byte) bool {
	if !bytes.Equal(bytes.TrimSpace(out), []byte("{}")) {
		return false
	}
	for _, c := range src {
		if !isSpace(c) && c != '{' && c != '}' {
			return true
		}
	}
	return false
}

// unreadArgs reports whether a JSON value given as a call's arguments
// holds arguments that are not an object: null and "" say there are none.
func unreadArgs(a []byte) bool {
	a = bytes.TrimSpace(a)
	switch {
	case len(a) == 0, a[0] == '{', string(a) == "null", string(a) == `""`:
		return false
	}
	return true
}

// closedInOpener reports a call whose opener lost its '>' and that its
// closer ended before any argument: `<function=calculator</function>`,
// then the parameters. The model wrote the closer where the opener's end
// belonged; what follows is the call's arguments, outside it. Reported
// with `{}`, it would run without them: it is unread instead (kept as
// text with an error), unless its tool takes no required argument.
func (m *Machine) closedInOpener() bool {
	c := &m.call
	if c.repairs&RUnclosedTag == 0 || c.byOpener || len(c.params) > 0 || c.loose >= 0 || len(bytes.Trim(c.args, "{} \t\r\n")) > 0 {
		return false
	}
	return m.opt.FitsTool == nil || !m.opt.FitsTool(m.nameOf(c.name), nil)
}
