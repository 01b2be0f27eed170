package fsm

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSchemaArgs: arguments are a schema by their top-level keys; the
// look for the keys' bytes (schemaKeyIn) lets the others go without a walk
// of their members, and finds the keys wherever they are.
func TestSchemaArgs(t *testing.T) {
	for _, c := range []struct {
		name, args string
		keys, want bool
	}{
		{"a schema", `{"type": "object", "properties": {"a": {"type": "string"}}}`, true, true},
		{"required and properties", `{"properties": {}, "required": ["a"]}`, true, true},
		{"$schema alone", `{"$schema": "https://json-schema.org/draft/2020-12/schema"}`, true, true},
		{"plain arguments", `{"path": "a.go", "content": "x := \"y\"\n"}`, false, false},
		{"no quotes", `{}`, false, false},
		{"properties as a value", `{"type": "a", "name": "properties"}`, true, false},
		{"properties below the top", `{"type": "a", "config": {"properties": {}}}`, true, false},
		{"properties without type or required", `{"properties": {}}`, true, false},
		{"an escaped key", `{"type": "object", "propert\u0069es": {}}`, false, false},
		{"a quoted word in a string", `{"type": "object", "s": "a \"properties\" b"}`, false, false},
		{"not JSON", `{"properties": {}, "type"`, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.keys, schemaKeyIn([]byte(c.args)), "schemaKeyIn")
			assert.Equal(t, c.want, schemaArgs([]byte(c.args)), "schemaArgs")
		})
	}
}
