package fsm

import (
	"bytes"
	"strconv"
)

// A declared tool's own tag may hold its arguments as one JSON object
// instead of child elements: `<read_file>{"path": "a"}</read_file>`, also
// inside a wrapper (`<toolcall><NAME>{..}</NAME></toolcall>`). The tag
// name alone is a guess (documentation and HTML use such tags), so the
// object must fit the tool's schema (its keys are properties it declares,
// or it declares none) and must not be a JSON schema itself; the call
// carries inferred_call. An object that does not fit gives all back to
// the text.

// tagJSONUnfit reports whether the call in progress is a tool tag's JSON
// body that does not fit its tool, and gives its markup, buf[:end], back
// to the text then. A fitting one is marked inferred_call.
func (m *Machine) tagJSONUnfit(end int) bool {
	if m.call.spec.name != nameTag || m.call.args == nil || len(m.call.params) > 0 {
		return false
	}
	if m.tagJSONFits() {
		m.call.repairs |= RInferredCall
		return false
	}
	m.unfitAsText(end)
	return true
}

// unfitAsText gives the markup of a call whose arguments do not fit its
// tool, buf[:end], back to the text. When the call's start was reported
// or the call stands in a wrapper, an error event says so, and the
// wrapper's markup stays text too.
func (m *Machine) unfitAsText(end int) {
	if m.call.started || !m.blk.implicit {
		m.keepAsText("arguments of tool call "+strconv.Quote(string(m.nameOf(m.call.name)))+" ("+m.call.spec.Name+
			") do not fit its schema; kept as text", end, m.call.byOpener)
		m.blk.muted++ // the wrapper's own markup stays text too
	} else {
		m.flushText(end)
	}
	m.call = call{loose: -1}
	m.lv = lvBlock
}

// tagJSONFits reports whether the call's JSON arguments fit its tool.
func (m *Machine) tagJSONFits() bool {
	if m.opt.FitsTool == nil || m.call.repairs&RTruncatedJSON != 0 {
		return false
	}
	a := bytes.TrimSpace(m.call.args)
	if len(a) == 0 || a[0] != '{' {
		return false
	}
	return m.objectFits(m.nameOf(m.call.name), a) // anchor.go
}
