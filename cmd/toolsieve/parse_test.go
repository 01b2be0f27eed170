package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// outEvent is one printed event line, decoded.
type outEvent struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	Raw       *string         `json:"raw"`
	Index     *int            `json:"index"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Dialect   string          `json:"dialect"`
	Repairs   []string        `json:"repairs"`
	Reason    string          `json:"reason"`
	Message   string          `json:"message"`
}

// decodeLines checks that every line of out is one JSON object and decodes it.
func decodeLines(t *testing.T, out string) []outEvent {
	t.Helper()
	var evs []outEvent
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		require.Truef(t, json.Valid(line), "line %d is not valid JSON: %s", n, line)
		var e outEvent
		require.NoError(t, json.Unmarshal(line, &e), "line %d", n)
		require.NotEmpty(t, e.Type, "line %d has no type", n)
		evs = append(evs, e)
	}
	require.NoError(t, sc.Err())
	require.True(t, out == "" || strings.HasSuffix(out, "\n"), "output must end with a newline")
	return evs
}

// accounted concatenates the text of text events and the raw of the others.
func accounted(evs []outEvent) string {
	var b strings.Builder
	for _, e := range evs {
		src := e.Raw
		if e.Type == "text" {
			src = e.Text
		}
		if src != nil {
			b.WriteString(*src)
		}
	}
	return b.String()
}

// callSig is what must not depend on the chunking.
type callSig struct {
	Name, Args, Dialect, Repairs string
}

func calls(t *testing.T, evs []outEvent) []callSig {
	t.Helper()
	var out []callSig
	for _, e := range evs {
		if e.Type != "tool_call" {
			continue
		}
		require.True(t, json.Valid(e.Arguments), "arguments of %s", e.Name)
		require.NotNil(t, e.Repairs, "repairs must be an array")
		out = append(out, callSig{e.Name, string(e.Arguments), e.Dialect, strings.Join(e.Repairs, ",")})
	}
	return out
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// errAfter returns data, then fails.
type errAfter struct {
	data string
	done bool
}

func (r *errAfter) Read(p []byte) (int, error) {
	if r.done {
		return 0, errors.New("connection reset")
	}
	r.done = true
	return copy(p, r.data), nil
}

func TestParseExitStatus(t *testing.T) {
	good := writeFile(t, "in.txt", "Hi <tool_call>get_time</tool_call>")
	tools := writeFile(t, "tools.json", `[{"type":"function","function":{"name":"read_file"}}]`)
	badJSON := writeFile(t, "bad.json", `[{"type":"function",`)
	noTools := writeFile(t, "none.json", `{"model":"x"}`)
	missing := filepath.Join(t.TempDir(), "missing.txt")

	tests := []struct {
		name      string
		args      []string
		stdin     io.Reader
		code      int
		stderrHas string
	}{
		{name: "stdin", args: []string{"parse"}, code: exitOK},
		{name: "file", args: []string{"parse", good}, code: exitOK},
		{name: "dash is stdin", args: []string{"parse", "-"}, code: exitOK},
		{name: "input text", args: []string{"parse", "--input", "text", good}, code: exitOK},
		{name: "input=text", args: []string{"parse", "--input=text", good}, code: exitOK},
		{name: "chunk", args: []string{"parse", "--chunk", "1", good}, code: exitOK},
		{name: "flags after file", args: []string{"parse", good, "--chunk", "2"}, code: exitOK},
		{name: "tools", args: []string{"parse", "--tools", tools, good}, code: exitOK},
		{name: "malformed markup is data", args: []string{"parse"}, stdin: strings.NewReader("<function_calls>\n<invoke name=\"f\">{\"a\": invfunction_calls>"), code: exitOK},
		{name: "help", args: []string{"parse", "--help"}, code: exitOK},

		{name: "unknown flag", args: []string{"parse", "--frob"}, code: exitUsage, stderrHas: "-frob"},
		{name: "bad input kind", args: []string{"parse", "--input", "xml"}, code: exitUsage, stderrHas: `bad --input value "xml"`},
		{name: "input json", args: []string{"parse", "--input", "json"}, stdin: strings.NewReader(`{"choices":[{"message":{"content":"Hi"}}]}`), code: exitOK},
		{name: "quiet", args: []string{"parse", "--quiet", good}, code: exitOK},
		{name: "input sse", args: []string{"parse", "--input", "sse"}, stdin: strings.NewReader("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n"), code: exitOK},
		{name: "input auto", args: []string{"parse", "--input", "auto", good}, code: exitOK},
		{name: "input without value", args: []string{"parse", "--input"}, code: exitUsage},
		{name: "chunk not a number", args: []string{"parse", "--chunk", "ten"}, code: exitUsage, stderrHas: "chunk"},
		{name: "chunk negative", args: []string{"parse", "--chunk", "-1"}, code: exitUsage, stderrHas: "bad --chunk value -1"},
		{name: "two files", args: []string{"parse", good, good}, code: exitUsage, stderrHas: "too many arguments"},
		{name: "tools file missing", args: []string{"parse", "--tools", missing, good}, code: exitUsage, stderrHas: "--tools"},
		{name: "tools file invalid", args: []string{"parse", "--tools", badJSON, good}, code: exitUsage, stderrHas: "--tools"},
		{name: "tools file without tools", args: []string{"parse", "--tools", noTools, good}, code: exitOK, stderrHas: "declares no tools"},

		{name: "input file missing", args: []string{"parse", missing}, code: exitIO, stderrHas: "missing.txt"},
		{name: "input is a directory", args: []string{"parse", t.TempDir()}, code: exitIO},
		{name: "read error", args: []string{"parse"}, stdin: &errAfter{data: "Hi <tool_call>get_"}, code: exitIO, stderrHas: "connection reset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, tt.stdin, tt.args...)
			assert.Equal(t, tt.code, code, "stderr: %s", stderr)
			if tt.stderrHas != "" {
				assert.Contains(t, stderr, tt.stderrHas)
			}
			if code == exitUsage {
				assert.Contains(t, stderr, "Usage: toolsieve parse")
				assert.Empty(t, stdout)
			}
			switch {
			case code != exitOK || tt.stderrHas != "" || slices.Contains(tt.args, "--help"):
			case slices.Contains(tt.args, "--quiet"):
				assert.Empty(t, stderr)
			default:
				// The detection note and the summary, nothing else.
				assert.Regexp(t, `^(toolsieve parse: detected [^\n]*\n)?toolsieve parse: \d+ calls?, [^\n]*\n$`, stderr)
			}
		})
	}
}

func TestParseReadErrorKeepsWhatWasRead(t *testing.T) {
	in := "Hi <tool_call>get_"
	code, stdout, _ := runCmd(t, &errAfter{data: in}, "parse")
	require.Equal(t, exitIO, code)
	assert.Equal(t, in, accounted(decodeLines(t, stdout)))
}

// parseInputs are inputs for the output checks: a few written here, the
// bundled demo samples and the repository's test cases.
func parseInputs(t *testing.T) map[string]string {
	t.Helper()
	in := map[string]string{
		"empty":        "",
		"plain":        "Just text, no markup.\n",
		"glm no args":  "<tool_call>get_time</tool_call>",
		"almost":       "a < b and <tool but not <tool_call",
		"multibyte":    "终于 <｜DSML｜function_calls><｜DSML｜invoke name=\"f\"></｜DSML｜invoke></｜DSML｜function_calls> 好",
		"orphans":      "done</tool_call></invoke>\n",
		"cut in value": "<function_calls>\n<invoke name=\"w\">\n<parameter name=\"c\">abc",
	}
	for _, s := range demoSamples {
		b, _, err := s.load()
		require.NoError(t, err)
		in["sample "+s.name()] = string(b)
	}
	files, _ := filepath.Glob("../../testdata/cases/*.json")
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var cases []struct {
			Name  string          `json:"name"`
			Input string          `json:"input"`
			Tools json.RawMessage `json:"tools"`
		}
		if json.Unmarshal(data, &cases) != nil {
			continue // being edited: not this package's business
		}
		for i, c := range cases {
			if c.Tools == nil {
				in[filepath.Base(f)+" "+strconv.Itoa(i)+" "+c.Name] = c.Input
			}
		}
	}
	return in
}

func TestParseOutputAccountsForInput(t *testing.T) {
	for name, input := range parseInputs(t) {
		t.Run(name, func(t *testing.T) {
			var whole []callSig
			for _, chunk := range []string{"0", "1", "3", "7", "64"} {
				code, stdout, stderr := runCmd(t, strings.NewReader(input), "parse", "--chunk", chunk)
				require.Equal(t, exitOK, code, stderr)
				evs := decodeLines(t, stdout)
				require.Equal(t, input, accounted(evs), "chunk %s: text+raw must give back the input", chunk)
				got := calls(t, evs)
				if chunk == "0" {
					whole = got
					continue
				}
				assert.Equal(t, whole, got, "chunk %s: calls differ from --chunk 0", chunk)
			}
		})
	}
}

func TestParseChunkOneSameCallsAsWhole(t *testing.T) {
	tests := []struct {
		name  string
		input string
		calls int
	}{
		{name: "glm", input: "Time?\n<tool_call>get_time</tool_call>", calls: 1},
		{name: "dsml", input: "x<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"city\" string=\"true\">杭州</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>y", calls: 1},
		{name: "seed", input: "<function_calls>\n<invoke name=\"update_todo_list\">{\n  \"todos\": \"[-] Gather model information...invfunction_calls>", calls: 1},
		{name: "two hermes", input: "<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>\n<tool_call>\n{\"name\": \"b\", \"arguments\": {\"x\": 1}}\n</tool_call>", calls: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := writeFile(t, "in.txt", tt.input)
			_, out0, _ := runCmd(t, nil, "parse", "--chunk", "0", file)
			_, out1, _ := runCmd(t, nil, "parse", "--chunk", "1", file)
			c0, c1 := calls(t, decodeLines(t, out0)), calls(t, decodeLines(t, out1))
			assert.Len(t, c0, tt.calls)
			assert.Equal(t, c0, c1)
		})
	}
}

func TestParseToolsEnablesToolTag(t *testing.T) {
	const input = "Reading.\n<read_file>\n<path>src/a.go</path>\n<line>42</line>\n</read_file>"
	openai := `[{"type":"function","function":{"name":"read_file","parameters":{"type":"object","properties":{"path":{"type":"string"},"line":{"type":"integer"}}}}}]`
	body := `{"model":"m","messages":[],"tools":` + openai + `}`
	anthropic := `[{"name":"read_file","input_schema":{"type":"object","properties":{"path":{"type":"string"},"line":{"type":"integer"}}}}]`
	tests := []struct {
		name  string
		tools string // "" for none
		calls []callSig
	}{
		{name: "no tools: tag stays text", tools: "", calls: nil},
		{name: "openai tools array", tools: openai, calls: []callSig{{"read_file", `{"path":"src/a.go","line":42}`, "tool_tag", ""}}},
		{name: "request body", tools: body, calls: []callSig{{"read_file", `{"path":"src/a.go","line":42}`, "tool_tag", ""}}},
		{name: "anthropic tools", tools: anthropic, calls: []callSig{{"read_file", `{"path":"src/a.go","line":42}`, "tool_tag", ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"parse", "--chunk", "5"}
			if tt.tools != "" {
				args = append(args, "--tools", writeFile(t, "tools.json", tt.tools))
			}
			code, stdout, stderr := runCmd(t, strings.NewReader(input), args...)
			require.Equal(t, exitOK, code, stderr)
			evs := decodeLines(t, stdout)
			assert.Equal(t, input, accounted(evs))
			got := calls(t, evs)
			for i := range got { // compare arguments as JSON values
				if i < len(tt.calls) {
					assert.JSONEq(t, tt.calls[i].Args, got[i].Args)
					got[i].Args = tt.calls[i].Args
				}
			}
			assert.Equal(t, tt.calls, got)
		})
	}
}

func TestParseEventShapes(t *testing.T) {
	code, stdout, _ := runCmd(t, strings.NewReader("Time?\n<tool_call>get_time</tool_call>"), "parse")
	require.Equal(t, exitOK, code)
	evs := decodeLines(t, stdout)
	var call *outEvent
	for i := range evs {
		if evs[i].Type == "tool_call" {
			call = &evs[i]
		}
	}
	require.NotNil(t, call)
	assert.Equal(t, "get_time", call.Name)
	assert.JSONEq(t, `{}`, string(call.Arguments))
	assert.Equal(t, "glm", call.Dialect)
	assert.NotEmpty(t, call.ID)
	require.NotNil(t, call.Index)
	assert.Equal(t, 0, *call.Index)
}
