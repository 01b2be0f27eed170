package fsm

import "github.com/toolsieve/toolsieve/lexer"

// A name element's call (nameelem.go) written with the invoke grammar's
// argument elements and closers, as DeepSeek V4 mixes them:
//
//	<function>
//	<name>bash</name>
//	<parameter name="command" string="true">ls</｜｜DSML｜｜parameter>
//	</｜｜DSML｜｜invoke>
//
// In a name element outside any wrapper, a <parameter name="K"> child is the argument K (not an argument
// named `parameter`), closed by </parameter> in any spelling the lexer
// folds (DSML's among them: marker_variant), and the closer of another
// dialect's call element (</invoke>, </function>) stands for the element's
// own closer: it ends the call, which carries corrupted_closer. The
// arguments must still fit the tool (elemChild); a wrapper closer after
// the call is a stray closer, discarded.

// callElems are the call elements of the table's dialects; callEnds their
// end tags (<end_function_call>: markup.go's roleIn).
var (
	callElems = tagSet(func(s *Spec) []lexer.Marker { return []lexer.Marker{s.call} })
	callEnds  = tagSet(func(s *Spec) []lexer.Marker { return []lexer.Marker{s.callEnd} })
)

// elemParamRole is the role of tag t, seen from level lv, in a name
// element's call that named its tool outside a wrapper, when t is an
// argument element of the invoke grammar or another call element's
// closer; ok is false otherwise.
func (m *Machine) elemParamRole(t *lexer.Token, lv level) (r role, ok bool) {
	// slotElem too: the name child's closer may still be pending (decide).
	if m.call.slot != slotNamed && m.call.slot != slotElem || !m.blk.implicit || m.call.spec == nil || m.call.spec.name != nameTag {
		return rNone, false
	}
	closing := t.Has(lexer.Closing)
	switch {
	case t.Marker == lexer.Parameter && !closing && lv == lvCall && !t.Has(lexer.SelfClosing):
		if _, named := t.Attr("name"); named {
			return rParamOpen, true
		}
	case t.Marker == lexer.Parameter && closing && lv == lvValue && m.val.closer == lexer.Parameter:
		return rParamClose, true
	case closing && lv == lvCall && callElems[t.Marker] && t.Marker != m.call.open.marker:
		m.call.repairs |= RCorruptedCloser
		return rCallClose, true
	}
	return rNone, false
}

// elemArgName is the name of the argument that child element t of a
// tool_tag call holds: its name attribute for a <parameter name="K">,
// else its tag name.
func elemArgName(t *lexer.Token) []byte {
	if t.Marker == lexer.Parameter {
		if n, ok := t.Attr("name"); ok {
			return n
		}
	}
	return t.Name
}
