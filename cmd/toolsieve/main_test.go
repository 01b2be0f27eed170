package main

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runCmd runs the command in-process and returns its exit status and outputs.
func runCmd(t *testing.T, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errOut bytes.Buffer
	code = run(args, stdin, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestRunTopLevel(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		code       int
		stdoutHas  []string
		stderrHas  []string
		wantStdout bool
	}{
		{name: "no arguments", args: nil, code: exitUsage, stderrHas: []string{"Usage:", "parse", "demo"}},
		{name: "unknown command", args: []string{"frobnicate"}, code: exitUsage, stderrHas: []string{`unknown command "frobnicate"`}},
		{name: "unknown flag", args: []string{"--frob"}, code: exitUsage, stderrHas: []string{"unknown flag --frob"}},
		{name: "help", args: []string{"help"}, code: exitOK, stdoutHas: []string{"Commands:", "parse", "demo", "help"}},
		{name: "--help", args: []string{"--help"}, code: exitOK, stdoutHas: []string{"Commands:"}},
		{name: "-h", args: []string{"-h"}, code: exitOK, stdoutHas: []string{"Commands:"}},
		{name: "help parse", args: []string{"help", "parse"}, code: exitOK, stdoutHas: []string{"--input text|sse|auto", "--chunk N", "--tools FILE"}},
		{name: "help demo", args: []string{"help", "demo"}, code: exitOK, stdoutHas: []string{"--json", "deepseek_dsml", "runaway_dsml_openers"}},
		{name: "help unknown", args: []string{"help", "frob"}, code: exitUsage, stderrHas: []string{`unknown command "frob"`}},
		{name: "help too many", args: []string{"help", "parse", "demo"}, code: exitUsage},
		{name: "--version", args: []string{"--version"}, code: exitOK, stdoutHas: []string{"toolsieve ", "go"}},
		{name: "-version", args: []string{"-version"}, code: exitOK, stdoutHas: []string{"toolsieve "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, nil, tt.args...)
			assert.Equal(t, tt.code, code, "stderr: %s", stderr)
			for _, s := range tt.stdoutHas {
				assert.Contains(t, stdout, s)
			}
			for _, s := range tt.stderrHas {
				assert.Contains(t, stderr, s)
			}
			if code == exitOK {
				assert.Empty(t, stderr)
			} else {
				assert.Empty(t, stdout)
			}
		})
	}
}

func TestUsageListsOnlyExistingCommands(t *testing.T) {
	for name := range commands {
		assert.Contains(t, usageText, "  "+name+" ")
	}
}

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		pos  []string
	}{
		{name: "flags first", args: []string{"--chunk", "3", "f"}, pos: []string{"f"}},
		{name: "flags after file", args: []string{"f", "--chunk", "3"}, pos: []string{"f"}},
		{name: "flags around files", args: []string{"a", "--chunk=3", "b"}, pos: []string{"a", "b"}},
		{name: "double dash", args: []string{"--chunk", "3", "--", "--x", "y"}, pos: []string{"--x", "y"}},
		{name: "dash is a file", args: []string{"-", "--chunk", "3"}, pos: []string{"-"}},
		{name: "none", args: nil, pos: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := newFlagSet("t")
			chunk := fs.Int("chunk", 0, "")
			pos, err := parseFlags(fs, tt.args)
			require.NoError(t, err)
			assert.Equal(t, tt.pos, pos)
			if len(tt.args) > 0 {
				assert.Equal(t, 3, *chunk)
			}
		})
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteErrorIsIOError(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{name: "parse", args: []string{"parse"}},
		{name: "demo", args: []string{"demo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errOut bytes.Buffer
			code := run(tt.args, strings.NewReader("hello <tool_call>get_time</tool_call>"), failWriter{}, &errOut)
			assert.Equal(t, exitIO, code)
			assert.Contains(t, errOut.String(), "disk full")
		})
	}
}
