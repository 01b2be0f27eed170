package fsm

import (
	"bytes"

	"github.com/toolsieve/toolsieve/fsm/pyscan"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/lexer"
)

// Pythonic dialects write calls as Python call expressions inside their
// unit: `[get_weather(city='SF'), ping()]` (llama4_pythonic, lfm2), or one
// call per line (olmo3); pythonic writes the bare list in the text, for
// declared tools (a probe opens it: probe.go), and its ']' ends the unit.
// A pyscan.Scanner reads the unit's body; each call is reported the moment
// its ')' arrives. Text that is not a call makes the scanner fail at the
// first byte that proves it: with no call reported yet, the whole unit goes
// back to the text.

// pyStarts is the pythonic dialect whose body byte c starts, or nil: with
// only pythonic candidates, the one pySpecFor ranks first; beside others,
// a '[' is read as a Python list first (pyList).
func (m *Machine) pyStarts(c byte) *Spec {
	if m.lv != lvBlock || m.blk.calls > 0 || m.blk.cands == 0 || c != '[' && !isWordByte(c) {
		return nil
	}
	if anyOf(m.blk.cands, func(s *Spec) bool { return s.shape != shPython }) {
		if c == '[' {
			return m.pyList()
		}
		return nil
	}
	return m.pySpecFor(c)
}

// pyList is the block's candidate that writes a bracketed list of Python
// calls, when the content has not decided the dialect yet: a '[' is read
// as its body first (lfm2 beside lfm2_json, which share the opener), and
// a JSON array after all falls back to the others (pyToJSON).
func (m *Machine) pyList() *Spec {
	if m.lv != lvBlock || m.blk.spec != nil {
		return nil
	}
	for cands := m.blk.cands; cands != 0; cands &= cands - 1 {
		if s := cands.first(); s.shape == shPython && !s.lines {
			return s
		}
	}
	return nil
}

// pySpecFor is the pythonic dialect among the unit's candidates whose body
// starts with c: a list's '[' or a call's name on its line (lines), one
// whose body is fenced code first when the unit's body opened with a
// fence (minicpm3 and lfm2 share their tokens).
func (m *Machine) pySpecFor(c byte) *Spec {
	var best *Spec
	rank := 0
	for cands := m.blk.cands; cands != 0; cands &= cands - 1 {
		s := cands.first()
		if s.shape != shPython {
			continue
		}
		r := 1
		if s.codeBody == m.blk.fenced {
			r += 2
		}
		if (c == '[') != s.lines {
			r++
		}
		if r > rank {
			best, rank = s, r
		}
	}
	return best
}

// pyToJSON is called where the scanner failed at byte c, buf[call.start:end]
// the body it read: a list whose first element is a '{' is a JSON array of call
// objects when the block had an envelope dialect beside the pythonic one
// (`<|tool_call_start|>[{"name": ..}]`, LFM2's JSON mode and openPangu).
// The body goes back to the block level and is read again as JSON.
func (m *Machine) pyToJSON(end int, c byte) bool {
	if c != '{' || !m.blk.pyFirst || m.blk.calls > 0 || m.blk.muted > 0 || m.py.Calls() > 0 ||
		!bytes.Equal(bytes.TrimSpace(m.buf[m.call.start:end]), []byte("[")) {
		return false
	}
	var alt dset // the opener's dialects that write arrays of call objects
	for _, i := range openers[m.blk.open.marker] {
		if table[i].shape == shEnvelope && table[i].list {
			alt |= 1 << i
		}
	}
	if alt == 0 {
		return false
	}
	m.blk.cands, m.blk.spec, m.blk.pyFirst = alt, nil, false
	rest := bytes.Clone(m.buf[m.call.start:]) // not m.scratch: reading rest may use it
	m.buf = m.buf[:m.call.start]
	m.call = call{loose: -1}
	m.lv = lvBlock
	m.text(rest)
	return true
}

// pyMayStart reports whether loose text in the block may be the first
// call of a pythonic dialect the content decides (olmo3 in <function_calls>,
// llama3_builtin in a call llama3's token opened): the segment is judged
// at its '(' so that the call is not held back.
func (m *Machine) pyMayStart() bool {
	switch {
	case m.lv == lvBlock && m.blk.calls == 0:
	case m.lv == lvCall && m.tokenCallEmpty():
	default:
		return false
	}
	return anyOf(m.blk.cands, func(s *Spec) bool { return s.shape == shPython })
}

