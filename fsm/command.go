package fsm

import (
	"bytes"

	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/lexer"
)

// CWM ("Cursor-style" tool tags) writes a call as a command line:
//
//	<tool: function>
//	terminal find . -name "*.py"
//	</tool>
//
// The tag's label is informational. The body's first word is the tool's
// name; the rest, up to the closer, is one raw-text value: a JSON object
// there is the call's arguments, any other text the one argument the
// dialect names ({"command": "find . -name \"*.py\""}). The value is read
// like any argument value (markup in it is content); its first closer
// ends the call, as the servers' parsers end it.

// maxCommandName bounds a command call's name: a longer first word is no
// tool's name, and the unit is text.
const maxCommandName = 128

// commandHeader reads the name: text is header text until it is complete.
var commandHeader = header{
	loose: func(c *call) bool { return !c.hdr.named },
	bare: func(m *Machine, end int) { // cut off in the name (the end of input)
		if !m.call.hdr.named {
			m.setName(bytes.TrimSpace(m.looseText(end)))
		}
	},
}

// textCommandName reads the name at the start of a command call's body
// (its first byte is at call.loose) up to the whitespace after it, then
// opens the value.
func (m *Machine) textCommandName(b []byte) int {
	c := &m.call
	from := max(0, c.loose-len(m.buf))
	j := bytes.IndexAny(b[from:], " \t\r\n")
	if j < 0 {
		if len(m.buf)+len(b)-c.loose > maxCommandName {
			m.toText()
			return 0
		}
		m.add(b)
		return len(b)
	}
	j += from
	if !m.add(b[:j]) {
		return j
	}
	if len(m.buf)-c.loose > maxCommandName {
		m.toText()
		return j
	}
	m.setName(m.looseText(len(m.buf)))
	c.loose = -1
	m.val = value{start: len(m.buf), closer: c.spec.closer}
	m.lv = lvValue
	return j
}

// commandCloses ends a command call at its closer t (its bytes at
// buf[tokStart:]), and reports whether it did.
func (m *Machine) commandCloses(t *lexer.Token, tokStart int) bool {
	c := &m.call
	if c.spec == nil || c.spec.command == "" || t.Kind != lexer.Tag || t.Marker != c.spec.closer || !t.Has(lexer.Closing) {
		return false
	}
	m.note(t)
	m.openers = 0
	if m.lv == lvCall && !c.hdr.named { // `<tool: function>ls</tool>`: the name alone
		m.setName(bytes.TrimSpace(m.looseText(tokStart)))
		c.loose = -1
		m.val = value{start: tokStart, closer: c.spec.closer}
		m.lv = lvValue
	}
	if m.lv == lvValue {
		m.lv = lvCall
		m.commandValue(tokStart)
	}
	m.completeCall(len(m.buf), 0)
	return true
}

// commandValue takes the value at buf[val.start:end] as the call's
// arguments: a JSON object as it is, other text as the named argument.
func (m *Machine) commandValue(end int) {
	v := span{m.val.start, max(end, m.val.start)} // as closeValue: a bare closer may reach back into the opener
	for v.a < v.b && isSpace(m.buf[v.a]) {
		v.a++
	}
	v.b = trimRight(m.buf, v)
	if w := m.buf[v.a:v.b]; len(w) > 0 && w[0] == '{' && jsonspan.Valid(w) {
		m.call.args = append(m.argsBuf[:0], w...)
		m.argsBuf = m.call.args
		return
	}
	m.addParam(m.keepName([]byte(m.call.spec.command)), v, HintString)
}
