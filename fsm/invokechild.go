package fsm

import "github.com/toolsieve/toolsieve/lexer"

// An invoke call whose arguments are child elements named by the
// parameter, without MiniMax-M3's sentinel tokens (GLM-4.7 writes
// `<invoke name="bash"><command>ls</command></invoke>`): the call is
// MiniMax-M3's shape, the dialect whose invoke holds such children. Its
// first element decides: a tag unknown to the lexer, opened before any
// argument, that the declared tool the call names takes (a declared
// property, or any name for a tool without properties). An undeclared
// call, an element the tool does not take, or one after other arguments
// keeps the call's own rules. The call carries marker_variant.

// childSibling is the dialect whose invoke holds child-element arguments.
var childSibling = func() *Spec {
	for i := range table {
		if s := &table[i]; s.childParams && s.call == lexer.Invoke {
			return s
		}
	}
	return nil
}()

// invokeChildren switches the call in progress to childSibling when t,
// met inside it, is its first argument written as a child element.
func (m *Machine) invokeChildren(t *lexer.Token) {
	c := &m.call
	s := c.spec
	if childSibling == nil || s.childParams || s.call != lexer.Invoke || s.param == lexer.Unknown ||
		t.Kind != lexer.Tag || t.Marker != lexer.Unknown || t.Flags&(lexer.Closing|lexer.SelfClosing) != 0 || len(t.NS) > 0 ||
		len(c.params) > 0 || c.done || c.name.a == c.name.b {
		return
	}
	name := m.nameOf(c.name)
	if !m.declared(name) || !m.takes(name, t.Name) {
		return
	}
	m.setDialect(childSibling)
	c.repairs |= RMarkerVariant
}
