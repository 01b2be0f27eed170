package fsm

import (
	"bytes"

	"github.com/toolsieve/toolsieve/lexer"
)

// An argument element whose name lost its last letters (`<paramete
// name="urls">`, MiniMax M2.5): inside a call of a dialect whose argument
// element is named by an attribute, a tag unknown to the lexer whose name
// is the argument element's name cut short by at most maxCut letters, no
// shorter than minSpell, and that carries the argument's name attribute,
// opens an argument (marker_variant). Its closer, spelt alike, is a
// misspelt closer (corruptParamCloser). Outside a call such a tag is text.

const (
	maxCut   = 3 // letters a misspelt argument element may lack
	minSpell = 5 // letters it must keep
)

// misspeltParam reports whether t opens an argument of the call in
// progress under a cut-short name.
func (m *Machine) misspeltParam(t *lexer.Token) bool {
	s := m.call.spec
	if t.Kind != lexer.Tag || t.Marker != lexer.Unknown || t.Flags&(lexer.Closing|lexer.SelfClosing) != 0 ||
		s.shape != shXML || s.param == lexer.Unknown || len(t.NS) > 0 {
		return false
	}
	want := s.param.String()
	if len(t.Name) < minSpell || len(t.Name) >= len(want) || len(want)-len(t.Name) > maxCut ||
		!bytes.EqualFold(t.Name, []byte(want[:len(t.Name)])) {
		return false
	}
	_, ok := s.attrOf(t, true)
	return ok
}

// openMisspelt opens the argument that misspelt element t starts at
// tokStart.
func (m *Machine) openMisspelt(t *lexer.Token, tokStart int) {
	m.looseValue(tokStart)
	m.openValue(t, false)
	m.val.closer = m.call.spec.param
	m.call.repairs |= RMarkerVariant
}
