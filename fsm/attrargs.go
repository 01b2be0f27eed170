package fsm

import "github.com/toolsieve/toolsieve/lexer"

// A wrapper of a call dialect sometimes holds a declared tool's own
// element written self-closing, its arguments as the element's attributes:
// `<tool_calls>\n<read file="a.html" />\n</tool_calls>`. Where the wrapper
// expects its call, such an element is the call (tool_tag), its attributes
// the arguments as strings (typed by the schema later), entities decoded.
// Only inside a wrapper: in text, a self-closing element with attributes
// is a document's (`<img src=..>`). The keys must fit the tool's schema,
// else the markup stays text with an error; the call carries
// inferred_call, as no dialect writes this shape. An element whose
// attributes do not fit is left to the wrapper's dialect, as before.

// selfClosedTool opens and completes a call at t, a self-closing element
// met in a wrapper where a call belongs, when it names a declared tool and
// carries attributes. It reports whether it did.
func (m *Machine) selfClosedTool(t *lexer.Token) bool {
	if t.Kind != lexer.Tag || t.Marker != lexer.Unknown || !t.Has(lexer.SelfClosing) || t.Has(lexer.Closing) ||
		len(t.Attrs) == 0 || len(t.Value) > 0 || !m.declared(t.Name) {
		return false
	}
	d := declTag & m.ix.on
	if d == 0 || m.opt.FitsTool == nil {
		return false
	}
	keys := make([]string, len(t.Attrs))
	for i, a := range t.Attrs {
		keys[i] = string(a.Key)
	}
	if !m.opt.FitsTool(t.Name, keys) {
		return false
	}
	m.openCall(t, d.first(), RInferredCall)
	for _, a := range t.Attrs {
		name := m.keepName(a.Key)
		v := span{len(m.names), len(m.names)}
		m.names = appendDecoded(m.names, a.Val) // entities.go
		v.b = len(m.names)
		m.call.params = append(m.call.params, pspan{name: name, val: v, inNames: true})
	}
	m.completeCall(len(m.buf), 0)
	return true
}
