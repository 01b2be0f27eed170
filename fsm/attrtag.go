package fsm

import (
	"slices"

	"github.com/toolsieve/toolsieve/lexer"
)

// An element that opens no call of a dialect where it stands (one of no
// dialect's vocabulary, or <tool> outside its wrapper) may name a declared
// tool in its tool (or name) attribute and hold the call's arguments as parameter
// elements: `<call_record tool="read">\n<parameter name="path">a</parameter>
// \n</call_record>` (a harness's own transcript format written back by the
// model). It is the attr_tag dialect (NeedsTools): the element opens a call
// when the attribute's value is a declared tool and the element carries no
// attribute a call dialect never writes (foreignAttr: HTML's
// `<input name="search" type="text" value="..">`, `<form name=.. action=..>`);
// the first closing tag at the call's level ends it (a known element's own
// closer, </tool>, also inside a value whose closer is missing). The call must hold at
// least one parameter and its keys must fit the tool's schema, else its
// markup stays text. Like tool_tag, a dialect of declared tools only, its
// calls carry no repair. Judged whole, they are not streamed (stream.go).

// toolAttrKeys are the attributes that may name the tool, in order.
var toolAttrKeys = [...]string{"tool", "name", "tool_name"}

// attrTags are the dialects opened by an unknown tag's tool attribute.
var attrTags = dialectsWhere(func(s *Spec) bool {
	return slices.ContainsFunc(s.opens, func(op opener) bool { return op.needs == needToolAttr })
})

// toolAttr returns the value of t's first tool-naming attribute when it is
// a declared tool, else nil. One pass over the attributes, comparing keys
// by length first: code and HTML carry many tags with attributes.
func (m *Machine) toolAttr(t *lexer.Token) []byte {
	if m.opt.Declared == nil {
		return nil
	}
	for _, a := range t.Attrs {
		for _, k := range toolAttrKeys {
			if len(a.Key) == len(k) && equalFold(a.Key, k) {
				if m.opt.Declared(a.Val) {
					return a.Val
				}
				return nil
			}
		}
	}
	return nil
}

// toolAttrOpens returns the dialects that unknown tag t opens a call of by
// its tool attribute (attrTags), or none.
func (m *Machine) toolAttrOpens(t *lexer.Token) dset {
	d := attrTags & m.ix.on
	if d == 0 || len(t.Attrs) == 0 || t.Has(lexer.Unclosed) || t.Has(lexer.HalfBar) {
		return 0
	}
	if m.toolAttr(t) == nil || foreignAttr(t) {
		return 0
	}
	return d
}

// toolAttrUnfit reports whether the call in progress is an attr_tag call
// that holds no parameter or whose keys do not fit its tool, and gives its
// markup, buf[:end], back to the text then.
func (m *Machine) toolAttrUnfit(end int) bool {
	if m.call.spec.name != nameToolAttr {
		return false
	}
	keys := make([]string, 0, len(m.call.params))
	for i := range m.call.params {
		if p := &m.call.params[i]; p.name.b > p.name.a {
			keys = append(keys, string(m.nameOf(p.name)))
		}
	}
	if len(keys) > 0 && m.opt.FitsTool != nil && m.opt.FitsTool(m.nameOf(m.call.name), keys) {
		return false
	}
	m.unfitAsText(end) // tagjson.go
	return true
}

// toolAttrInBlock opens an attr_tag call at t, met in a wrapper where a
// call belongs, when t is an element no dialect of the wrapper reads there
// and its tool attribute names a declared tool (`<tool_calls>\n<tool
// name="Bash">\n<parameter name=..>`: <tool> where <invoke> belonged). It
// reports whether it did.
func (m *Machine) toolAttrInBlock(t *lexer.Token) bool {
	if t.Kind != lexer.Tag || t.Has(lexer.Closing) || t.Has(lexer.SelfClosing) || m.roleIn(t, lvBlock) != rNone {
		return false
	}
	d := m.toolAttrOpens(t)
	if d == 0 {
		return false
	}
	m.openCall(t, d.first(), 0)
	return true
}
