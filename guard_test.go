package toolsieve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loopClass is one shape of loop from the field: the text before it, and
// the unit repeated (i is the repetition, from 0, for units with a counter).
type loopClass struct {
	name   string
	before string
	unit   func(i int) string
	tools  string
	// fireAt: the repetition at which the guard must have fired (a markup
	// unit: 8); below it, only checks other than the guard may fire.
	fireAt int
	// first: the unit is a complete call, emitted when it completes, as
	// nothing shows yet that a loop follows; its repeats never are.
	first bool
}

func fixed(s string) func(int) string { return func(int) string { return s } }

var loopClasses = []loopClass{
	{"seed 002: DSML block, call and parameter re-opened", "Let me search.\n",
		fixed("<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"search\">\n<｜DSML｜parameter name=\"q\" string=\"true\">x\n"), "", 8, false},
	{"seed 002 with the V4 block name", "Let me search.\n",
		fixed("<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"search\">\n<｜DSML｜parameter name=\"q\" string=\"true\">x\n"), "", 8, false},
	{"DSML block, call and parameter re-opened inside a growing value", "Let me make it.\n",
		func(i int) string {
			return "<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"bash\">\n<｜DSML｜parameter name=\"commands\" string=\"false\">mkdir" + strings.Repeat(" -p", i)
		}, "", 4, false},
	{"a unit that changes by a counter", "Asking.\n",
		func(i int) string {
			return fmt.Sprintf("<tool_call call_id=\"call_question_behavior%d\">\n{\"name\": \"ask\", \"arguments\": {\"q\": \"why\"}}\n</tool_call>\n", 300+i)
		}, "", 8, true},
	{"chat-template turn tokens with a counter", "The answer is 4.",
		func(i int) string { return fmt.Sprintf("<|im_end|>\n<|im_start|>assistant%d\n", 57+i) }, "", 8, false},
	{"one closer repeated", "Done thinking.\n", fixed("</think>\n"), "", 8, false},
	{"complete calls repeated, text between", "Reading.\n",
		fixed("<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}\n</tool_call>\nLet me read it again.\n"), "", 8, true},
	{"unnamed calls in a section that never closes", "Calling.\n",
		fixed("<|tool_call_begin|><|tool_call_argument_begin|>{}<|tool_call_end|>\n"), "", 8, false},
	{"a phrase repeated inside one argument value", "<tool_call>\n<function=write_file>\n<parameter=content>\nThe plan: ",
		fixed("we will keep going and going. "), "", 0, false},
	{"a corrupted opener word on every line", "Working.\n", fixed("<tool_cal\n"), "", 0, false},
	// A whole call without its closer, then a loop: the call came before
	// the loop and runs; a loop that began inside the arguments, or repeats
	// them, runs nothing.
	{"an invented result repeating a line after a whole call", "Reading.\n<tool_call>Read\n```json\n{\"file_path\": \"/tmp/r.js\", \"limit\": 20}\n```\n\n```json\n{\"content\": \"",
		fixed(`new Paragraph({ heading: HeadingLevel.HEADING_2, children: [new TextRun(\"1.2\")] }),\n`), "", 0, true},
	{"a phrase repeated inside one JSON argument", "<tool_call>write_file\n{\"content\": \"The plan: ",
		fixed("we will keep going and going. "), "", 0, false},
	{"the arguments of a call written again and again", "Reading.\n<tool_call>Read\n{\"file_path\": \"/tmp/r.js\"}\n",
		fixed("{\"file_path\": \"/tmp/r.js\"}\n"), "", 0, false},
	// Units of text too short or too plain for the rules of phrases and lines.
	{"two letters repeated", "HelloHow", fixed("To"), "", 0, false},
	{"a letter and a space repeated", "The taps: \"b", fixed(" b"), "", 0, false},
	{"a suffix repeated", "Continue for $N$0", fixed("-th"), "", 0, false},
	{"a number repeated", "Let me implement this.\n§412§", fixed("  412"), "", 0, false},
	{"one CJK character repeated", "哎，可是我", fixed("像"), "", 0, false},
	{"a row of a diagram repeated", "```\nText\n  |\n  v\n", fixed("  |                 |\n"), "", 0, false},
	{"a template token that is no markup repeated", "It is sunny.\n", fixed("<|tool_response>"), "", 0, false},
}

