package toolsieve

import (
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
