package fsm

import "github.com/toolsieve/toolsieve/lexer"

// Qwen3-Coder writes `<function=NAME>` before its `<parameter=K>`
// elements; models that mix it with the name-element habit write the name
// in a <name> tag instead, closed by whatever closer comes to hand:
//
//	<name>task
//	</parameter>
//	<parameter=description>
//	Add a comment
//	</parameter>
//	</function>
//
// Such a tag names the call the way a label line does (label.go): where
// tools are declared, a <name> tag without attributes at a line start (not
// in code, not after an illustration) is held with the name after it and
// the first closing tag that follows (</name>, </parameter>, ...), then
// whitespace; if the next token opens an argument element of a dialect and
// the name is a declared tool, the held bytes open that dialect's call
// (misplaced_name and inferred_call: its keys must fit the tool, else its
// markup stays text, wordkey.go), which ends at its own closer or after
// its last argument. Anything else (more words, no closer, an undeclared name, no
// argument element next) gives the held bytes back to the text.

// nameTagLabel starts holding a <name> tag met in text, t, as a label; it
// reports whether it did.
func (m *Machine) nameTagLabel(t *lexer.Token) bool {
	if t.Kind != lexer.Tag || t.Marker != lexer.Unknown || !t.Has(lexer.LineStart) || t.Flags&(lexer.Closing|lexer.SelfClosing) != 0 ||
		len(t.Attrs) > 0 || !equalFold(t.Name, nameChild) || m.code != codeNone || m.opt.FitsTool == nil || m.illustrated() {
		return false
	}
	if m.lbl == nil {
		m.lbl = new(label)
	}
	if m.labelHeld() || m.lbl.replay {
		return false
	}
	*m.lbl = label{state: lbTagName, held: append(m.lbl.held[:0], t.Raw...), off: t.Offset}
	return true
}

// stepTagName advances a <name> tag's label by c, held at pos: blanks,
// the name, blanks.
func (l *label) stepTagName(c byte, pos int) bool {
	named := l.name.b > l.name.a
	switch {
	case isLabelNameByte(c) && !named:
		l.name = span{pos, pos + 1}
	case isLabelNameByte(c) && l.name.b == pos && l.name.b-l.name.a < maxLabelName:
		l.name.b++
	case isSpace(c) && l.wait < maxLabelWait:
		l.wait++
	default:
		return false
	}
	return true
}

// tagNameCloses takes t, the closing tag after a <name> tag's name, into
// the held label, which then waits for its first argument element; it
// reports whether it did.
func (m *Machine) tagNameCloses(t *lexer.Token) bool {
	l := m.lbl
	if l.state != lbTagName || l.name.b == l.name.a || t.Kind != lexer.Tag || !t.Has(lexer.Closing) {
		return false
	}
	l.held = append(l.held, t.Raw...)
	l.state, l.wait = lbWait, 0
	return true
}
