package emitter

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve/fsm"
	"github.com/toolsieve/toolsieve/internal/schema"
)

// TestMissingRequired: a required parameter counts as present among the
// call's argument elements or the members of its JSON arguments, with
// escaped member names decoded.
func TestMissingRequired(t *testing.T) {
	tools, err := schema.ParseTools([]byte(`[{"type":"function","function":{"name":"w","parameters":{"type":"object",` +
		`"properties":{"path":{"type":"string"},"body":{"type":"string"}},"required":["path","body"]}}}]`))
	require.NoError(t, err)
	tool, ok := tools.Lookup("w")
	require.True(t, ok)
	for _, tc := range []struct {
		name    string
		call    fsm.Call
		missing bool
	}{
		{"json, both", fsm.Call{Args: []byte(`{"path":"a","body":"b"}`)}, false},
		{"json, escaped name", fsm.Call{Args: []byte(`{"pa\u0074h":"a","body":"b"}`)}, false},
		{"json, one", fsm.Call{Args: []byte(`{"path":"a"}`)}, true},
		{"json, nested only", fsm.Call{Args: []byte(`{"x":{"path":"a","body":"b"}}`)}, true},
		{"not an object", fsm.Call{Args: []byte(`[1]`)}, true},
		{"elements, both", fsm.Call{Params: []fsm.Param{{Name: []byte("path")}, {Name: []byte("body")}}}, false},
		{"elements, one", fsm.Call{Params: []fsm.Param{{Name: []byte("body")}}}, true},
		{"no arguments", fsm.Call{}, true},
	} {
		require.Equal(t, tc.missing, MissingRequired(tool, &tc.call), tc.name)
	}
}
