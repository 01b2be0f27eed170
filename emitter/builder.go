package emitter

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/toolsieve/toolsieve/fsm"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/internal/schema"
)

// Builder receives what the state machine recognises (it implements
// fsm.Sink) and builds the contract's events: it numbers calls, gives them
// ids, types their arguments by the declared tools and checks their names.
//
// Event bytes are copied into an arena that Reset recycles, so events stay
// valid until the next Reset while the machine reuses its own buffers; the
// raw bytes of a Stable call are not copied (they stay valid as long).
type Builder struct {
	// Tools are the declared tools; nil or empty means none were declared.
	Tools *schema.Tools
	// IDPrefix starts every generated call id ("call_" if empty).
	IDPrefix string
	// NewID, when set, makes every call's id from its index instead (ids
	// written in the markup included): for providers that accept only
	// their own id format.
	NewID func(index int) string
	// Stream sends calls as they are read: tool_call_start, then
	// tool_call_delta events with the arguments' JSON text (stream.go).
	Stream bool

	events    []Event
	off       int64 // input offset of the next byte to be reported
	arena     []byte
	textStart int // arena offset of the last text event's bytes, -1 if none is open
	index     int
	params    []schema.Param
	repairs   []string
	st        *streamState // the call being streamed (Stream; made when first needed)
}

// Reset drops the events built so far and recycles their memory.
func (b *Builder) Reset() {
	b.events = b.events[:0]
	b.arena = b.arena[:0]
	b.repairs = b.repairs[:0]
	b.textStart = -1
}

// idleArena is the most arena room Release keeps.
const idleArena = 4 << 10

// Release gives back the arena when a large call's arguments grew it past
// idleArena, and the events (which reference it and the machine's
// buffers; all when events is set: the machine gave back buffers they may
// reference), so that an idle parser stays small; the events built stay
// valid with what they reference.
func (b *Builder) Release(events bool) {
	if events {
		b.events = nil
		b.params = b.params[:0]
		clear(b.params[:cap(b.params)]) // the last call's values, in the machine's buffers
	}
	if cap(b.arena) > idleArena {
		b.arena, b.events = nil, nil
	}
}

// Plain accounts for n bytes of text that the caller reported itself (the
// parser's fast path) and returns their input offset.
func (b *Builder) Plain(n int) int64 {
	off := b.off
	b.off += int64(n)
	return off
}

// advance moves the input offset past p and returns where p started.
func (b *Builder) advance(p []byte) int64 {
	off := b.off
	b.off += int64(len(p))
	return off
}

// Events returns the events built since the last Reset.
func (b *Builder) Events() []Event { return b.events }

// keep copies p into the arena.
func (b *Builder) keep(p []byte) []byte {
	b.textStart = -1
	if len(p) == 0 {
		return nil
	}
	start := len(b.arena)
	b.arena = append(b.arena, p...)
	return b.arena[start:len(b.arena):len(b.arena)]
}

// keepCall returns call c's raw bytes, copied into the arena unless Stable.
func (b *Builder) keepCall(c *fsm.Call) []byte {
	if !c.Stable || len(c.Raw) == 0 {
		return b.keep(c.Raw)
	}
	b.textStart = -1
	return c.Raw[:len(c.Raw):len(c.Raw)]
}

// Text adds content, extending the previous event when it is text too.
func (b *Builder) Text(p []byte) {
	if len(p) == 0 {
		return
	}
	b.cancelStream() // a started call given back as text
	off := b.advance(p)
	if n := len(b.events); n > 0 && b.events[n-1].Type == Text && b.textStart >= 0 {
		b.arena = append(b.arena, p...)
		b.events[n-1].Text = b.arena[b.textStart:len(b.arena):len(b.arena)]
		return
	}
	start := len(b.arena)
	b.events = append(b.events, Event{Type: Text, Text: b.keep(p), Offset: off})
	b.textStart = start
}

// Reasoning adds reasoning content (text) and the markup bytes it stands for (raw).
func (b *Builder) Reasoning(text, raw []byte) {
	b.events = append(b.events, Event{Type: Reasoning, Text: b.keep(text), Raw: b.keep(raw), Offset: b.advance(raw)})
}

