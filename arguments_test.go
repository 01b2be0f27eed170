package toolsieve

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestArgumentsFromMarkup(t *testing.T) {
	tests := []struct {
		name, tool, args, want string
		ok                     bool
	}{
		{"json passes through", "ls", `{"dirPath": "src"}`, `{"dirPath": "src"}`, true},
		{"qwen markup", "ls", "<tool_call>\n<function=ls>\n<parameter=dirPath>\nsrc\n</parameter>\n<parameter=recursive>\nTrue\n</parameter>\n</function>\n</tool_call>",
			`{"dirPath": "src", "recursive": true}`, true},
		{"parameters only", "ls", "<parameter=dirPath>\nsrc\n</parameter>", `{"dirPath": "src"}`, true},
		{"anthropic parameters only", "ls", `<parameter name="dirPath">src</parameter>`, `{"dirPath": "src"}`, true},
		{"plain text", "ls", "just words", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, ok := ArgumentsFromMarkup(tc.tool, []byte(tc.args), Options{})
			assert.Equal(t, tc.ok, ok)
			if tc.ok {
				assert.JSONEq(t, tc.want, string(got))
			}
		})
	}
}

// TestCloseJSON: what completes a JSON prefix by appending alone, and false
// where appending cannot.
func TestCloseJSON(t *testing.T) {
	tests := []struct {
		name, prefix, want string
		ok                 bool
	}{
		{"open object", `{`, `}`, true},
		{"inside a string", `{"path": "src/ma`, `"}`, true},
		{"after a key", `{"a": 1, "b": [1, {"c": "x"`, `}]}`, true},
		{"whole", `{"a": 1}`, ``, true},
		{"after an escape", `{"a": "x\`, ``, false},
		{"no json", `hello`, ``, false},
		{"empty", ``, ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := CloseJSON([]byte(tt.prefix))
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, string(got))
			if ok {
				assert.True(t, json.Valid(append([]byte(tt.prefix), got...)), "%s%s", tt.prefix, got)
			}
		})
	}
}
