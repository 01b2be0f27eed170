package fsm

import "github.com/toolsieve/toolsieve/lexer"

// A whole answer that is one call's markup in a fenced code block:
//
//	```xml
//	<function_call>
//	  {"name": "get_weather", "arguments": {"location": "Seoul"}}
//	</function_call>
//	```
//
// Markup in code is text, but a model that answers with nothing before
// the fence but the fence's markup calls the tool, as one that writes its
// call object as a ```json fence's body does (fencetext.go). The fence is
// a wrapper of no dialect around the call: its lines go into the call's
// raw bytes as a stray marker (leftover.go). The markup is read as markup
// only where the fence opens the answer (nothing but whitespace before
// it, not even reasoning), is labelled as markup (xml), and its body
// begins with a wrapper that only dialects of JSON call objects write
// (<function_call>): the call is then a JSON object naming a declared
// tool, the evidence a ```json fence's body gives. Other markup in such a
// fence (a tool's own tag, an <invoke>, a wrapper that holds argument
// elements) is an example, as is a fence after prose or after a line
// that introduces an example. Where tools are declared only.

// fenceCall reports whether token t, met in a fenced code block, is the
// opener of a call's markup that the fence wraps.
func (m *Machine) fenceCall(t *lexer.Token) bool {
	if m.code != codeFence || m.fence.phase != fLead || t.Kind == lexer.Backticks || m.fence.depth > 0 ||
		m.opt.Declared == nil || m.left.called || !m.left.blank || string(m.fence.info[:m.fence.n]) != "xml" || m.fence.long {
		return false
	}
	m.code = codeNone // roleAtText reads a token in code as text
	r, cands, _ := m.roleAtText(t)
	m.code = codeFence
	return r == rBlockOpen && cands != 0 && !anyOf(cands, func(s *Spec) bool { return s.shape != shEnvelope }) && !m.illustrated()
}