// CallStart signals that a call's name is known.
func (b *Builder) CallStart(name []byte) {
	n := string(name)
	if t, ok := b.Tools.Lookup(n); ok {
		n = t.Name
	} else if b.Tools.Len() > 0 {
		return // an undeclared name: no early signal for a call that will not be executed
	}
	if b.Stream {
		if n != b.stream().lastName { // a repeat may belong to a loop: it starts when complete
			t, _ := b.Tools.Lookup(n)
			b.startStream(n, t, b.off)
		}
		return
	}
	b.events = append(b.events, Event{Type: ToolCallStart, Index: b.index, Name: n, Offset: b.off})
}

// Call turns a recognised call into a tool_call event. With declared tools,
// a call to an undeclared name is not passed on as a call: its markup comes
// back as text, followed by an error event.
func (b *Builder) Call(c *fsm.Call) {
	name := string(c.Name)
	var tool *schema.Tool
	var variant bool
	if b.Tools.Len() > 0 {
		t, ok := b.Tools.Lookup(name)
		if !ok {
			off := b.off
			b.Text(c.Raw)
			b.events = append(b.events, Event{Type: Error, Offset: off, Reason: fsm.ErrorUndeclaredTool, Name: name,
				Message: "call to undeclared tool " + strconv.Quote(name) + " (" + c.Dialect + ") kept as text"})
			return
		}
		variant = t.Name != name
		tool, name = t, t.Name
	}
	// One growth for the call's typed arguments, which take about as much
	// room as the JSON or the values (plus escapes) they come from, and its
	// raw bytes unless Stable.
	need := len(c.Args) + 64
	if c.Params != nil || c.Args == nil {
		need += len(c.Raw) + len(c.Raw)/8
	}
	if !c.Stable {
		need += len(c.Raw)
	}
	b.arena = slices.Grow(b.arena, need)
	rep := c.Repairs
	if variant {
		rep |= fsm.RMarkerVariant
	}
	// Whether the JSON arguments are valid, and their members, found in
	// one pass for both uses.
	var members []jsonspan.Member
	valid := false
	if c.Params == nil && c.Args != nil && (!b.Stream || (tool != nil && len(tool.Required) > 0)) {
		members, valid = jsonspan.ValidMembers(c.Args, nil)
	}
	if rep&fsm.RMissingRequired == 0 && missingRequired(tool, c, members) {
		rep |= fsm.RMissingRequired
	}
	n := len(b.arena)
	args := b.arena
	id := string(c.ID)
	if b.Stream {
		streamed, mismatched := b.finishStream(c, name, tool) // its events take arena room
		if mismatched {
			rep |= fsm.RSchemaMismatch
		}
		n = len(b.arena)
		args = append(b.arena, streamed...)
		id = b.st.id
	} else if c.Params != nil || c.Args == nil {
		b.params = b.params[:0]
		for _, p := range c.Params {
			b.params = append(b.params, schema.Param{Name: string(p.Name), Value: p.Value, Hint: schema.ValueHint(p.Hint)})
		}
		var mismatched []string
		args, mismatched = schema.BuildArguments(args, tool, b.params)
		if len(mismatched) > 0 {
			rep |= fsm.RSchemaMismatch
		}
	} else {
		var fits bool
		if valid {
			args, fits = schema.AppendValidJSON(args, c.Args, toolSchema(tool))
		} else {
			args, fits = schema.AppendJSONValue(args, c.Args, toolSchema(tool))
		}
		if !fits {
			rep |= fsm.RSchemaMismatch
		}
	}
	b.arena = args
	b.textStart = -1
	start := len(b.repairs)
	b.repairs = rep.Append(b.repairs)
	if id == "" || b.NewID != nil && !b.Stream {
		id = b.id(b.index)
	}
	b.events = append(b.events, Event{
		Type:      ToolCall,
		Index:     b.index,
		ID:        id,
		Name:      name,
		Arguments: args[n:len(args):len(args)],
		Dialect:   c.Dialect,
		Repairs:   b.repairs[start:len(b.repairs):len(b.repairs)],
		Raw:       b.keepCall(c),
		Offset:    b.advance(c.Raw),
	})
	b.index++
}

