// Package emitter turns the structure recognised by package fsm into the
// events of the toolsieve contract: text, reasoning, tool calls, discarded
// markup, runaways and errors. It also types argument values by declared
// JSON schemas and encodes events as JSON lines.
package emitter

import (
	"encoding/json"
	"strconv"

	"github.com/toolsieve/toolsieve/fsm"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
)

// Type is the kind of an event.
type Type uint8

// The event types of the contract (docs/contract.md, "Events").
const (
	Text Type = iota
	Reasoning
	// ToolCallStart is an early signal: a call's name is known. A call
	// whose start was sent may turn out to belong to a loop: a runaway
	// cancels every started call that has no tool_call yet, and none follows.
	ToolCallStart
	ToolCall
	Discard
	Runaway
	Error
	// ToolCallDelta is the next piece of a started call's arguments, as
	// JSON text (Builder.Stream): the pieces of a call, concatenated, are
	// its tool_call's Arguments.
	ToolCallDelta
)

var typeNames = [...]string{
	Text:          "text",
	Reasoning:     "reasoning",
	ToolCallStart: "tool_call_start",
	ToolCall:      "tool_call",
	Discard:       "discard",
	Runaway:       "runaway",
	Error:         "error",
	ToolCallDelta: "tool_call_delta",
}

func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "type(" + strconv.Itoa(int(t)) + ")"
}

// Event is one parser output. Byte slices may alias parser buffers: they
// are valid until the next call into the parser that produced them; use
// Clone to keep an event longer.
type Event struct {
	Type Type
	// Text is the content of Text and Reasoning events.
	Text []byte
	// Raw is the exact input bytes this event stands for (every type but Text).
	Raw []byte
	// Index is the call's position among the calls of the stream (0-based).
	Index int
	// ID is the call id (tool_call; tool_call_start of a streamed call).
	ID string
	// Name is the tool name (tool_call, tool_call_start).
	Name string
	// Arguments is a JSON object (tool_call), or the next piece of its
	// JSON text (tool_call_delta).
	Arguments json.RawMessage
	// Dialect is the markup dialect a call was written in.
	Dialect string
	// Repairs names what was fixed to recover a call, from the repairs
	// vocabulary (fsm.RepairNames).
	Repairs []string
	// Reason explains a discard or a runaway, and some errors (a call kept
	// as text: fsm.ErrorUndeclaredTool, fsm.ErrorRefused).
	Reason fsm.Reason
	// Message describes an error.
	Message string
	// Offset is the input offset of the event's first byte; for a
	// tool_call_start or tool_call_delta, where the call's bytes begin; for an error, the
	// offset it refers to. -1 for events that stand for no input bytes
	// (reasoning from a separate channel of a provider stream).
	Offset int64
}

// Clone returns a copy of e that shares no memory with parser buffers.
func (e Event) Clone() Event {
	c := e
	c.Text = cloneBytes(e.Text)
	c.Raw = cloneBytes(e.Raw)
	c.Arguments = json.RawMessage(cloneBytes(e.Arguments))
	if e.Repairs != nil {
		c.Repairs = append([]string(nil), e.Repairs...)
	}
	return c
}

func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}

// HasRepair reports whether the event carries the named repair.
func (e *Event) HasRepair(r string) bool {
	for _, x := range e.Repairs {
		if x == r {
			return true
		}
	}
	return false
}

// MarshalJSON encodes the event in the contract's JSON shape.
func (e Event) MarshalJSON() ([]byte, error) {
	return e.AppendJSON(nil), nil
}

// AppendJSON appends the contract's JSON encoding of e to dst.
func (e *Event) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":`...)
	dst = jsonspan.AppendString(dst, e.Type.String())
	switch e.Type {
	case Text:
		dst = appendField(dst, "text", e.Text)
	case Reasoning:
		dst = appendField(dst, "text", e.Text)
		dst = appendField(dst, "raw", e.Raw)
	case ToolCallStart:
		dst = append(dst, `,"index":`...)
		dst = strconv.AppendInt(dst, int64(e.Index), 10)
		if e.ID != "" {
			dst = appendField(dst, "id", []byte(e.ID))
		}
		dst = appendField(dst, "name", []byte(e.Name))
		dst = appendField(dst, "raw", e.Raw)
	case ToolCallDelta:
		dst = append(dst, `,"index":`...)
		dst = strconv.AppendInt(dst, int64(e.Index), 10)
		dst = appendField(dst, "arguments", e.Arguments)
	case ToolCall:
		dst = append(dst, `,"index":`...)
		dst = strconv.AppendInt(dst, int64(e.Index), 10)
		dst = appendField(dst, "id", []byte(e.ID))
		dst = appendField(dst, "name", []byte(e.Name))
		dst = append(dst, `,"arguments":`...)
		if len(e.Arguments) == 0 {
			dst = append(dst, "{}"...)
		} else {
			dst = append(dst, e.Arguments...)
		}
		dst = appendField(dst, "dialect", []byte(e.Dialect))
		dst = append(dst, `,"repairs":[`...)
		for i, r := range e.Repairs {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonspan.AppendString(dst, r)
		}
		dst = append(dst, ']')
		dst = appendField(dst, "raw", e.Raw)
	case Discard, Runaway:
		dst = appendField(dst, "raw", e.Raw)
		dst = appendField(dst, "reason", []byte(e.Reason.String()))
	case Error:
		dst = appendField(dst, "message", []byte(e.Message))
		if e.Reason.IsError() {
			dst = appendField(dst, "reason", []byte(e.Reason.String()))
		}
		if e.Offset >= 0 {
			dst = append(dst, `,"offset":`...)
			dst = strconv.AppendInt(dst, e.Offset, 10)
		}
		if len(e.Raw) > 0 {
			dst = appendField(dst, "raw", e.Raw)
		}
		return append(dst, '}')
	}
	if e.Offset >= 0 {
		dst = append(dst, `,"offset":`...)
		dst = strconv.AppendInt(dst, e.Offset, 10)
	}
	return append(dst, '}')
}

func appendField(dst []byte, key string, val []byte) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	dst = append(dst, '"', ':')
	return jsonspan.AppendString(dst, val)
}
