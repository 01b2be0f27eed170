package fsm

import (
	"github.com/toolsieve/toolsieve/lexer"
)

// An argument written as one self-closing element, its value in an
// attribute: `<parameter name="cmd" value="ls"/>`, or, in DSML, the
// value in the attribute that says how the value is written
// (`string="echo alpha"` where `string="true"` belonged). Models also
// write it with the call element's name, inside the open call:
// `<｜DSML｜invoke name="cmd" string="echo alpha" />` (marker_substituted).
// Only inside a call of a dialect whose calls hold argument elements
// named by an attribute; a call element naming a declared tool is a call,
// never an argument, and an element without a value attribute is no
// argument (it falls through to the call's other rules).

// valueAttrs are the attributes that may hold a self-closing argument's
// value; `string` only when it is not the boolean that types the value.
var valueAttrs = [...]string{"value", "string", "content"}

// selfClosingArg adds the argument that self-closing element t, at
// tokStart in m.buf, writes, and reports whether it did.
func (m *Machine) selfClosingArg(t *lexer.Token, tokStart int) bool {
	s := m.call.spec
	if t.Kind != lexer.Tag || !t.Has(lexer.SelfClosing) || s.shape != shXML || s.name != nameAttr ||
		t.Marker == lexer.Unknown || t.Marker != s.param && t.Marker != s.call {
		return false
	}
	key, ok := s.attrOf(t, t.Marker == s.param)
	if !ok || len(key) == 0 {
		return false
	}
	rep := RMarkerVariant // the argument element in a variant spelling: its value in an attribute
	if t.Marker == s.call {
		if m.declared(key) || m.call.name.a == m.call.name.b {
			return false // a call of its own
		}
		rep = RMarkerSubstituted
	}
	val, ok := selfClosingValue(t)
	if !ok {
		return false
	}
	m.looseValue(tokStart)
	m.note(t)
	m.call.repairs |= rep
	k := m.keepName(unescapeAttrName(key))
	m.call.params = append(m.call.params, pspan{name: k, val: m.keepName(val), inNames: true})
	return true
}

// selfClosingValue returns the value attribute of t.
func selfClosingValue(t *lexer.Token) ([]byte, bool) {
	for _, a := range valueAttrs {
		v, ok := t.Attr(a)
		if !ok || a == "string" && (string(v) == "true" || string(v) == "false") {
			continue
		}
		return v, true
	}
	return nil, false
}
