package fsm

import "github.com/toolsieve/toolsieve/lexer"

// Markup of another vocabulary that uses a dialect's element names. Two
// signs say an element met in text is a document's, not a call's:
//   - it carries an attribute no call dialect writes: GObject
//     introspection's `<function name="f" c:identifier="..">`, an Odoo data
//     file's `<function model=".." name="..">`; a call element names its
//     tool and at most its id, index, type or argument encoding;
//   - it stands inside an `<example>` or `<examples>` element: a prompt's
//     or a document's worked example of the format, not a call.
// Such an opener is text, and so are the closers that close it
// (textopen.go).

// callAttrs are the attributes the call dialects write on an element that
// opens a block or a call.
var callAttrs = [...]string{"name", "id", "index", "type", "tool", "tool_name", "function", "args",
	"arguments", "call_id", "string", "key", "format"}

// foreignAttr reports whether tag t carries an attribute no call dialect
// writes.
func foreignAttr(t *lexer.Token) bool {
	if t.Kind != lexer.Tag {
		return false
	}
next:
	for _, a := range t.Attrs {
		if len(a.Val) == 0 { // a bare word (`<TOOL: shell>`), not an attribute of a vocabulary
			continue
		}
		for _, k := range callAttrs {
			if equalFold(a.Key, k) {
				continue next
			}
		}
		return true
	}
	return false
}

// exampleTag follows the `<example>` and `<examples>` elements of the text.
func (m *Machine) exampleTag(t *lexer.Token) {
	if t.Kind != lexer.Tag || t.Marker != lexer.Unknown || t.Has(lexer.SelfClosing) || len(t.NS) > 0 {
		return
	}
	if !equalFold(t.Name, "example") && !equalFold(t.Name, "examples") {
		return
	}
	o := m.texts()
	switch {
	case !t.Has(lexer.Closing) && o.examples < 255:
		o.examples++
	case t.Has(lexer.Closing) && o.examples > 0:
		o.examples--
	}
}

// foreignOpener reports whether the opener t, met in text, belongs to
// another vocabulary's document.
func (m *Machine) foreignOpener(t *lexer.Token) bool {
	return m.txtOpen != nil && m.txtOpen.examples > 0 || foreignAttr(t)
}