// TestLoopClasses feeds each loop class with its unit repeated 1, 3, 10
// and 1,000 times at several chunkings: a markup loop stops by its 8th
// repetition, a loop of text well before its 1,000th; no call of a loop
// runs; the text before it stays; chunking changes nothing.
func TestLoopClasses(t *testing.T) {
	for _, lc := range loopClasses {
		for _, reps := range []int{1, 3, 10, 1000} {
			t.Run(fmt.Sprintf("%s/%d", lc.name, reps), func(t *testing.T) {
				var in strings.Builder
				in.WriteString(lc.before)
				for i := range reps {
					in.WriteString(lc.unit(i))
				}
				input := []byte(in.String())
				opt := Options{}
				whole := run(opt, input, nil)
				runaway := reasonOf(whole)
				switch {
				case lc.fireAt > 0 && reps >= lc.fireAt, lc.fireAt == 0 && reps == 1000:
					require.NotEmpty(t, runaway, "no runaway")
					if lc.first {
						assert.Len(t, callsOf(whole), 1, "calls of the loop were emitted")
					} else {
						assert.Empty(t, callsOf(whole), "a call of the loop was emitted")
					}
					assert.True(t, strings.HasPrefix(lc.before, summarize(whole).Text) || strings.HasPrefix(summarize(whole).Text, lc.before),
						"text before the loop: %q", summarize(whole).Text)
					if lc.fireAt > 0 {
						assert.LessOrEqual(t, firstRunawayByte(whole), len(lc.before)+len(lc.unit(0))*lc.fireAt+64, "fired late")
					}
				default:
					assert.NotEqual(t, "repetition", runaway, "the guard fired at %d repetitions", reps)
				}
				cutsList := [][]int{cutsEvery(len(input), 1), cutsEvery(len(input), 3), cutsEvery(len(input), 7), cutsEvery(len(input), 61)}
				if reps <= 10 { // and every split in two
					for i := 1; i < len(input); i++ {
						cutsList = append(cutsList, []int{i})
					}
				}
				for _, cuts := range cutsList {
					got := run(opt, input, cuts)
					require.Equal(t, string(input), string(accounted(got)), "accounting at %d cuts", len(cuts))
					require.Equal(t, summarize(whole), summarize(got), "chunking changed the result (%d cuts)", len(cuts))
				}
			})
		}
	}
}

func reasonOf(events []Event) string {
	for _, e := range events {
		if e.Type == Runaway {
			return e.Reason.String()
		}
	}
	return ""
}

// firstRunawayByte is the input offset where the runaway's bytes end.
func firstRunawayByte(events []Event) int {
	for _, e := range events {
		if e.Type == Runaway {
			return int(e.Offset) + len(e.Raw)
		}
	}
	return -1
}

func cutsEvery(n, k int) []int {
	var cuts []int
	for i := k; i < n; i += k {
		cuts = append(cuts, i)
	}
	return cuts
}

// goTree returns the Go source tree's .go, .md, .txt and .json files under
// src and test, concatenated in walk order.
func goTree(t *testing.T) []byte {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	root := strings.TrimSpace(string(out))
	var tree bytes.Buffer
	for _, dir := range []string{"src", "test"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			switch filepath.Ext(path) {
			case ".go", ".md", ".txt", ".json":
				data, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				tree.Write(data)
			}
			return nil
		})
		require.NoError(t, err)
	}
	return tree.Bytes()
}

// TestGoTreeNoFalseAlarm feeds the Go toolchain's own source tree (about
// 100 MB of code, docs and test data, some files holding thousands of
// identical lines) as content, and as the value of a write_file argument
// written as XML and as JSON: no runaway, and no call but the write_file.
func TestGoTreeNoFalseAlarm(t *testing.T) {
	if testing.Short() {
		t.Skip("100 MB; skipped with -short")
	}
	tree := goTree(t)
	require.Greater(t, len(tree), 10<<20, "the Go tree looks too small")
	quoted, err := json.Marshal(string(tree))
	require.NoError(t, err)
	tools, err := ParseTools([]byte(`[{"type":"function","function":{"name":"write_file","parameters":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}}}}]`))
	require.NoError(t, err)
	for _, tc := range []struct {
		name         string
		before, rest []byte
		value        []byte
		calls        int
	}{
		{"content", nil, nil, tree, 0},
		{"qwen3_coder value", []byte("<tool_call>\n<function=write_file>\n<parameter=path>\ntree.txt\n</parameter>\n<parameter=content>\n"),
			[]byte("\n</parameter>\n</function>\n</tool_call>"), tree, 1},
		{"hermes JSON value", []byte("<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"tree.txt\", \"content\": "),
			[]byte("}}\n</tool_call>"), quoted, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewParser(Options{Tools: tools, MaxCallBytes: 2 * len(quoted)})
			var calls, runaways int
			var args []byte
			take := func(evs []Event) {
				for _, e := range evs {
					switch e.Type {
					case ToolCall:
						calls++
						args = bytes.Clone(e.Arguments)
					case Runaway:
						runaways++
						t.Errorf("runaway %s at byte %d: %.200q", e.Reason, e.Offset, e.Raw)
					}
				}
			}
			take(p.Feed(tc.before))
			for i := 0; i < len(tc.value); i += 4096 {
				take(p.Feed(tc.value[i:min(i+4096, len(tc.value))]))
			}
			take(p.Feed(tc.rest))
			take(p.Close())
			assert.Equal(t, 0, runaways)
			require.Equal(t, tc.calls, calls)
			if calls == 1 {
				var a struct{ Content string }
				require.NoError(t, json.Unmarshal(args, &a))
				// Invalid UTF-8 in the tree (test data) comes back as U+FFFD.
				got := strings.ReplaceAll(a.Content, "\uFFFD", "")
				want := strings.ReplaceAll(strings.ToValidUTF8(string(tree), ""), "\uFFFD", "")
				if got != want {
					i := 0
					for i < min(len(got), len(want)) && got[i] == want[i] {
						i++
					}
					t.Errorf("the tree came back changed (%d bytes, want %d) at byte %d: %q, want %q", len(got), len(want), i,
						got[max(0, i-40):min(len(got), i+40)], want[max(0, i-40):min(len(want), i+40)])
				}
			}
		})
	}
}
