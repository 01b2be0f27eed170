package main

import (
	"bufio"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve"
)

// demoExpect says what each sample must show.
var demoExpect = map[string]struct {
	minCalls int  // recovered calls, at least
	runaway  bool // a runaway is reported
}{
	"deepseek_dsml":           {minCalls: 2},
	"seed_invfunction_calls":  {minCalls: 1},
	"qwen3_coder_write_file":  {minCalls: 1},
	"glm_search":              {minCalls: 2},
	"cut_off_mid_call":        {minCalls: 1},
	"runaway_dsml_openers":    {runaway: true},
	"markup_in_code_fence":    {minCalls: 0},
	"roo_read_file":           {minCalls: 1},
	"kimi_k2_parallel":        {minCalls: 2},
	"qwen3_coder_xml_content": {minCalls: 1},
}

func TestDemoSamplesAreBundled(t *testing.T) {
	files, err := fs.Glob(samplesFS, "samples/*")
	require.NoError(t, err)
	listed := map[string]bool{}
	for _, s := range demoSamples {
		listed[s.file] = true
		if s.tools != "" {
			listed[s.tools] = true
		}
		_, ok := demoExpect[s.name()]
		assert.True(t, ok, "sample %s has no expectation in this test", s.name())
		input, tools, err := s.load()
		require.NoError(t, err, s.file)
		assert.NotEmpty(t, input, s.file)
		if s.tools != "" {
			assert.Positive(t, tools.Len(), s.tools)
		}
	}
	for _, f := range files {
		if f == "samples/policy" { // the proxy demos' data (policy_demo.go)
			continue
		}
		assert.True(t, listed[path.Base(f)], "%s is bundled but not listed in demoSamples", f)
	}
	assert.Len(t, demoExpect, len(demoSamples))
	assert.GreaterOrEqual(t, len(demoSamples), 6)
	assert.LessOrEqual(t, len(demoSamples), 10)
}

// demoSections splits the summary into sample sections by name.
func demoSections(t *testing.T, out string) map[string]string {
	t.Helper()
	sec := map[string]string{}
	for _, part := range strings.Split(out, "\n== ")[0:] {
		part = strings.TrimPrefix(part, "== ")
		name, _, ok := strings.Cut(part, ":")
		require.True(t, ok, "section without a name: %q", part)
		sec[name] = part
	}
	return sec
}

var callLine = regexp.MustCompile(`(?m) → call #\d+ `)

func TestDemoSummary(t *testing.T) {
	code, stdout, stderr := runCmd(t, nil, "demo")
	require.Equal(t, exitOK, code, stderr)
	require.Empty(t, stderr)
	sections := demoSections(t, stdout)
	for _, s := range demoSamples {
		t.Run(s.name(), func(t *testing.T) {
			want := demoExpect[s.name()]
			sec, ok := sections[s.name()]
			require.True(t, ok, "demo does not mention %s", s.name())
			assert.Contains(t, sec, s.title)
			n := len(callLine.FindAllString(sec, -1))
			assert.GreaterOrEqual(t, n, want.minCalls, "calls recovered")
			if want.minCalls == 0 && !want.runaway {
				assert.Zero(t, n, "no call expected")
			}
			assert.Equal(t, want.runaway, strings.Contains(sec, "RUNAWAY"), "runaway reported")
			assert.Regexp(t, `(?m)^  bytes .*: ok$`, sec, "accounting check")
		})
	}
	assert.Regexp(t, `(?m)^total: \d+ samples, \d+ calls? recovered, \d+ repairs? made, [1-9]\d* runaways?, .*accounted for in (\d+)/(\d+) samples\n\z`, stdout)
	assert.Contains(t, stdout, "accounted for in 10/10 samples")
}

func TestDemoIsDeterministic(t *testing.T) {
	for _, args := range [][]string{{"demo"}, {"demo", "--json"}} {
		_, a, _ := runCmd(t, nil, args...)
		_, b, _ := runCmd(t, nil, args...)
		assert.Equal(t, a, b, "%v", args)
	}
}

