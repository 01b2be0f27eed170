package fsm

import "github.com/toolsieve/toolsieve/lexer"

// GLM-family models (GLM 4.5 to 5) write a call as `<tool_call>NAME
// <arg_key>K</arg_key><arg_value>V</arg_value></tool_call>`; at times the
// wrapper is lost and the name, glued to its first key element, starts the
// line: `read<arg_key>filePath</arg_key><arg_value>/a</arg_value>` (a
// harness that read it as a tool's name showed it so). Where tools are
// declared, a word alone at a line start (held as a word line,
// wordline.go, or by a probe for a markup line written without '<',
// bare.go) that is a declared tool, followed right away by the key
// element of a key/value dialect (glm's <arg_key>, TeleChat's
// <param_key>), opens that dialect's call named by the word, as a label
// line's call (label.go): it ends after the last argument. It carries
// inferred_call and its keys must fit the tool (else its markup stays
// text). Never in code, never after other words on the line (`I will
// read<arg_key>` is no call), never with a space between (`read
// <arg_key>`), never for an undeclared word.

// wordKeyCall opens the call a held word line names at t, a key element
// met in text, and reports whether it did.
func (m *Machine) wordKeyCall(t *lexer.Token) bool {
	if m.code != codeNone || m.opt.FitsTool == nil || !m.declared(m.held) {
		return false
	}
	s := m.keyDialect(t)
	if s == nil {
		return false
	}
	m.wl = wlNone
	m.openLabelledAt(m.held, m.heldOff, span{0, len(m.held)}, t, s, RInferredCall)
	return true
}

// probedWordKey opens the call named by the word a probe held from a line
// start (a possible opener written without '<', bare.go), at t, a key
// element that follows it right away, and reports whether it did.
func (m *Machine) probedWordKey(t *lexer.Token) bool {
	if !m.probe.line || m.code != codeNone || m.opt.FitsTool == nil || !isIdent(m.buf) || !m.declared(m.buf) {
		return false
	}
	s := m.keyDialect(t)
	if s == nil {
		return false
	}
	m.openLabelledAt(m.buf, m.bufOff, span{0, len(m.buf)}, t, s, RInferredCall)
	return true
}

// keyDialect is the key/value dialect whose key element t opens,
// preferring an enabled one, or nil.
func (m *Machine) keyDialect(t *lexer.Token) *Spec {
	if t.Kind != lexer.Tag || t.Has(lexer.Closing) || t.Has(lexer.SelfClosing) || t.Marker == lexer.Unknown {
		return nil
	}
	var found *Spec
	for i := range table {
		s := &table[i]
		if s.shape != shKV || s.key != t.Marker || s.dsml != t.Has(lexer.DSML) {
			continue
		}
		if found == nil || m.ix.on&specSet(found) == 0 && m.ix.on&specSet(s) != 0 {
			found = s
		}
	}
	return found
}

// wordKeyUnfit gives a labelled call that was inferred (a word line's, a
// <name> tag's: nametag.go) whose keys do not fit its tool back to the
// text (its markup at buf[:end]), and reports whether it did.
func (m *Machine) wordKeyUnfit(end int) bool {
	if m.call.slot != slotLabel || m.call.repairs&RInferredCall == 0 {
		return false
	}
	keys := make([]string, len(m.call.params))
	for i := range m.call.params {
		keys[i] = string(m.nameOf(m.call.params[i].name))
	}
	if m.opt.FitsTool(m.nameOf(m.call.name), keys) {
		return false
	}
	m.unfitAsText(end)
	return true
}