// id makes the id of call index.
func (b *Builder) id(index int) string {
	if b.NewID != nil {
		return b.NewID(index)
	}
	if b.IDPrefix != "" {
		return b.IDPrefix + strconv.Itoa(index)
	}
	return "call_" + strconv.Itoa(index)
}

func toolSchema(t *schema.Tool) *schema.Schema {
	if t == nil {
		return nil
	}
	return t.Schema
}

// Discard reports markup that is not part of a call.
func (b *Builder) Discard(raw []byte, reason fsm.Reason) {
	b.events = append(b.events, Event{Type: Discard, Raw: b.keep(raw), Reason: reason, Offset: b.advance(raw)})
}

// Runaway reports a loop; raw is the markup it swallowed.
func (b *Builder) Runaway(raw []byte, reason fsm.Reason) {
	b.cancelStream()
	b.events = append(b.events, Event{Type: Runaway, Raw: b.keep(raw), Reason: reason, Offset: b.advance(raw)})
}

// Rejected reports input that was not parsed at all (fed after the end):
// an error event whose raw bytes are p.
func (b *Builder) Rejected(p []byte, msg string) {
	b.cancelStream()
	b.events = append(b.events, Event{Type: Error, Message: msg, Raw: b.keep(p), Offset: b.advance(p)})
}

// Error reports input that could not be understood at offset (-1: where
// the next event starts).
func (b *Builder) Error(msg string, offset int64) {
	if offset < 0 {
		offset = b.off
	}
	b.cancelStream()
	b.events = append(b.events, Event{Type: Error, Message: msg, Offset: offset})
}

// ReasonedError reports an error that has a reason in the vocabulary (a
// call kept as text).
func (b *Builder) ReasonedError(reason fsm.Reason, msg string, offset int64) {
	b.Error(msg, offset)
	b.events[len(b.events)-1].Reason = reason
}

// CallError reports an error about one call that has a reason in the
// vocabulary (fsm.CallErrorSink): the event carries the reason and the
// call's tool name.
func (b *Builder) CallError(reason fsm.Reason, name []byte, msg string, offset int64) {
	b.ReasonedError(reason, msg, offset)
	b.events[len(b.events)-1].Name = string(name)
}

// MissingRequired reports whether call c lacks a parameter that tool t
// requires: among its argument elements, or among the members of its JSON
// arguments.
func MissingRequired(t *schema.Tool, c *fsm.Call) bool {
	if t == nil || len(t.Required) == 0 {
		return false
	}
	var members []jsonspan.Member
	if c.Params == nil && c.Args != nil {
		members, _ = jsonspan.ValidMembers(c.Args, nil)
	}
	return missingRequired(t, c, members)
}

// missingRequired is MissingRequired given the members of c's JSON
// arguments (none when they are not a valid object).
func missingRequired(t *schema.Tool, c *fsm.Call, members []jsonspan.Member) bool {
	if t == nil || len(t.Required) == 0 {
		return false
	}
	for _, k := range t.Required {
		found := false
		if c.Params != nil || c.Args == nil {
			for _, p := range c.Params {
				if string(p.Name) == k {
					found = true
					break
				}
			}
		} else {
			found = hasKey(c.Args, members, k)
		}
		if !found {
			return true
		}
	}
	return false
}

// hasKey reports whether one of the members of doc is named key, escapes
// in the member's name decoded.
func hasKey(doc []byte, ms []jsonspan.Member, key string) bool {
	for _, m := range ms {
		if string(m.Key) == key {
			return true
		}
		if bytes.IndexByte(m.Key, '\\') >= 0 && string(jsonspan.AppendUnquoted(nil, doc[m.KeyStart:m.KeyStart+len(m.Key)+2])) == key {
			return true
		}
	}
	return false
}
