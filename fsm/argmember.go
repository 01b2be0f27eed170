package fsm

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/toolsieve/toolsieve/internal/jsonspan"
)

// A call object whose arguments stand under a member no envelope names
// them with: models that confuse the call with the tool's definition write
// the definition's word (`{"tool_name": "exec", "properties": {..}}`).
// When the object holds its name member and one other member only, an
// object that fits the tool and is no schema's property map, that object
// is the arguments (RRenamedArgs). Without declared tools nothing says
// it fits: the call is kept as text (fail closed, never `{}`). A definition (a description, a type, a
// property map whose values are schemas) never passes.

// envNameMembers are the members that name the tool in a call object
// (envelope).
var envNameMembers = []string{"name", "tool", "tool_name", "function"}

// loneArgs returns the arguments of call object out naming tool name, held
// in its one member beside the name, or nil; held reports an object there
// that could not be taken (keys that do not fit, a schema's property map):
// argument text the call must not drop.
func (m *Machine) loneArgs(out, name []byte) (args []byte, held bool) {
	ms, ok := jsonspan.Members(out, 0, nil)
	if !ok || len(ms) != 2 {
		return nil, false
	}
	for _, mb := range ms {
		if slices.Contains(envNameMembers, string(mb.Key)) {
			continue
		}
		if args != nil || string(mb.Key) == "description" || string(mb.Key) == "type" {
			return nil, false
		}
		args = out[mb.Start:mb.End]
	}
	if len(args) == 0 || args[0] != '{' {
		return nil, false
	}
	if m.opt.FitsTool == nil || propertyMap(args) || !m.objectFits(name, args) {
		return nil, true
	}
	return args, false
}

// propertyMap reports whether object b is a schema's property map: every
// value an object that holds a "type".
func propertyMap(b []byte) bool {
	var members map[string]json.RawMessage
	if json.Unmarshal(b, &members) != nil || len(members) == 0 {
		return false
	}
	for _, v := range members {
		var inner map[string]json.RawMessage
		if v = bytes.TrimSpace(v); len(v) == 0 || v[0] != '{' || json.Unmarshal(v, &inner) != nil {
			return false
		}
		if _, ok := inner["type"]; !ok {
			return false
		}
	}
	return true
}
