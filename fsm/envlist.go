package fsm

import (
	"encoding/json"
	"strings"
)

// A tool-calls list written as text holds call objects in shapes the json
// dialect does not read: grok in VS Code writes `{"toolCalls": [{"id":
// "call_001", "type": "run_in_terminal", "command": "git branch -a"}]}`,
// the tool's name in the "type" slot where OpenAI's format has "function",
// and the arguments beside it. Inside such a list (its key says it holds
// calls), a call object of one member naming a declared tool is an
// envelope like those of anchor.go: in one of envNameKeys with its
// arguments in one of envArgKeys, or in "type" with the other members,
// less the call's "id", as the arguments. It carries inferred_call, and the
// arguments must fit the tool like any envelope's. Only a list of one call
// object is read so (a call is one object of text here); a "type" outside
// such a list is no tool's name ({"type": "search", "query": ..} is data).

// listEnvelopeFit returns the declared tool and arguments of the one call
// object of members' tool-calls list, when it is an envelope that fits.
func (m *Machine) listEnvelopeFit(members map[string]json.RawMessage) (string, []byte, bool) {
	list, ok := members["tool_calls"]
	if !ok {
		list, ok = members["toolCalls"]
	}
	if !ok || len(members) != 1 {
		return "", nil, false
	}
	var items []map[string]json.RawMessage
	if json.Unmarshal(list, &items) != nil || len(items) != 1 || items[0] == nil {
		return "", nil, false
	}
	item := items[0]
	if name, args, ok := m.envelopeFit(item); ok {
		return name, args, true
	}
	var name string
	if json.Unmarshal(item["type"], &name) != nil {
		return "", nil, false
	}
	name = strings.TrimPrefix(name, "functions.")
	if !m.declared([]byte(name)) {
		return "", nil, false
	}
	rest := make(map[string]json.RawMessage, len(item))
	for k, v := range item {
		if k != "type" && k != "id" {
			rest[k] = v
		}
		var inner map[string]json.RawMessage
		if json.Unmarshal(v, &inner) == nil && schemaLike(inner) {
			return "", nil, false // a definition's parameters, never a call's
		}
	}
	if len(rest) == 0 || schemaLike(rest) {
		return "", nil, false
	}
	args, err := json.Marshal(rest)
	if err != nil {
		return "", nil, false
	}
	return name, args, m.opt.FitsTool([]byte(name), keysOf(rest))
}
