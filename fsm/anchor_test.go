package fsm

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAnchorIn(t *testing.T) {
	declared := func(w []byte) bool {
		switch string(w) {
		case "terminal", "read", "gateway", "Bash":
			return true
		}
		return false
	}
	for _, tt := range []struct {
		text, want string
	}{
		{`[Calling tool: terminal with arguments: `, "terminal"},
		{`[Called function "terminal" with args: `, "terminal"},
		{`[Tool call: Bash(`, "Bash"},
		{`[Tool Call: gateway (ID: gateway_1768372099304_19)] Arguments: `, "gateway"},
		{`[Historical context: a model called tool "read" with arguments: `, "read"},
		{"Let's do terminal.\n", "terminal"},
		{"Now terminal", "terminal"},
		{"I ran terminal and the config was ", ""},     // a sentence between
		{"terminal.\n\n", ""},                          // two line breaks
		{"Say <terminal>", ""},                         // markup between
		{"read the file, then terminal with the ", ""}, // "the" is no label word
		{"[Calling tool: shell with arguments: ", ""},  // undeclared
		{"terminal with arguments and some more words here: ", ""},
	} {
		got := ""
		if s, ok := anchorIn([]byte(tt.text), declared); ok {
			got = tt.text[s.a:s.b]
		}
		assert.Equal(t, tt.want, got, "%q", tt.text)
	}
	long := "terminal" + string(make([]byte, maxAnchorGap+1))
	_, ok := anchorIn([]byte(long), declared)
	assert.False(t, ok, "a gap longer than maxAnchorGap")
}

func TestSchemaLike(t *testing.T) {
	for _, tt := range []struct {
		obj  string
		want bool
	}{
		{`{"type": "object", "properties": {"a": {}}}`, true},
		{`{"properties": {"a": {}}, "required": ["a"]}`, true},
		{`{"$schema": "http://json-schema.org/draft-07/schema#"}`, true},
		{`{"type": "file", "path": "a"}`, false},
		{`{"properties": "color=red"}`, false},
		{`{"command": "ls"}`, false},
	} {
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(tt.obj), &m))
		assert.Equal(t, tt.want, schemaLike(m), tt.obj)
	}
}

func TestIllustrates(t *testing.T) {
	for _, tt := range []struct {
		line string
		want bool
	}{
		{"For example:", true},
		{"Usage:", true},
		{"Here is the format: ", true},
		{"e.g.:", true},
		{"Here is an example of what I will do next.", false},
		{"Let me read the file:", false},
		{"", false},
	} {
		assert.Equal(t, tt.want, illustrates([]byte(tt.line)), "%q", tt.line)
	}
}

// TestEnvelopeFit checks which envelopes name a call, and its arguments.
func TestEnvelopeFit(t *testing.T) {
	m := New(Options{
		Declared: func(n []byte) bool { return string(n) == "terminal" || string(n) == "read" },
		FitsTool: func(tool []byte, keys []string) bool {
			return string(tool) == "read" || len(keys) == 1 && keys[0] == "command"
		},
	}, &recorder{})
	for _, tt := range []struct {
		obj, name, args string
	}{
		{`{"id": "t1", "input": {"command": "ls"}, "name": "terminal", "type": "tool_use"}`, "terminal", `{"command": "ls"}`},
		{`{"recipient_name": "functions.terminal", "parameters": {"command": "ls"}}`, "terminal", `{"command": "ls"}`},
		{`{"path": "a", "action": "read"}`, "read", `{"path":"a"}`},
		{`{"id": "t1", "input": {"cmd": "ls"}, "name": "terminal"}`, "", ""},                     // misfit
		{`{"id": "t1", "input": {"command": "ls"}, "name": "shell"}`, "", ""},                    // undeclared
		{`{"name": "terminal", "description": "runs", "parameters": {"command": "ls"}}`, "", ""}, // a definition
		{`{"name": "read", "parameters": {"type": "object", "properties": {"p": {}}}}`, "", ""},  // a schema
		{`{"path": "a", "name": "read"}`, "", ""},                                                // name is no flat key
	} {
		var members map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(tt.obj), &members))
		name, args, ok := m.envelopeFit(members)
		if tt.name == "" {
			assert.False(t, ok, tt.obj)
			continue
		}
		require.True(t, ok, tt.obj)
		assert.Equal(t, tt.name, name, tt.obj)
		assert.JSONEq(t, tt.args, string(args), tt.obj)
	}
}
