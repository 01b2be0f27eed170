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

func TestToolsOpenAndFitsTool(t *testing.T) {
	tools := mustParseTools(t, `[
	 {"name": "read_file", "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
	 {"name": "ping"},
	 {"name": "exec", "input_schema": {"type": "object"}},
	 {"name": "closed", "input_schema": {"type": "object", "additionalProperties": false}}]`)
	assert.False(t, tools.Open("read_file"), "it declares properties")
	assert.True(t, tools.Open("ping"), "no schema: any names")
	assert.True(t, tools.Open("exec"), "an object without properties: any names")
	assert.False(t, tools.Open("closed"), "additionalProperties false: no name")
	assert.False(t, tools.Open("nope"), "undeclared")

	assert.True(t, tools.FitsTool("read_file", []string{"path"}))
	assert.False(t, tools.FitsTool("read_file", []string{"file"}), "a key it does not declare")
	assert.False(t, tools.FitsTool("read_file", nil), "path is required")
	assert.True(t, tools.FitsTool("exec", []string{"command", "cwd"}))
	assert.True(t, tools.FitsTool("ping", nil))
	assert.False(t, tools.FitsTool("closed", []string{"x"}))
	assert.False(t, tools.FitsTool("nope", nil))

	name, ok := tools.Fit([]string{"command"})
	assert.False(t, ok, "open tools fit anything, so a fit to them says nothing: %q", name)
	name, ok = tools.Fit([]string{"path"})
	assert.True(t, ok)
	assert.Equal(t, "read_file", name)
}