// tokenCallEmpty reports whether the call in progress was opened by its
// unit's token and holds nothing yet (llama3's `<|python_tag|>`).
func (m *Machine) tokenCallEmpty() bool {
	c := &m.call
	return c.open.marker.IsSpecial() && c.name.b == c.name.a && !c.done && !c.unread && c.args == nil && len(c.params) == 0 && !c.jsonEnv
}

// pyFromCall turns a call that a unit's token opened, and that holds
// nothing yet, into the pythonic body of a candidate at buf[from:], when
// its text starts like a call. It reports whether it did.
func (m *Machine) pyFromCall(s []byte, from int) bool {
	if m.lv != lvCall || !m.tokenCallEmpty() || !looksPythonic(s) {
		return false
	}
	spec := m.pySpecFor(s[max(firstNonSpace(s), 0)])
	if spec == nil {
		return false
	}
	m.openers-- // the token's call and the body are one call
	m.lv = lvBlock
	m.startPy(spec, from)
	return true
}

// looksPythonic reports whether loose text begins like a call: a name,
// optional spaces, then '('.
func looksPythonic(b []byte) bool {
	b = b[max(firstNonSpace(b), 0):]
	i := 0
	for i < len(b) && (isWordByte(b[i]) || i > 0 && ('0' <= b[i] && b[i] <= '9' || b[i] == '.')) {
		i++
	}
	for i > 0 && i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i > 0 && i < len(b) && b[i] == '('
}

// positionalDict reports whether the first call in b takes a dict as its
// positional argument: '{' is the first byte after its '(' and spaces.
func positionalDict(b []byte) bool {
	i := bytes.IndexByte(b, '(')
	if i < 0 {
		return false
	}
	j := firstNonSpace(b[i+1:])
	return j >= 0 && b[i+1+j] == '{'
}

// startPy begins the pythonic body of a unit of dialect s at buf[from:]:
// bytes already there (a judged segment) are scanned first.
func (m *Machine) startPy(s *Spec, from int) {
	if m.py == nil {
		m.py = new(pyscan.Scanner)
	}
	mode := pyscan.List
	if s.lines {
		mode = pyscan.Lines
	}
	m.py.Reset(mode)
	m.blk.pyFirst = m.blk.cands&^specSet(s) != 0
	m.blk.cands, m.blk.spec = specSet(s), s
	m.call = call{loose: -1, start: from}
	m.setDialect(s)
	m.lv = lvPy
	m.pyScanBuf(from)
}

// pyScanBuf scans buf[from:], bytes of the body not yet scanned.
func (m *Machine) pyScanBuf(from int) {
	for m.lv == lvPy && !m.call.done && from < len(m.buf) {
		n, st := m.py.Write(m.buf[from:])
		if st == pyscan.Failed && from+n < len(m.buf) && m.pyToJSON(from+n, m.buf[from+n]) {
			return
		}
		from = m.pyStatus(st, from+n)
	}
}

// textInPy scans more of the body.
func (m *Machine) textInPy(b []byte) int {
	if m.call.done { // a line call's ')' was read
		return m.textLineEnd(b)
	}
	n, st := m.py.Write(b)
	if !m.add(b[:n]) {
		return n
	}
	if st == pyscan.Failed && n < len(b) && m.pyToJSON(len(m.buf), b[n]) {
		return n
	}
	m.pyStatus(st, len(m.buf))
	return n
}

