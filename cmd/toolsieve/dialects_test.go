package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve"
)

// TestDialectsCommand: one line per table entry, name first, then family,
// whether declared tools are needed, and the quoted canonical example.
func TestDialectsCommand(t *testing.T) {
	code, stdout, stderr := runCmd(t, strings.NewReader(""), "dialects")
	require.Equal(t, exitOK, code, stderr)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Len(t, lines, len(toolsieve.DescribeDialects()))
	for i, d := range toolsieve.DescribeDialects() {
		f := strings.Fields(lines[i])
		require.GreaterOrEqual(t, len(f), 4, "line %q", lines[i])
		assert.Equal(t, d.Name, f[0])
		assert.Equal(t, d.Family, f[1])
		assert.Equal(t, d.NeedsTools, f[2] == "tools", "line %q", lines[i])
		example, err := strconv.Unquote(strings.TrimSpace(lines[i][strings.Index(lines[i], `"`):]))
		require.NoError(t, err, "line %q", lines[i])
		assert.Equal(t, d.Example, example)
	}
	code, _, _ = runCmd(t, strings.NewReader(""), "dialects", "extra")
	assert.Equal(t, exitUsage, code)
}

// TestParseDialects: --dialects enables exactly the names given; an unknown
// name is bad usage.
func TestParseDialects(t *testing.T) {
	const input = "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>\n" +
		"<tool_call>\n<function=g>\n<parameter=b>\n2\n</parameter>\n</function>\n</tool_call>"
	tests := []struct {
		dialects string
		want     []string // names of the calls
	}{
		{"", []string{"f", "g"}},
		{"hermes", []string{"f"}},
		{"qwen3_coder", []string{"g"}},
		{" hermes , qwen3_coder", []string{"f", "g"}},
		{"glm", nil},
	}
	for _, tt := range tests {
		t.Run(tt.dialects, func(t *testing.T) {
			args := []string{"parse", "--chunk", "3"}
			if tt.dialects != "" {
				args = append(args, "--dialects", tt.dialects)
			}
			code, stdout, stderr := runCmd(t, strings.NewReader(input), args...)
			require.Equal(t, exitOK, code, stderr)
			evs := decodeLines(t, stdout)
			assert.Equal(t, input, accounted(evs))
			var names []string
			for _, c := range calls(t, evs) {
				names = append(names, c.Name)
			}
			assert.Equal(t, tt.want, names)
		})
	}
	code, _, stderr := runCmd(t, strings.NewReader(input), "parse", "--dialects", "hermes,kimi_k9")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `"kimi_k9"`)
}
