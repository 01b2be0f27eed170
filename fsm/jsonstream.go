package fsm

import "bytes"

// Streamed arguments of JSON bodies. The arguments of a call written as
// JSON stream when their object is plain to see as it is written: a body
// that is the arguments object itself, or a call object whose first member
// is "name" (a string) and whose second is "arguments" or "parameters" (an
// object). The walk follows the JSON scanner's repaired copy of the body,
// each byte once, and reports each member of the arguments object once its
// value is complete, and a string value while it is read: up to the last
// whole character and escape (a high surrogate waits for its pair, as
// the scanner drops a lone one when the body is cut). A body of another
// shape streams nothing: its call goes out whole when complete.

// jwPhase is what the walk expects next.
type jwPhase uint8

const (
	jwOff     jwPhase = iota // not walking (not started, or not a shape that streams)
	jwEnvName                // the call object's first member: "name"
	jwEnvArgs                // its second: "arguments" or "parameters"
	jwArgs                   // members of the arguments object
	jwDone                   // the arguments object is complete
)

// jwMember is where the walk is in a member of the object it follows.
type jwMember uint8

const (
	jmKey   jwMember = iota // before a key
	jmInKey                 // in a key
	jmColon                 // after a key
	jmValue                 // after ':'
	jmInVal                 // in a value
	jmAfter                 // after a value
)

// jsonWalk is the walk of the JSON body in progress, reset when one starts.
type jsonWalk struct {
	phase      jwPhase
	pos        int  // bytes of the scanner's copy walked
	depth      int  // open containers at pos
	inStr, esc bool // at pos: in a string, after its backslash
	at         int  // depth of the members followed
	mem        jwMember
	key        span // the member's key token, in the copy
	val        int  // start of its value in the copy
	strVal     bool // the value is a string
	name       span // the call's name (a string body without escapes), in the copy
}

// jsonStreams reports whether the body of the call in progress may be
// walked: a JSON object, not an array of calls.
func (m *Machine) jsonStreams() bool {
	if m.jw == nil {
		m.jw = new(jsonWalk)
	}
	return m.jw.phase != jwOff || m.jw.pos == 0 && len(m.envs) == 0 && !m.call.done
}

// walkJSON walks what the scanner wrote since the last walk and reports
// the arguments that are complete, then the string value being read.
func (m *Machine) walkJSON() {
	c := &m.call
	out := m.json.Bytes()
	w := m.jw
	if w.pos == 0 {
		if len(out) == 0 {
			return
		}
		if out[0] != '{' {
			w.pos = len(out) // no object: nothing streams
			return
		}
		w.phase, w.at = jwArgs, 1
		if c.jsonEnv {
			w.phase = jwEnvName
		}
	}
	for stable := m.json.Stable(); w.pos < stable && w.phase != jwOff && w.phase != jwDone; w.pos++ {
		m.jsonByte(out, w.pos)
	}
	if w.phase == jwArgs && w.mem == jmInVal && w.strVal && w.depth == w.at && w.pos > w.val+1 && m.startJSONCall() {
		if as := m.loop.args(); as != nil {
			as.JSONArgPrefix(out[w.key.a:w.key.b], out[w.val+1:w.pos])
		}
	}
}

// jsonByte takes byte i of the copy out.
func (m *Machine) jsonByte(out []byte, i int) {
	w := m.jw
	c := out[i]
	if w.inStr {
		switch {
		case w.esc:
			w.esc = false
		case c == '\\':
			w.esc = true
		case c == '"':
			w.inStr = false
			if w.depth == w.at {
				m.jsonStringEnd(out, i)
			}
		}
		return
	}
	top := w.depth == w.at
	switch {
	case c == '"':
		w.inStr = true
		if top {
			switch w.mem {
			case jmKey:
				w.mem, w.key.a = jmInKey, i
			case jmValue:
				w.mem, w.val, w.strVal = jmInVal, i, true
			}
		}
	case c == '{' || c == '[':
		if top && w.mem == jmValue {
			w.mem, w.val, w.strVal = jmInVal, i, false
			if w.phase == jwEnvArgs {
				if c != '{' {
					w.phase = jwOff
					return
				}
				w.phase, w.at, w.mem = jwArgs, w.at+1, jmKey // the arguments object opens
			}
		}
		w.depth++
	case c == '}' || c == ']':
		if top && w.mem == jmInVal {
			m.jsonValueEnd(out, i) // a number or literal ends
		}
		w.depth--
		switch {
		case w.depth < w.at && w.phase == jwArgs:
			w.phase = jwDone // the arguments object closed
		case w.depth == w.at && w.mem == jmInVal:
			m.jsonValueEnd(out, i+1) // a container value closed
		case w.depth < w.at:
			w.phase = jwOff // the call object ended before its arguments
		}
	case c == ':':
		if top && w.mem == jmColon {
			w.mem = jmValue
		}
	case c == ',':
		if top {
			if w.mem == jmInVal {
				m.jsonValueEnd(out, i)
			}
			w.mem = jmKey
		}
	case isSpace(c):
		if top && w.mem == jmInVal && !w.strVal {
			m.jsonValueEnd(out, i)
		}
	default:
		if top && w.mem == jmValue {
			w.mem, w.val, w.strVal = jmInVal, i, false
		}
	}
}

// jsonStringEnd handles the closing quote, at i, of a key or string value
// of the members followed.
func (m *Machine) jsonStringEnd(out []byte, i int) {
	w := m.jw
	switch w.mem {
	case jmInKey:
		w.key.b, w.mem = i+1, jmColon
		want := w.phase != jwEnvName || string(out[w.key.a:w.key.b]) == `"name"`
		if w.phase == jwEnvArgs {
			k := string(out[w.key.a:w.key.b])
			want = k == `"arguments"` || k == `"parameters"`
		}
		if !want {
			w.phase = jwOff
		}
	case jmInVal:
		m.jsonValueEnd(out, i+1)
	}
}

// jsonValueEnd completes the value of the member followed at out[:end].
func (m *Machine) jsonValueEnd(out []byte, end int) {
	w := m.jw
	w.mem = jmAfter
	switch w.phase {
	case jwEnvName:
		if !w.strVal || bytes.IndexByte(out[w.val:end], '\\') >= 0 || end-w.val < 3 {
			w.phase = jwOff // a name to decode, or none: the call goes out whole
			return
		}
		w.name, w.phase = span{w.val + 1, end - 1}, jwEnvArgs
	case jwEnvArgs:
		w.phase = jwOff // not an object
	case jwArgs:
		if m.startJSONCall() {
			if as := m.loop.args(); as != nil {
				as.JSONArg(out[w.key.a:w.key.b], out[w.val:end])
			}
		}
	}
}

// startJSONCall starts the call of a JSON body once its first argument
// opened, and reports whether it started.
func (m *Machine) startJSONCall() bool {
	c := &m.call
	if !c.started {
		name := m.nameOf(c.name)
		if c.jsonEnv {
			name = m.json.Bytes()[m.jw.name.a:m.jw.name.b]
		}
		m.startCall(name)
	}
	return c.started
}
