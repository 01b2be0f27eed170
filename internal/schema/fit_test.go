package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestToolsFit(t *testing.T) {
	tools := mustParseTools(t, `[
	 {"name": "read_file", "input_schema": {"type": "object", "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["path"]}},
	 {"name": "write_file", "input_schema": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]}},
	 {"name": "ping"}]`)
	for _, tt := range []struct {
		keys []string
		want string
	}{
		{[]string{"path"}, "read_file"},
		{[]string{"limit", "path"}, "read_file"},
		{[]string{"path", "content"}, "write_file"},
		{[]string{"content"}, ""},            // write_file requires path
		{[]string{"path", "mode"}, ""},       // no tool declares mode
		{nil, ""},                            // no keys: no signal
		{[]string{"path", "limit", "x"}, ""}, // an unknown key
	} {
		name, ok := tools.Fit(tt.keys)
		assert.Equal(t, tt.want != "", ok, "%v", tt.keys)
		assert.Equal(t, tt.want, name, "%v", tt.keys)
	}
	both := mustParseTools(t, `[{"name": "a", "parameters": {"properties": {"path": {}}}}, {"name": "b", "parameters": {"properties": {"path": {}}}}]`)
	_, ok := both.Fit([]string{"path"})
	assert.False(t, ok, "two tools fit: ambiguous")
	var none *Tools
	_, ok = none.Fit([]string{"path"})
	assert.False(t, ok)

	assert.True(t, tools.HasParam("read_file", "limit"))
	assert.True(t, tools.HasParam("READ_FILE", "path"), "names fold like Lookup")
	assert.False(t, tools.HasParam("read_file", "content"))
	assert.False(t, tools.HasParam("ping", "x"), "no schema declares no parameter")
	assert.False(t, none.HasParam("read_file", "path"))
}
