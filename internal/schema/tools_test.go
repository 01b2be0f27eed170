package schema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readToolsFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "tools", name))
	require.NoError(t, err)
	return data
}

func mustParseTools(t testing.TB, data string) *Tools {
	t.Helper()
	tools, err := ParseTools([]byte(data))
	require.NoError(t, err)
	return tools
}

func mustSchema(t testing.TB, data string) *Schema {
	t.Helper()
	s, err := CompileSchema([]byte(data))
	require.NoError(t, err)
	return s
}

func TestParseToolsShapes(t *testing.T) {
	tests := []struct {
		name    string
		fixture string // file in testdata/tools, or
		inline  string
		names   []string
		// typed checks one property: tool, property, raw value, wanted JSON.
		typed [4]string
	}{
		{name: "openai tools array", fixture: "openai.json",
			names: []string{"get_weather", "search"},
			typed: [4]string{"get_weather", "days", "5", `5`}},
		{name: "anthropic tools array", fixture: "anthropic.json",
			names: []string{"Bash", "read_file", "web_search"},
			typed: [4]string{"read_file", "offset", "10", `10`}},
		{name: "bare array", fixture: "bare.json",
			names: []string{"ls", "noop"},
			typed: [4]string{"ls", "all", "True", `true`}},
		{name: "openai request body", fixture: "request_openai.json",
			names: []string{"get_time", "get_weather"},
			typed: [4]string{"get_weather", "city", "020", `"020"`}},
		{name: "anthropic request body", fixture: "request_anthropic.json",
			names: []string{"get_stock_price"},
			typed: [4]string{"get_stock_price", "ticker", "true", `"true"`}},
		{name: "legacy functions body", fixture: "request_functions.json",
			names: []string{"get_current_weather"},
			typed: [4]string{"get_current_weather", "unit", "Celsius", `"celsius"`}},
		{name: "single openai tool object",
			inline: `{"type":"function","function":{"name":"one","parameters":{"type":"object","properties":{"n":{"type":"integer"}}}}}`,
			names:  []string{"one"},
			typed:  [4]string{"one", "n", " 7 ", `7`}},
		{name: "single bare tool object",
			inline: `{"name":"two","parameters":{"properties":{"s":{"type":"string"}}}}`,
			names:  []string{"two"},
			typed:  [4]string{"two", "s", "5", `"5"`}},
		{name: "mcp inputSchema",
			inline: `[{"name":"mcp","inputSchema":{"type":"object","properties":{"b":{"type":"boolean"}}}}]`,
			names:  []string{"mcp"},
			typed:  [4]string{"mcp", "b", "FALSE", `false`}},
		{name: "gemini function declarations",
			inline: `{"tools":[{"functionDeclarations":[{"name":"g","parameters":{"type":"OBJECT","properties":{"x":{"type":"integer","nullable":true}}}}]}]}`,
			names:  []string{"g"},
			typed:  [4]string{"g", "x", "None", `null`}},
		{name: "tools and functions together",
			inline: `{"tools":[{"type":"function","function":{"name":"a"}}],"functions":[{"name":"b"}]}`,
			names:  []string{"a", "b"},
			typed:  [4]string{"a", "x", "020", `"020"`}},
		{name: "later declaration replaces earlier",
			inline: `[{"name":"d","parameters":{"properties":{"v":{"type":"string"}}}},{"name":"d","parameters":{"properties":{"v":{"type":"integer"}}}}]`,
			names:  []string{"d"},
			typed:  [4]string{"d", "v", "3", `3`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.inline)
			if tc.fixture != "" {
				data = readToolsFixture(t, tc.fixture)
			}
			tools, err := ParseTools(data)
			require.NoError(t, err)
			assert.Equal(t, tc.names, tools.Names())
			assert.Equal(t, len(tc.names), tools.Len())
			tool, ok := tools.Lookup(tc.typed[0])
			require.True(t, ok)
			assert.Equal(t, tc.typed[0], tool.Name)
			got, fits := TypeValue(tc.typed[2], tool.Schema.Property(tc.typed[1]))
			assert.True(t, fits)
			assert.JSONEq(t, tc.typed[3], string(got))
		})
	}
}

