package fsm

import "github.com/toolsieve/toolsieve/lexer"

// A wrapper of a dialect that names its tool elsewhere (hermes' JSON
// envelope, glm's name text) sometimes holds a declared tool's own tag
// instead: `<toolcall><NAME>{..}</NAME></toolcall>`,
// `<tool_call>\n<NAME>\n<K>V</K>\n</NAME>\n</tool_call>`. Where the wrapper
// expects its call, such a tag opens a tool_tag call (its arguments child
// elements or one JSON object that must fit the tool, tagjson.go); the
// wrapper's closer then ends the block as it would its own call. An
// undeclared tag is left to the wrapper's dialect.

// toolTagInBlock opens a tool_tag call at t, met in a block where a call
// belongs, when t is a declared tool's opening tag. It reports whether it
// did.
func (m *Machine) toolTagInBlock(t *lexer.Token) bool {
	if m.nameElemInBlock(t) || m.selfClosedTool(t) || m.toolAttrInBlock(t) { // nameelem.go, attrargs.go, attrtag.go
		return true
	}
	if t.Kind != lexer.Tag || t.Marker != lexer.Unknown || t.Has(lexer.Closing) || t.Has(lexer.SelfClosing) ||
		t.Has(lexer.Unclosed) || t.Has(lexer.HalfBar) || m.opt.Declared == nil || !m.opt.Declared(t.Name) {
		return false
	}
	d := declTag & m.ix.on
	if d == 0 {
		return false
	}
	m.openCall(t, d.first(), 0)
	return true
}
