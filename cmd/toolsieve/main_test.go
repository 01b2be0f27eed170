package main

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
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
		{name: "help parse", args: []string{"help", "parse"}, code: exitOK, stdoutHas: []string{"--input auto|text|sse|json", "--chunk N", "--tools FILE", "--quiet"}},
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

// usageCommands returns the names the usage text lists under "Commands:".
func usageCommands(t *testing.T) []string {
	_, section, ok := strings.Cut(usageText, "\nCommands:\n")
	require.True(t, ok, "no Commands: section")
	var names []string
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "  ") {
			break // the section ends at a blank or unindented line
		}
		names = append(names, strings.Fields(line)[0])
	}
	require.NotEmpty(t, names)
	return names
}

// TestUsageListsOnlyExistingCommands: every command the usage text lists
// runs (help is handled before the table).
func TestUsageListsOnlyExistingCommands(t *testing.T) {
	for _, name := range usageCommands(t) {
		_, ok := commands[name]
		assert.True(t, ok || name == "help", "usage lists %q, which is no command", name)
	}
}

// TestUsageListsEveryCommand: every command is in the usage text.
func TestUsageListsEveryCommand(t *testing.T) {
	listed := usageCommands(t)
	for name := range commands {
		assert.Contains(t, listed, name)
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

// Usage errors print one line saying what is wrong and a hint (the
// command's synopsis and where its help is), not the whole help.
func TestUsageErrorsAreOneLineAndAHint(t *testing.T) {
	hint := func(cmd string) string {
		synopsis, _, _ := strings.Cut(commands[cmd].usage(), "\n")
		return synopsis + " (more: toolsieve help " + cmd + ")\n"
	}
	missing := filepath.Join(t.TempDir(), "missing.json")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "bad --input", args: []string{"parse", "--input", "xml"},
			want: "toolsieve parse: bad --input value \"xml\" (want auto, text, sse or json)\n" + hint("parse")},
		{name: "unknown flag", args: []string{"parse", "--frob"},
			want: "toolsieve parse: flag provided but not defined: -frob\n" + hint("parse")},
		{name: "flag without value", args: []string{"parse", "--chunk"},
			want: "toolsieve parse: flag needs an argument: -chunk\n" + hint("parse")},
		{name: "two files", args: []string{"parse", "a", "b"},
			want: "toolsieve parse: too many arguments: [\"a\" \"b\"] (want at most one FILE)\n" + hint("parse")},
		{name: "bad --api", args: []string{"rewrite", "--api", "gemini"},
			want: "toolsieve rewrite: bad --api value \"gemini\" (want openai, anthropic, responses or auto)\n" + hint("rewrite")},
		{name: "missing policy", args: []string{"rewrite", "--policy", missing},
			want: "toolsieve rewrite: --policy: open " + missing + ": no such file or directory\n" + hint("rewrite")},
		{name: "unknown sample", args: []string{"demo", "nope"},
			want: "toolsieve demo: unknown sample \"nope\"\n" + hint("demo")},
		{name: "dialects with arguments", args: []string{"dialects", "x"},
			want: "toolsieve dialects: unexpected arguments: [\"x\"]\n" + hint("dialects")},
		{name: "unknown command", args: []string{"frob"},
			want: "toolsieve: unknown command \"frob\"\nRun \"toolsieve help\" for the commands.\n"},
		{name: "unknown top-level flag", args: []string{"--frob"},
			want: "toolsieve: unknown flag --frob\nRun \"toolsieve help\" for the commands.\n"},
		{name: "help for an unknown command", args: []string{"help", "frob"},
			want: "toolsieve help: unknown command \"frob\"\nRun \"toolsieve help\" for the commands.\n"},
		{name: "help with two commands", args: []string{"help", "parse", "demo"},
			want: "toolsieve help: too many arguments\nUsage: toolsieve help [COMMAND]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, nil, tt.args...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, stdout)
			assert.Equal(t, tt.want, stderr)
			assert.Equal(t, 2, strings.Count(stderr, "\n"), "one line and a hint")
		})
	}
}