func TestParseToolsEmpty(t *testing.T) {
	tests := []struct {
		name, in string
	}{
		{"empty input", ""},
		{"whitespace", " \n\t"},
		{"null", "null"},
		{"empty array", "[]"},
		{"empty object", "{}"},
		{"body without tools", `{"model":"m","messages":[]}`},
		{"null tools", `{"tools":null}`},
		{"only builtin tools", `[{"type":"code_interpreter"},{"type":"file_search"}]`},
		{"empty name", `[{"name":""}]`},
		{"null name", `[{"name":null}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tools, err := ParseTools([]byte(tc.in))
			require.NoError(t, err)
			require.NotNil(t, tools)
			assert.Zero(t, tools.Len())
			assert.Empty(t, tools.Names())
			_, ok := tools.Lookup("anything")
			assert.False(t, ok)
		})
	}
}

func TestParseToolsMalformed(t *testing.T) {
	tests := []struct {
		name, in string
	}{
		{"truncated array", `[{"name":"a"`},
		{"not json", `tools: a, b`},
		{"scalar", `42`},
		{"string", `"tools"`},
		{"entry not an object", `[1, 2]`},
		{"entry is an array", `[[{"name":"a"}]]`},
		{"tools not an array", `{"tools":{"name":"a"}}`},
		{"functions not an array", `{"functions":"x"}`},
		{"name not a string", `[{"name":7}]`},
		{"function not an object", `[{"type":"function","function":"get_weather"}]`},
		{"parameters not an object", `[{"name":"a","parameters":"{}"}]`},
		{"input_schema an array", `[{"name":"a","input_schema":[1]}]`},
		{"broken body", `{"tools":[{"type":"function","function":{"name":"a",}}]}`},
		{"trailing garbage", `[{"name":"a"}] x`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var tools *Tools
			var err error
			assert.NotPanics(t, func() { tools, err = ParseTools([]byte(tc.in)) })
			assert.Error(t, err)
			assert.Nil(t, tools)
		})
	}
}

func TestToolsLookup(t *testing.T) {
	tools := mustParseTools(t, `[{"name":"Read"},{"name":"read_file"},{"name":"Shell"},{"name":"SHELL"},{"name":"shell_x"}]`)
	tests := []struct {
		name, query, want string
		ok                bool
	}{
		{"exact", "Read", "Read", true},
		{"case-insensitive unique", "READ_FILE", "read_file", true},
		{"case-insensitive lower", "read", "Read", true},
		{"exact beats fold", "SHELL", "SHELL", true},
		{"ambiguous fold", "shell", "", false},
		{"unknown", "write", "", false},
		{"empty", "", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tool, ok := tools.Lookup(tc.query)
			assert.Equal(t, tc.ok, ok)
			if ok {
				assert.Equal(t, tc.want, tool.Name)
			} else {
				assert.Nil(t, tool)
			}
		})
	}
}

func TestToolsNilSafe(t *testing.T) {
	var tools *Tools
	assert.Zero(t, tools.Len())
	assert.Nil(t, tools.Names())
	tool, ok := tools.Lookup("x")
	assert.False(t, ok)
	assert.Nil(t, tool)
	var zero Tools
	assert.Zero(t, zero.Len())
	_, ok = zero.Lookup("x")
	assert.False(t, ok)
	var s *Schema
	assert.Nil(t, s.Property("x"))
	assert.Nil(t, s.Items())
}

func TestToolsNamesSortedCopy(t *testing.T) {
	tools := mustParseTools(t, `[{"name":"zeta"},{"name":"alpha"},{"name":"Mid"}]`)
	names := tools.Names()
	assert.Equal(t, []string{"Mid", "alpha", "zeta"}, names)
	names[0] = "changed"
	assert.Equal(t, []string{"Mid", "alpha", "zeta"}, tools.Names())
}

func TestCompileSchema(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		prop   string // property to type ("" = the schema itself)
		raw    string
		want   string
		fits   bool
	}{
		{"empty schema is unknown", `{}`, "", "020", `"020"`, true},
		{"true schema is unknown", `true`, "", "5", `5`, true},
		{"type list", `{"type":["integer","null"]}`, "", "", `null`, true},
		{"nullable (OpenAPI)", `{"type":"integer","nullable":true}`, "", "null", `null`, true},
		{"const", `{"const":"fixed"}`, "", "FIXED", `"fixed"`, true},
		{"allOf merges properties", `{"allOf":[{"properties":{"a":{"type":"integer"}}},{"properties":{"b":{"type":"string"}}}]}`, "a", "4", `4`, true},
		{"allOf merges properties (second)", `{"allOf":[{"properties":{"a":{"type":"integer"}}},{"properties":{"b":{"type":"string"}}}]}`, "b", "4", `"4"`, true},
		{"allOf intersects types", `{"allOf":[{"type":"number"},{"type":"integer"}]}`, "", "5.0", `5`, true},
		{"allOf merges a shared property", `{"allOf":[{"properties":{"a":{"type":["string","integer"]}}},{"properties":{"a":{"type":"integer"}}}]}`, "a", "020", `20`, true},
		{"allOf with anyOf member", `{"allOf":[{"anyOf":[{"type":"integer"},{"type":"boolean"}]}]}`, "", "TRUE", `true`, true},
		{"anyOf inherits outer type", `{"type":"object","anyOf":[{"properties":{"a":{"type":"integer"}}}]}`, "a", "1", `1`, true},
		{"$ref to definitions", `{"properties":{"p":{"$ref":"#/definitions/P"}},"definitions":{"P":{"type":"boolean"}}}`, "p", "False", `false`, true},
		{"$ref with escaped pointer", `{"properties":{"p":{"$ref":"#/$defs/a~1b"}},"$defs":{"a/b":{"type":"integer"}}}`, "p", "3", `3`, true},
		{"$ref percent-encoded", `{"properties":{"p":{"$ref":"#/$defs/a%20b"}},"$defs":{"a b":{"type":"integer"}}}`, "p", "3", `3`, true},
		{"$ref into an array", `{"properties":{"p":{"$ref":"#/$defs/list/1"}},"$defs":{"list":[{"type":"string"},{"type":"integer"}]}}`, "p", "3", `3`, true},
		{"unresolved $ref is unknown", `{"properties":{"p":{"$ref":"#/$defs/none"}}}`, "p", "3", `3`, true},
		{"additionalProperties schema", `{"type":"object","additionalProperties":{"type":"integer"}}`, "anything", "9", `9`, true},
		{"unknown property", `{"type":"object","properties":{"a":{"type":"integer"}}}`, "b", "020", `"020"`, true},
		{"unknown keywords ignored", `{"type":"string","format":"date","minLength":3,"default":"x"}`, "", "020", `"020"`, true},
		{"unknown type name ignored", `{"type":"decimal"}`, "", "5", `5`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := mustSchema(t, tc.schema)
			if tc.prop != "" {
				s = s.Property(tc.prop)
			}
			got, fits := TypeValue(tc.raw, s)
			assert.Equal(t, tc.want, string(got))
			assert.Equal(t, tc.fits, fits)
		})
	}
}

func TestCompileSchemaErrors(t *testing.T) {
	for _, in := range []string{`[]`, `"object"`, `5`, `{"type":`} {
		_, err := CompileSchema([]byte(in))
		assert.Error(t, err, in)
	}
	for _, in := range []string{``, `null`, `true`, `false`, `{}`, `{"description":"x"}`} {
		s, err := CompileSchema([]byte(in))
		assert.NoError(t, err, in)
		assert.Nil(t, s, in)
	}
}

// TestSchemaRefCycles checks that cyclic $refs compile, type values through
// the recursion, and never hang.
func TestSchemaRefCycles(t *testing.T) {
	tools, err := ParseTools(readToolsFixture(t, "refs.json"))
	require.NoError(t, err)
	tool, ok := tools.Lookup("tree")
	require.True(t, ok)
	tests := []struct {
		name, prop, raw, want string
		fits                  bool
	}{
		{"recursive node", "root",
			`{"value":"1","children":[{"value":"2","children":["leaf",{"value":3}]},"x"]}`,
			`{"value":1,"children":[{"value":2,"children":["leaf",{"value":3}]},"x"]}`, true},
		{"recursive definitions", "legacy", `{"n":"1.5","again":{"n":"2","again":{"n":3}}}`,
			`{"n":1.5,"again":{"n":2,"again":{"n":3}}}`, true},
		{"pure reference cycle is unknown", "loop", "020", `"020"`, true},
		{"pure reference cycle defaults", "loop", "5", `5`, true},
		{"self-referencing anyOf", "self", "12", `12`, true},
		{"self-referencing anyOf null", "self", "None", `null`, true},
		{"self-referencing anyOf misfit", "self", "abc", `"abc"`, false},
		{"self-referencing allOf", "merged", `{"id":"1","extra":"true","next":{"id":"2"}}`,
			`{"id":1,"extra":true,"next":{"id":2}}`, true},
		{"missing definition", "missing", "5", `5`, true},
		{"remote reference", "remote", "020", `"020"`, true},
		{"reference to the root", "whole", `{"root":{"value":"4"}}`, `{"root":{"value":4}}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan struct{})
			var got json.RawMessage
			var fits bool
			go func() {
				defer close(done)
				got, fits = TypeValue(tc.raw, tool.Schema.Property(tc.prop))
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("typing did not terminate")
			}
			assert.Equal(t, tc.want, string(got))
			assert.Equal(t, tc.fits, fits)
		})
	}
}

func TestSchemaDeepRecursionTerminates(t *testing.T) {
	// Two closed object alternatives that both recurse: naive alternative
	// search is exponential in the depth of the value.
	s := mustSchema(t, `{"$defs":{"N":{"anyOf":[
		{"type":"object","properties":{"a":{"$ref":"#/$defs/N"},"x":{"type":"integer"}},"additionalProperties":false},
		{"type":"object","properties":{"a":{"$ref":"#/$defs/N"},"y":{"type":"integer"}},"additionalProperties":false}]}},
		"$ref":"#/$defs/N"}`)
	raw := ""
	for range 40 {
		raw += `{"a":`
	}
	raw += `{"z":1}`
	for range 40 {
		raw += `}`
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		got, fits := TypeValue(raw, s)
		assert.False(t, fits)
		assert.True(t, json.Valid(got))
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("typing did not terminate")
	}
}
