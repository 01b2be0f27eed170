package fsm

import (
	"bytes"

	"github.com/toolsieve/toolsieve/lexer"
)

// A name element is a generic call element (`<function>`, `<tool>`,
// `<call>`) written with no attribute, whose declared tool's name is its
// content instead: a `<name>NAME</name>` child, then the arguments as
// child elements or one JSON object (`<function>\n<name>read_file</name>
// \n<path>a</path>\n</function>`), or the name alone as its text
// (`<tool>exec</tool>`, a call with no arguments). Where tools are
// declared, such an element starting a line opens a tool_tag call on
// probation (slotElem): the name must be the first thing in it and a
// declared tool, and the arguments must fit that tool (their keys, or its
// JSON object, see tagjson.go); anything else (prose, another child first,
// an undeclared name, a sentence around the tag, an illustration or a code
// fence before it) gives the markup back to the text. The call carries
// misplaced_name and inferred_call: the element's name was a guess.

// nameElemTags are the call elements that may hold their tool's name.
var nameElemTags = [...]string{"function", "tool"}

// nameChild is the child element that names the tool.
const nameChild = "name"

// nameElemOpens returns the dialects that tag t, met in text, opens a name
// element's call of (tool_tag), or none.
func (m *Machine) nameElemOpens(t *lexer.Token) dset {
	if !t.Has(lexer.LineStart) || m.illustrated() {
		return 0
	}
	return m.nameElem(t)
}

// nameElem returns the dialects (tool_tag) that tag t opens a name
// element's call of, wherever it stands, or none.
func (m *Machine) nameElem(t *lexer.Token) dset {
	d := declTag & m.ix.on
	if d == 0 || t.Kind != lexer.Tag || t.Flags&(lexer.Closing|lexer.SelfClosing|lexer.Unclosed|lexer.HalfBar|lexer.DSML) != 0 ||
		len(t.Attrs) > 0 || len(t.Value) > 0 || len(t.NS) > 0 || !isNameElem(t.Name) || m.declared(t.Name) {
		return 0
	}
	return d
}

// nameElemInBlock opens a name element's call at t, met in a wrapper where
// a call belongs (`<tool_call>\n<function>NAME</function>\n{..}`). It
// reports whether it did.
func (m *Machine) nameElemInBlock(t *lexer.Token) bool {
	d := m.nameElem(t)
	if d == 0 {
		return false
	}
	m.openCall(t, d.first(), 0)
	return true
}

// elemArgsFollow keeps a name element's call open past the element's
// closer when the element held only its tool's name and stands in a
// wrapper: its arguments (a JSON object) may follow, up to the wrapper's
// closer (`<tool_call>\n<function>NAME</function>\n{..}\n</tool_call>`).
// It reports whether it did; the closer is markup of the call.
func (m *Machine) elemArgsFollow() bool {
	if m.call.slot != slotNamed || m.blk.implicit || len(m.call.params) > 0 || m.call.args != nil {
		return false
	}
	m.call.slot = slotArgs
	return true
}

func isNameElem(name []byte) bool {
	for _, n := range nameElemTags {
		if string(name) == n {
			return true
		}
	}
	return false
}

// elemChild reports whether a child element named name may stand in a
// name element whose tool is not known yet: only the name's own child,
// first.
func (m *Machine) elemChild(name []byte) bool {
	return len(m.call.params) == 0 && string(name) == nameChild
}

// elemNamed settles the tool of a name element once its name child is
// read (the last argument added): a declared tool's name becomes the
// call's tool, and the child is no argument. Another name leaves the call
// on probation: it completes as text.
func (m *Machine) elemNamed() {
	n := len(m.call.params)
	if m.call.slot != slotElem || n != 1 || string(m.nameOf(m.call.params[0].name)) != nameChild {
		return
	}
	v := bytes.TrimSpace(m.paramValue(&m.call.params[0]))
	if !m.declared(v) {
		return
	}
	m.call.tool = m.keepName(v)
	m.call.params = m.call.params[:0]
	m.call.slot = slotNamed
}

// elemNameText settles the tool of a name element from loose text s in its
// body: a declared tool's name as its first content. It reports whether s
// was the name.
func (m *Machine) elemNameText(s []byte) bool {
	if m.lv != lvCall || m.call.slot != slotElem || len(m.call.params) > 0 {
		return false
	}
	v := bytes.TrimSpace(s)
	if !m.declared(v) {
		return false
	}
	m.call.tool = m.keepName(v)
	m.call.slot = slotNamed
	return true
}

// elemUnfit completes a name element's call at buf[:end]: one with no
// declared tool named, or whose arguments do not fit it, goes back to the
// text (it reports true then); else the call takes the tool's name.
func (m *Machine) elemUnfit(end int) bool {
	switch m.call.slot {
	case slotElem:
		m.unfitAsText(end)
		return true
	case slotNamed, slotArgs:
	default:
		return false
	}
	m.call.name, m.call.tool = m.call.tool, span{}
	m.call.slot = slotOwn
	m.call.repairs |= RMisplacedName | RInferredCall
	if len(m.call.params) == 0 {
		return false // no arguments, or a JSON object judged by tagJSONUnfit
	}
	keys := make([]string, len(m.call.params))
	for i := range m.call.params {
		keys[i] = string(m.nameOf(m.call.params[i].name))
	}
	if m.opt.FitsTool != nil && m.opt.FitsTool(m.nameOf(m.call.name), keys) {
		return false
	}
	m.unfitAsText(end)
	return true
}

// elemTool is the tool whose arguments the children of the call in
// progress are: a name element's settled tool, else the call's own name.
func (m *Machine) elemTool() []byte {
	if m.call.slot == slotNamed || m.call.slot == slotArgs {
		return m.nameOf(m.call.tool)
	}
	return m.nameOf(m.call.name)
}

// illustrated reports whether the text before introduced the markup that
// follows as an illustration (see openToolShown), here or earlier.
func (m *Machine) illustrated() bool {
	if m.tail == nil {
		return false
	}
	if !m.tail.shown && illustrates(m.tail.lastLine()) {
		m.tail.shown = true
	}
	return m.tail.shown
}

// elemNameCloses closes the pending closer of a name element's name child
// when text follows it: the name is no content that may hold markup, and
// the text (a JSON object) is the call's arguments. It reports whether it
// did.
func (m *Machine) elemNameCloses() bool {
	if m.call.slot != slotElem || len(m.call.params) > 0 || string(m.nameOf(m.val.tagName)) != nameChild {
		return false
	}
	p := m.pend
	m.pend.active = false
	m.closeValue(p.start, p.repairs)
	return true
}