// pyStatus acts on what the scanner reported with the body scanned up to
// buf[:end], and returns where that end is once reported bytes are gone.
func (m *Machine) pyStatus(st pyscan.Status, end int) int {
	switch st {
	case pyscan.CallDone:
		if m.call.spec.eol {
			m.call.done = true // the line's end decides (textLineEnd)
			return end
		}
		if m.call.spec.kwOnly && m.blk.calls == 0 && positionalDict(m.buf[m.call.start:end]) {
			return m.pyStatus(pyscan.Failed, end)
		}
		before := len(m.buf)
		m.pyCallTaken(end, 0)
		if m.lv == lvBlock {
			m.lv = lvPy // more calls may follow
		}
		return end - (before - len(m.buf))
	case pyscan.ListDone:
		m.lv = lvBlock // only the unit's closer may follow
		if m.blk.implicit {
			m.endBlock(len(m.buf)) // a bare list (pythonic): its ']' ends the unit
			return 0
		}
	case pyscan.Failed:
		if m.blk.calls > 0 || m.blk.muted > 0 {
			m.flushText(len(m.buf)) // what follows the calls is not one
		}
		m.toText() // with no call yet, the unit was not pythonic: all text
		return 0
	}
	return end
}

// pyCall reports a call read by the scanner, its markup ending at buf[:end].
func (m *Machine) pyCall(name, args []byte, end int, rep Repairs) {
	m.argsBuf = append(m.argsBuf[:0], args...)
	m.pyCallIn(name, m.argsBuf, end, rep)
}

// pyCallTaken reports the call the scanner completed or finished, its
// arguments taken without a copy: the scanner writes the next call in
// argsBuf's room.
func (m *Machine) pyCallTaken(end int, rep Repairs) {
	m.argsBuf = m.py.Take(m.argsBuf)
	m.pyCallIn(m.py.Name(), m.argsBuf, end, rep)
}

// pyCallIn reports a call whose arguments are in argsBuf.
func (m *Machine) pyCallIn(name, args []byte, end int, rep Repairs) {
	m.names = m.names[:0] // no other name is live between pythonic calls
	if sfx := m.call.spec.suffix; len(name) > len(sfx) && string(name[len(name)-len(sfx):]) == sfx {
		name = name[:len(name)-len(sfx)]
	}
	m.call.name = m.keepName(name)
	if inner := m.wrappedArgs(name, args); inner != nil {
		args = inner
		rep |= RJSONRepaired
	}
	m.call.args = args
	m.lv = lvCall
	m.completeCall(end, rep)
	if m.lv == lvBlock {
		m.setDialect(m.blk.spec)
	}
}

// pyEnd ends the body at buf[:end] (the unit's closer, or the end of
// input): a call cut off in the middle is completed and marked.
func (m *Machine) pyEnd(end int, rep Repairs) {
	if m.lv != lvPy {
		return
	}
	if m.call.done { // a line call ends its line at the end of input
		m.lineCallDone(end)
		return
	}
	if m.py.InCall() {
		if _, _, _, ok := m.py.Finish(); ok {
			m.pyCallTaken(end, rep|RMissingCloser|RTruncatedJSON)
		}
	}
	if m.lv == lvPy {
		m.lv = lvBlock
	}
}

// tagInPy handles a token inside a pythonic body (its bytes end m.buf):
// string content, the unit's closer, or bytes for the scanner.
func (m *Machine) tagInPy(t *lexer.Token, tokStart int) {
	if m.call.done { // markup after a line call's ')'
		m.lineCallToken(t.Raw)
		m.tagInText(t)
		return
	}
	if !m.py.InString() && t.Kind == lexer.Backticks && m.call.spec.codeBody {
		m.pyEnd(tokStart, 0) // the fence around the body closes: markup, like the opening one
		return
	}
	if !m.py.InString() && m.roleIn(t, lvBlock) == rBlockClose {
		m.pyEnd(tokStart, 0)
		if m.lv == lvBlock {
			m.endBlock(len(m.buf))
		}
		return
	}
	m.pyScanBuf(tokStart)
}

// wrappedArgs returns the arguments object of a Python call written with
// one keyword that wraps it, `read_file(parameters={"path": ..})` (a JSON
// envelope's habit), when the declared tool has no parameter of that name;
// else nil.
func (m *Machine) wrappedArgs(name, args []byte) []byte {
	if m.opt.HasParam == nil {
		return nil
	}
	ms, ok := jsonspan.Members(args, 0, nil)
	if !ok || len(ms) != 1 || args[ms[0].Start] != '{' {
		return nil
	}
	switch k := ms[0].Key; {
	case string(k) != "parameters" && string(k) != "arguments", m.opt.HasParam(name, k):
		return nil
	}
	return args[ms[0].Start:ms[0].End]
}
