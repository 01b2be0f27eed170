package fsm

// Gemini writes the calls it means to make as code for its tool runner, in
// a fence labelled tool_code:
//
//	```tool_code
//	print(default_api.read_file(path="a.txt"))
//	```
//
// Markup in code is text, and a python fence shows code to the user; a
// fence labelled tool_code is the one whose body is calls. Its body may
// be line calls of declared tools (linecall.go, with the prefixes of
// callexpr.go): from its first line on, each line that is one is a call,
// up to the first line that is not; from there on, the fence is code and
// its text (a fence that opens with other code is all text). A call there
// must fit the tool's schema and carries inferred_call, like one behind a
// prefix.

// toolCode reports an info string that labels code for the tool runner.
func (f *fenceText) toolCode() bool { return string(f.info[:f.n]) == "tool_code" && !f.long }

// fenceBodyStart starts a probe at b[0], the start of the body of a json
// fence (a call may start there only) or of a line of a tool_code fence's
// body, when a call may start there. It reports whether it did.
func (m *Machine) fenceBodyStart(b []byte) bool {
	if m.fenceLineCall(b) {
		return true
	}
	i, _ := m.openerAt(b)
	if i == 0 {
		m.startProbe(m.textOff, m.atLine)
	}
	m.fence.phase = fBody
	return i == 0
}

// fenceLineCall starts a line call at b, the start of a line of a
// tool_code fence's body where only calls stood before, when it may be
// one. It reports whether it did.
func (m *Machine) fenceLineCall(b []byte) bool {
	if !m.fence.toolCode() || !m.ix.lineCalls || !m.mayLineCall(b) {
		return false
	}
	m.startProbe(m.textOff, false)
	m.startLineCall()
	m.fence.phase = fBody // a line that is no call makes the rest code (fenceCallDone: the next line after a call)
	return true
}

// fenceCallDone lets the next line of a tool_code fence be a call too,
// after one was reported there.
func (m *Machine) fenceCallDone() {
	if m.code == codeFence && m.fence.toolCode() {
		m.fence.phase = fLead
	}
}
