package fsm

import "github.com/toolsieve/toolsieve/lexer"

// Streamed arguments (Options.Stream). A call starts (Sink.CallStart) once
// its name is known and a named argument opened; after each chunk the
// machine then tells an argSink how far its arguments have been read: each
// argument element once it is complete, and the bytes of the value being
// written that can no longer change. A client can then show a long value
// (a file being written) while the model is still writing it.
//
// Only bytes that are final are reported: the value of an argument ends
// where its closer begins, so the bytes a pending closer may claim, the
// word before a '>' that may turn out to be a misspelt closer
// (`…parameter>`), and the newline a dialect trims off the end of a value
// wait until what follows decides them. A value that may turn out to be one
// CDATA section is not reported until it is complete.
//
// Arguments are reported only while nothing may change what was already
// reported: not for a call on probation (a name in a parameter slot, a
// marker that may stand for an argument's opener), not for a call in a run
// of openers without closers (it may belong to a loop), not while calls are
// held as a possible loop (loopHold.args). JSON
// bodies are walked in jsonstream.go; pythonic and other bodies report
// nothing: their arguments come with the call.

// argSink receives the arguments of the started call in progress. A sink
// given to New that implements it gets them when Options.Stream is set.
// Byte slices are valid only during the call.
type argSink interface {
	// Arg reports the next complete argument of the call: its name, value
	// and hint, as the call will carry it in Call.Params.
	Arg(name, value []byte, hint Hint)
	// ArgPrefix reports the first bytes of the argument that follows the
	// ones reported with Arg: the value's bytes so far that are final. It
	// is reported again, longer, as more is read; then that argument comes
	// whole with Arg.
	ArgPrefix(name, prefix []byte, hint Hint)
	// JSONArg reports the next member of a JSON arguments object: its key
	// token and its value, valid JSON (jsonstream.go).
	JSONArg(key, value []byte)
	// JSONArgPrefix reports the first bytes of the string value of the
	// member that follows the ones reported with JSONArg: the string's
	// body so far, in JSON, of whole characters and escapes.
	JSONArgPrefix(key, body []byte)
}

// streamArgs reports the progress of the started call's arguments. The
// test is apart so that it is inlined: a Write that streams nothing calls
// nothing.
func (m *Machine) streamArgs() {
	if m.opt.Stream {
		m.streamProgress()
	}
}

func (m *Machine) streamProgress() {
	c := &m.call
	if m.lv == lvJSON {
		m.flushJSON()                                                                                  // the walk reads what the scanner wrote (jsonfast.go)
		if m.lv == lvJSON && !c.muted && m.openers <= 1 && c.spec.name != nameTag && m.jsonStreams() { // a tool tag's JSON is judged whole (tagjson.go)
			m.walkJSON()
		}
		return
	}
	if m.lv != lvCall && m.lv != lvValue {
		return
	}
	if c.muted || c.swap != nil || c.slot != slotOwn || c.spec.shape == shAttrJSON || c.spec.name == nameToolAttr || m.openers > 1 || len(m.envs) > 0 {
		return
	}
	// attr_tag calls (attrtag.go) are judged whole by their keys: not streamed.
	if !c.started {
		// A call starts once a named argument opened: an opener repeated
		// with nothing in it is a loop's, and one without a wrapper may be
		// a tag that prose holds.
		if !m.namedArg() {
			return
		}
		m.startCall(m.nameOf(c.name))
		if !c.started {
			return
		}
	}
	for ; c.streamed < len(c.params); c.streamed++ {
		p := &c.params[c.streamed]
		if p.name.b > p.name.a { // an argument without a name is never passed (unread.go)
			if as := m.loop.args(); as != nil {
				as.Arg(m.nameOf(p.name), m.paramValue(p), p.hint)
			}
		}
	}
	if m.valueNamed() {
		if v, ok := m.finalValue(); ok {
			if as := m.loop.args(); as != nil {
				as.ArgPrefix(m.nameOf(m.val.name), v, m.val.hint)
			}
		}
	}
}

// namedArg reports whether the call in progress has an argument with a
// name, complete or being read.
func (m *Machine) namedArg() bool {
	for _, p := range m.call.params {
		if p.name.b > p.name.a {
			return true
		}
	}
	return m.valueNamed()
}

// valueNamed reports whether a value is being read for a named argument.
func (m *Machine) valueNamed() bool {
	return m.lv == lvValue && !m.val.isKey && !m.val.isType && m.val.name.b > m.val.name.a && (m.call.spec.key == lexer.Unknown || m.call.kv.has)
}

// finalValue returns the bytes of the value in progress that no later
// input can change, once its first bytes show where it starts.
func (m *Machine) finalValue() ([]byte, bool) {
	a, end := m.val.start, len(m.buf)
	if m.pend.active {
		end = min(end, m.pend.start)
	}
	s := m.call.spec
	trimNL := m.trimsNL()
	if trimNL {
		switch {
		case a == end:
			return nil, false
		case m.buf[a] == '\n':
			a++
		case m.buf[a] == '\r':
			if a+1 == end {
				return nil, false
			}
			if m.buf[a+1] == '\n' {
				a += 2
			}
		}
	}
	if s.cdata {
		i := firstNonSpace(m.buf[a:end])
		if i < 0 || m.buf[a+i] == '<' {
			return nil, false // it may be one CDATA section, unwrapped when complete
		}
	}
	if s.childParams {
		if i := firstNonSpace(m.buf[a:end]); i < 0 || m.buf[a+i] == '<' || m.buf[a+i] == ']' {
			return nil, false // it may be elements, an object when complete (childObject)
		}
	}
	if s.entities {
		end = m.beforeAmp(a, end) // escaped or not is known when the value is complete (entities.go)
	}
	if s.sentinel && end > a && m.buf[end-1] == ']' {
		end-- // it may begin the sentinel before the closer
	}
	// The word before a '>' to come may be a misspelt closer, or one
	// without its '<' (`/｜DSML｜parameter`): see textInValue.
	for k := 0; end > a && k < maxCloserTail && closerTail(m.buf[end-1]); k++ {
		end--
	}
	end = m.lineHeldBack(a, end) // markline.go
	if trimNL && end > a && m.buf[end-1] == '\n' {
		end--
	}
	if trimNL && end > a && m.buf[end-1] == '\r' {
		end--
	}
	return m.buf[a:end], true
}

// maxCloserTail bounds the bytes a closer found at a '>' may reach back:
// a word (maxHeldWord), a slash and DSML prefixes with their bars.
const maxCloserTail = maxHeldWord + 64

// closerTail reports whether c may belong to a closer written without its
// '<': a word byte, '/', '<', a bar or a byte of a wide bar.
func closerTail(c byte) bool { return isWordByte(c) || c == '/' || c == '<' || c == '|' || c >= 0x80 }

// args returns where the arguments of the started call go: the sink's
// argSink, or nil while calls are held as a possible loop (what they are
// is not known yet) or when the sink takes none.
func (h *loopHold) args() argSink {
	if h.busy() {
		return nil
	}
	as, _ := h.out.(argSink)
	return as
}