func TestDemoJSON(t *testing.T) {
	tests := []struct {
		name  string
		chunk string
	}{
		{name: "default chunks", chunk: "7"},
		{name: "byte by byte", chunk: "1"},
		{name: "whole", chunk: "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, nil, "demo", "--json", "--chunk", tt.chunk)
			require.Equal(t, exitOK, code, stderr)
			type sample struct {
				name   string
				events []outEvent
			}
			var got []*sample
			for i, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
				require.True(t, json.Valid([]byte(line)), "line %d: %s", i+1, line)
				var head struct {
					Sample *string `json:"sample"`
				}
				require.NoError(t, json.Unmarshal([]byte(line), &head))
				if head.Sample != nil {
					got = append(got, &sample{name: *head.Sample})
					continue
				}
				require.NotEmpty(t, got, "event before the first sample line")
				got[len(got)-1].events = append(got[len(got)-1].events, decodeLines(t, line+"\n")...)
			}
			require.Len(t, got, len(demoSamples))
			for i, s := range demoSamples {
				g := got[i]
				require.Equal(t, s.name(), g.name)
				input, _, err := s.load()
				require.NoError(t, err)
				assert.Equal(t, string(input), accounted(g.events), "%s: accounting", s.name())
				want := demoExpect[s.name()]
				assert.GreaterOrEqual(t, len(calls(t, g.events)), want.minCalls, s.name())
				runaways := 0
				for _, e := range g.events {
					if e.Type == "runaway" {
						runaways++
					}
				}
				assert.Equal(t, want.runaway, runaways == 1, "%s: runaways %d", s.name(), runaways)
			}
		})
	}
}

func TestDemoArguments(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		sections []string
	}{
		{name: "one sample", args: []string{"demo", "glm_search"}, code: exitOK, sections: []string{"glm_search"}},
		{name: "numbered name", args: []string{"demo", "06_runaway_dsml_openers", "seed_invfunction_calls"}, code: exitOK, sections: []string{"runaway_dsml_openers", "seed_invfunction_calls"}},
		{name: "unknown sample", args: []string{"demo", "nope"}, code: exitUsage},
		{name: "negative chunk", args: []string{"demo", "--chunk", "-3"}, code: exitUsage},
		{name: "unknown flag", args: []string{"demo", "--yaml"}, code: exitUsage},
		{name: "help", args: []string{"demo", "-h"}, code: exitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, nil, tt.args...)
			require.Equal(t, tt.code, code, stderr)
			if code == exitUsage {
				assert.Contains(t, stderr, "Usage: toolsieve demo")
				return
			}
			if tt.sections == nil {
				assert.Contains(t, stdout, "Usage: toolsieve demo")
				return
			}
			secs := demoSections(t, strings.TrimSuffix(stdout, "\n"))
			for _, s := range tt.sections {
				assert.Contains(t, secs, s)
			}
			assert.Contains(t, stdout, "total: "+plural(len(tt.sections), "sample"))
		})
	}
}

