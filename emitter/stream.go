package emitter

import (
	"github.com/toolsieve/toolsieve/fsm"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/internal/schema"
	"github.com/toolsieve/toolsieve/lexer"
)

// Streamed calls (Builder.Stream). A call goes out as tool_call_start (its
// index, id and name) when the machine starts it (its name known and an
// argument opened: fsm/stream.go), or when it completes, then as
// tool_call_delta events whose Arguments, concatenated, are the call's
// arguments object as JSON text, and ends with its tool_call, whose
// Arguments are that whole text. The arguments are written one member at
// a time (schema.ArgsWriter): a member once it is complete, a value that
// will be a JSON string whatever follows while it is being read.
//
// A started call that does not complete is followed, before any later
// call's start, by what tells why: a runaway (it belonged to a loop), or
// its markup as text and an error (its arguments could not be read, or
// strict mode refused it). A call that may repeat the one before it (the
// same name) is not started early: a loop of calls is caught before any of
// it goes out; it goes out whole when it completes.

// streamState is the started call whose arguments are being streamed.
type streamState struct {
	active  bool // a tool_call_start went out, and no tool_call yet
	index   int
	id      string
	w       schema.ArgsWriter
	members int    // complete members written
	open    bool   // a string value is being written: the member after those
	sent    int    // bytes of the open value written
	args    []byte // the arguments written so far
	// lastName is the last call's name: a call of the same name starts
	// when complete.
	lastName string
	spans    []jsonspan.Member // scratch for the members of JSON arguments
}

// stream returns the streaming state, made on first use.
func (b *Builder) stream() *streamState {
	if b.st == nil {
		b.st = new(streamState)
	}
	return b.st
}

// startStream sends the tool_call_start of the next call, named name.
func (b *Builder) startStream(name string, tool *schema.Tool, off int64) {
	st := b.stream()
	st.active, st.index, st.id = true, b.index, b.id(b.index)
	st.w.Reset(tool)
	st.members, st.open, st.sent, st.args = 0, false, 0, st.args[:0]
	b.events = append(b.events, Event{Type: ToolCallStart, Index: b.index, ID: st.id, Name: name, Offset: off})
}

// delta sends the arguments written since mark.
func (b *Builder) delta(mark int) {
	if piece := b.st.args[mark:]; len(piece) > 0 {
		b.events = append(b.events, Event{Type: ToolCallDelta, Index: b.st.index, Arguments: b.keep(piece), Offset: b.off})
	}
}

// cancelStream forgets a started call that will not complete.
func (b *Builder) cancelStream() {
	if b.st != nil {
		b.st.active = false
	}
}

// Arg writes the next complete argument of the started call.
func (b *Builder) Arg(name, value []byte, hint fsm.Hint) {
	st := b.st
	if st == nil || !st.active {
		return
	}
	mark := len(st.args)
	st.member(name, value, schema.ValueHint(hint))
	b.delta(mark)
}

// member writes the next complete argument written as markup: the rest of
// the open string value, or the whole member.
func (st *streamState) member(name, value []byte, hint schema.ValueHint) {
	if st.open {
		st.args = jsonspan.AppendEscaped(st.args, value[min(st.sent, len(value)):])
		st.args = append(st.args, '"')
		st.open = false
	} else {
		st.args = st.w.Member(st.args, &schema.Param{Name: string(name), Value: value, Hint: hint})
	}
	st.members++
}

// ArgPrefix writes what is new of the value being read, once it shows
// that the value is a JSON string.
func (b *Builder) ArgPrefix(name, prefix []byte, hint fsm.Hint) {
	st := b.st
	if st == nil || !st.active {
		return
	}
	mark := len(st.args)
	if !st.open {
		var ok bool
		if st.args, ok = st.w.StringStart(st.args, string(name), schema.ValueHint(hint), prefix); !ok {
			return
		}
		st.open, st.sent = true, 0
	}
	st.writeOpen(prefix, jsonspan.AppendEscaped)
	b.delta(mark)
}

// writeOpen writes what is new of the open string value v, whole
// characters only, escaped by escape.
func (st *streamState) writeOpen(v []byte, escape func(dst, piece []byte) []byte) {
	if st.sent < len(v) {
		next := v[st.sent:]
		next = next[:lexer.CompleteUTF8(next)]
		st.args = escape(st.args, next)
		st.sent += len(next)
	}
}

// JSONArg writes the next member of the started call's JSON arguments.
func (b *Builder) JSONArg(key, v []byte) {
	st := b.st
	if st == nil || !st.active || !st.w.JSONMembers() {
		return
	}
	mark := len(st.args)
	st.jsonMember(key, v)
	b.delta(mark)
}

// jsonMember writes the next member of JSON arguments, its key token and
// value given: the rest of the open string value (its closing quote
// included), or the whole member.
func (st *streamState) jsonMember(key, v []byte) {
	if st.open {
		st.args = jsonspan.SanitizeString(st.args, v[min(1+st.sent, len(v)):])
		st.open = false
	} else {
		st.args = st.w.JSONMember(st.args, key, v)
	}
	st.members++
}

// JSONArgPrefix writes what is new of the string value being read, when
// the schema keeps it a string.
func (b *Builder) JSONArgPrefix(key, body []byte) {
	st := b.st
	if st == nil || !st.active || !st.w.JSONMembers() {
		return
	}
	mark := len(st.args)
	if !st.open {
		var ok bool
		if st.args, ok = st.w.JSONStringStart(st.args, key); !ok {
			return
		}
		st.open, st.sent = true, 0
	}
	st.writeOpen(body, jsonspan.SanitizeString)
	b.delta(mark)
}

// finishStream writes the rest of call c's arguments, typed by tool, and
// returns them whole; mismatched reports a value that did not fit.
func (b *Builder) finishStream(c *fsm.Call, name string, tool *schema.Tool) (args []byte, mismatched bool) {
	st := b.stream()
	if !st.active || st.index != b.index {
		b.startStream(name, tool, b.off)
	}
	mark := len(st.args)
	if c.Params != nil || c.Args == nil {
		for _, p := range c.Params[min(st.members, len(c.Params)):] {
			st.member(p.Name, p.Value, schema.ValueHint(p.Hint))
		}
		st.args = st.w.End(st.args)
		mismatched = st.w.Mismatched()
	} else if st.members > 0 || st.open {
		st.restJSON(c.Args)
		st.args = st.w.End(st.args)
		mismatched = st.w.Mismatched()
	} else {
		v, fits := schema.TypeJSONValue(c.Args, toolSchema(tool))
		st.args = append(st.args, v...)
		mismatched = !fits
	}
	b.delta(mark)
	st.active = false
	st.lastName = name
	return st.args, mismatched
}

// restJSON writes the members of the JSON arguments object args that were
// not written yet.
func (st *streamState) restJSON(args []byte) {
	st.spans, _ = jsonspan.Members(args, jsonspan.SkipSpace(args, 0), st.spans[:0])
	for _, m := range st.spans[min(st.members, len(st.spans)):] {
		st.jsonMember(args[m.KeyStart:m.KeyStart+len(m.Key)+2], args[m.Start:m.End])
	}
}