func TestAbbreviation(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "short", in: "a\nb", want: `"a\nb"`},
		{name: "long ascii", in: strings.Repeat("x", 300), want: `"` + strings.Repeat("x", 106) + `" … "` + strings.Repeat("x", 53) + `" (300 bytes)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, quoteAbbrev([]byte(tt.in)))
		})
	}
	t.Run("multibyte stays valid", func(t *testing.T) {
		got := quoteAbbrev([]byte(strings.Repeat("杭州｜", 40)))
		assert.NotContains(t, got, `\x`)
		assert.Contains(t, got, " … ")
	})
}

// The before/after view of a few samples, line for line (golden files in
// testdata/demo_view): each input piece
// (abbreviated to its column; the fullwidth bars of DSML count two
// columns) beside what it became.
func TestDemoViewGolden(t *testing.T) {
	for _, sample := range []string{"seed_invfunction_calls", "deepseek_dsml", "markup_in_code_fence"} {
		t.Run(sample, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", "demo_view", sample+".txt"))
			require.NoError(t, err)
			code, stdout, stderr := runCmd(t, nil, "demo", sample)
			require.Equal(t, exitOK, code, stderr)
			sec, _, ok := strings.Cut(stdout, "\n\ntotal: ")
			require.True(t, ok)
			assert.Equal(t, string(want), sec+"\n")
		})
	}
}

func TestDemoViewRows(t *testing.T) {
	ev := func(e toolsieve.Event, fed int) demoEvent { return demoEvent{e, fed} }
	evs := []demoEvent{
		ev(toolsieve.Event{Type: toolsieve.Text, Text: []byte("a\t")}, 2),
		ev(toolsieve.Event{Type: toolsieve.Text, Text: []byte("b\r\n")}, 5),
		ev(toolsieve.Event{Type: toolsieve.ToolCallStart, Index: 0, Name: "f"}, 9),
		ev(toolsieve.Event{Type: toolsieve.ToolCall, Index: 0, ID: "x0", Name: "f", Arguments: []byte(`{ "k": [1, 2] }`),
			Dialect: "glm", Repairs: []string{"missing_closer"}, Raw: []byte("<tool_call>f")}, 16),
		ev(toolsieve.Event{Type: toolsieve.Discard, Reason: toolsieve.ReasonAfterRunaway, Raw: []byte("<x>")}, 19),
		ev(toolsieve.Event{Type: toolsieve.Discard, Reason: toolsieve.ReasonAfterRunaway, Raw: []byte("<y>")}, 22),
		ev(toolsieve.Event{Type: toolsieve.Error, Message: "bad", Offset: 3}, 22),
		ev(toolsieve.Event{Type: toolsieve.ToolCallStart, Index: 1, Name: "g"}, 22),
	}
	v := newViewBuilder(22)
	for i := range evs {
		v.add(&evs[i])
	}
	var b strings.Builder
	w := bufio.NewWriter(&b)
	writeView(w, v.finish())
	require.NoError(t, w.Flush())
	pad := strings.Repeat(" ", inCols)
	want := "  broken input, as the model wrote it" + strings.Repeat(" ", inCols-35) + "   what came out\n" +
		"  a⇥b↵" + strings.Repeat(" ", inCols-4) + " → text\n" +
		"  <tool_call>f" + strings.Repeat(" ", inCols-12) + " → call #0 f {\"k\":[1,2]}\n" +
		"  " + pad + "     repaired: missing_closer\n" +
		"  " + pad + "     dialect glm, id x0, out after 16/22 bytes fed (named after 9)\n" +
		"  <x><y>" + strings.Repeat(" ", inCols-6) + " → dropped ×2: after_runaway\n" +
		"  " + pad + "   error: bad (offset 3)\n" +
		"  " + pad + "   note: call #1 named after 22 bytes fed, but no call followed\n"
	assert.Equal(t, want, b.String())
}

func TestAbbrevCols(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghijklmnopqrstuvwxyz", 10, "abcdef…xyz"},
		// Fullwidth and wide characters take two columns each.
		{"<｜DSML｜invoke name=\"杭州\">", 12, "<｜DSML…州\">"},
		{"杭州杭州杭州杭州", 9, "杭州…州"},
	}
	for _, tt := range tests {
		got := abbrevCols(tt.in, tt.n)
		assert.Equal(t, tt.want, got, tt.in)
		assert.LessOrEqual(t, strCols(got), tt.n, tt.in)
	}
	assert.Equal(t, "a↵b⇥c··�", visible([]byte("a\r\nb\tc\x00\x7f\xff")))
	assert.Equal(t, 6, strCols(pad("杭州", 6)))
}
