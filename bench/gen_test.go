package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/toolsieve/toolsieve"
)

// Deterministic input generators for the benchmarks. Everything is built in
// code from a fixed seed, so runs are comparable and nothing large is kept in
// the repository.

var proseWords = strings.Fields(`the a of to and in that it is was for on are as with
his they at be this from have or by one had not but what all were when we there can an
your which their said if do will each about how up out them then she many some so these
would other into has more her two like him see time could no make than first been its who
now people my made over did down only way find use may water long little very after words
called just where most know get through back much before go good new write our used me man
too any day same right look think also around another came come work three word must because
does part even place well such here take why things help put years different away again off
went old number great tell men say small every found still between name should home big give
air line set own under read last never us left end along while might next sound below saw
something thought both few those always looked show large often together asked house world
going want school important until form food keep children feet land side without boy once
animals life enough took sometimes four head above kind began almost live page got earth need
far hand high year mother light parts country father let night following picture being study
second eyes soon times story boys since white days ever paper hard near sentence better best
across during today others sure means knew its try told young miles sun ways thing whole hear
example heard several change answer room sea against top turned learn point city play toward
five using himself usually`)

// prose returns about n bytes of plain sentences: letters, spaces,
// punctuation and newlines, no byte that can start a marker.
func prose(rng *rand.Rand, n int) []byte {
	b := make([]byte, 0, n+128)
	for len(b) < n {
		words := 6 + rng.IntN(14)
		for i := 0; i < words; i++ {
			w := proseWords[rng.IntN(len(proseWords))]
			if i == 0 {
				b = append(b, strings.ToUpper(w[:1])...)
				b = append(b, w[1:]...)
			} else {
				b = append(b, ' ')
				b = append(b, w...)
				if rng.IntN(9) == 0 {
					b = append(b, ',')
				}
			}
		}
		switch rng.IntN(10) {
		case 0:
			b = append(b, "?"...)
		case 1:
			b = append(b, "!"...)
		default:
			b = append(b, "."...)
		}
		if rng.IntN(5) == 0 {
			b = append(b, "\n\n"...)
		} else {
			b = append(b, ' ')
		}
	}
	return b
}

// codeSnippets are code-heavy pieces: many '<', '[', backticks, braces and
// HTML, none of them tool-call markup.
var codeSnippets = []string{
	"Use `map[string]int` and `[]byte` here; `a < b && c > d` holds.\n",
	"```go\nfunc f(xs []int) map[string][]int {\n\tm := map[string][]int{}\n\tfor i := 0; i < len(xs); i++ {\n\t\tif xs[i] < 0 { continue }\n\t\tm[\"k\"] = append(m[\"k\"], xs[i])\n\t}\n\treturn m\n}\n```\n",
	"<div class=\"row\"><span id=\"a\">x &lt; y</span><br/><img src=\"a.png\" alt=\"[1]\"></div>\n",
	"```html\n<html>\n<head><title>T</title></head>\n<body>\n<ul><li>[one]</li><li>[two]</li></ul>\n<script>if (a<b) { x[0] = `t`; }</script>\n</body>\n</html>\n```\n",
	"See [the docs](https://example.com/a?b=c&d=[e]) and [[wiki]] links; arrays like [1, 2, [3]].\n",
	"```python\nd = {\"a\": [1, 2, {\"b\": None}]}\nprint(f\"{d['a'][2]}\" if len(d) < 3 else [])\n```\n",
	"Generics: `func Map[T, U any](xs []T, f func(T) U) []U` and `List<Map<String, Integer>>`.\n",
	"<table>\n<tr><th>a</th><th>b</th></tr>\n<tr><td>1 &lt; 2</td><td>[x]</td></tr>\n</table>\n",
	"Shell: `for f in *.go; do [ -f \"$f\" ] && echo \"<$f>\"; done` and `x=$((1<<4))`.\n",
	"```ts\ninterface A<T> { items: Array<T>; map: Record<string, T[]> }\nconst a: A<number> = { items: [1], map: {} };\n```\n",
	"XML: <config><entry key=\"a\">1</entry><entry key=\"b\"><![CDATA[x < y]]></entry></config>\n",
	"Math: 2 < 3, 5 > 4, a[i] <= b[j], {x | x < 0}, <<= and >>= ops, `<<EOF` heredocs.\n",
}

// code returns about n bytes of code-heavy text mixed with some prose.
func code(rng *rand.Rand, n int) []byte {
	b := make([]byte, 0, n+512)
	for len(b) < n {
		b = append(b, codeSnippets[rng.IntN(len(codeSnippets))]...)
		if rng.IntN(3) == 0 {
			b = append(b, prose(rng, 80+rng.IntN(200))...)
			b = append(b, '\n')
		}
	}
	return b
}

// fileContent returns about n bytes that look like a source file, to be the
// value of a tool-call parameter: no closer, some '<' and braces.
func fileContent(n int) []byte {
	lines := []string{
		"package main\n",
		"\n",
		"// Sum adds the values below the limit.\n",
		"func Sum(xs []int, limit int) (total int) {\n",
		"\tfor _, x := range xs {\n",
		"\t\tif x < limit {\n",
		"\t\t\ttotal += x\n",
		"\t\t}\n",
		"\t}\n",
		"\treturn total\n",
		"}\n",
		"var table = map[string][]int{\"a\": {1, 2}, \"b\": {3}}\n",
		"The quick brown fox jumps over the lazy dog; 3 < 4 and 5 > 2.\n",
	}
	// Each block of lines is numbered: a file that repeats a block with no
	// change is a loop for the repetition guard.
	b := make([]byte, 0, n+64)
	for i := 0; len(b) < n; i++ {
		if i%len(lines) == 2 {
			b = fmt.Appendf(b, "// Sum adds the values below the limit (%d).\n", i/len(lines))
			continue
		}
		b = append(b, lines[i%len(lines)]...)
	}
	return b[:n]
}

// singleCall returns one call in dialect whose one parameter value is value.
func singleCall(dialect string, value []byte) []byte {
	var b bytes.Buffer
	switch dialect {
	case "anthropic":
		b.WriteString("I will write the file now.\n<function_calls>\n<invoke name=\"write_to_file\">\n<parameter name=\"path\">src/main.go</parameter>\n<parameter name=\"content\">")
		b.Write(value)
		b.WriteString("</parameter>\n</invoke>\n</function_calls>\nDone.\n")
	case "qwen3_coder":
		b.WriteString("I will write the file now.\n<tool_call>\n<function=write_to_file>\n<parameter=path>\nsrc/main.go\n</parameter>\n<parameter=content>\n")
		b.Write(value)
		b.WriteString("\n</parameter>\n</function>\n</tool_call>\nDone.\n")
	case "dsml": // DeepSeek V3.2: a raw string value (string="true")
		b.WriteString("I will write the file now.\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"write_to_file\">\n<｜DSML｜parameter name=\"path\" string=\"true\">src/main.go</｜DSML｜parameter>\n<｜DSML｜parameter name=\"content\" string=\"true\">")
		b.Write(value)
		b.WriteString("</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>\nDone.\n")
	case "llama4_pythonic": // the value as a Python string literal
		b.WriteString("I will write the file now.\n<|python_start|>[write_to_file(path='src/main.go', content=\"")
		b.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(string(value)))
		b.WriteString("\")]<|python_end|>\nDone.\n")
	case "gemma4": // the value between string delimiters, as written
		b.WriteString("I will write the file now.\n<|tool_call>call:write_to_file{path:<|\"|>src/main.go<|\"|>,content:<|\"|>")
		b.Write(value)
		b.WriteString("<|\"|>}<tool_call|>\nDone.\n")
	default:
		panic("unknown dialect " + dialect)
	}
	return b.Bytes()
}

// callGen writes tool calls in several dialects with arguments that differ
// from call to call (so that no loop detector is triggered).
type callGen struct {
	rng *rand.Rand
	n   int
}

var cities = []string{"Paris", "Tokyo", "Lima", "Oslo", "Cairo", "Quito", "Perth", "Hanoi", "杭州", "São Paulo"}

func (g *callGen) call(b []byte) []byte {
	g.n++
	city := cities[g.rng.IntN(len(cities))]
	days := g.rng.IntN(10) + 1
	path := fmt.Sprintf("src/pkg%d/file%d.go", g.n%97, g.n)
	switch g.rng.IntN(8) {
	case 0:
		return fmt.Appendf(b, "<function_calls>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">%s</parameter>\n<parameter name=\"days\">%d</parameter>\n</invoke>\n</function_calls>\n", city, days)
	case 1:
		return fmt.Appendf(b, "<tool_call>\n<function=read_file>\n<parameter=path>\n%s\n</parameter>\n<parameter=line>\n%d\n</parameter>\n</function>\n</tool_call>\n", path, g.n)
	case 2:
		return fmt.Appendf(b, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": %q, \"days\": %d}}\n</tool_call>\n", city, days)
	case 3:
		return fmt.Appendf(b, "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>%s</arg_value>\n<arg_key>days</arg_key>\n<arg_value>%d</arg_value>\n</tool_call>\n", city, days)
	case 4:
		return fmt.Appendf(b, "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"city\" string=\"true\">%s</｜DSML｜parameter>\n<｜DSML｜parameter name=\"days\" string=\"false\">%d</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>\n", city, days)
	case 5:
		return fmt.Appendf(b, "<minimax:tool_call>\n<invoke name=\"read_file\">\n<parameter name=\"path\">%s</parameter>\n</invoke>\n</minimax:tool_call>\n", path)
	case 6:
		return fmt.Appendf(b, "<invoke_tool_call>\n<tool name=\"shell\" args=\"{\\\"command\\\": \\\"ls -la %s\\\"}\"/>\n</invoke_tool_call>\n", path)
	default:
		return fmt.Appendf(b, "<function_calls>\n<invoke name=\"write_to_file\">\n<parameter name=\"path\">%s</parameter>\n<parameter name=\"content\">package p%d\n\nfunc F() int { return %d }\n</parameter>\n</invoke>\n</function_calls>\n", path, g.n, g.n)
	}
}

// mixed returns about n bytes of realistic assistant output: prose, code
// blocks and inline code, and tool calls in several dialects. It also
// returns the number of calls written.
func mixed(seed uint64, n int) ([]byte, int) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	g := callGen{rng: rng}
	b := make([]byte, 0, n+4096)
	for len(b) < n {
		switch r := rng.IntN(10); {
		case r < 5:
			b = append(b, prose(rng, 100+rng.IntN(600))...)
			b = append(b, '\n')
		case r < 7:
			b = append(b, codeSnippets[rng.IntN(len(codeSnippets))]...)
		default:
			b = g.call(b)
		}
	}
	return b, g.n
}

// toolDense returns about n bytes of tool-dense text: the inputs of the
// testdata/cases fixtures that need no declared tools, each followed by
// prose, keeping only those that stay self-contained (same call count in
// the stream as alone, no runaway, nothing left open). It also returns the
// number of calls in the stream.
func toolDense(n int) ([]byte, int) {
	files, _ := filepath.Glob("../testdata/cases/*.json")
	sort.Strings(files)
	var inputs []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var cases []struct {
			Input string          `json:"input"`
			Tools json.RawMessage `json:"tools"`
		}
		if json.Unmarshal(data, &cases) != nil {
			continue
		}
		for _, c := range cases {
			if len(c.Tools) == 0 {
				inputs = append(inputs, c.Input)
			}
		}
	}
	rng := rand.New(rand.NewPCG(7, 7))
	var unit []byte
	calls := 0
	for _, in := range inputs {
		piece := append(append([]byte{}, in...), '\n')
		piece = append(piece, prose(rng, 200)...)
		piece = append(piece, '\n')
		c, ok := selfContained(piece)
		if !ok {
			continue
		}
		cand := append(append([]byte{}, unit...), piece...)
		if got, ok := selfContained(cand); ok && got == calls+c {
			unit, calls = cand, calls+c
		}
	}
	if calls == 0 { // else the loop below would never end
		panic("toolDense: no fixture with calls under ../testdata/cases (run the bench binary from bench/)")
	}
	// Repeat the unit with varying prose between copies until n bytes.
	var b []byte
	total := 0
	for len(b) < n {
		b = append(b, unit...)
		b = append(b, prose(rng, 300)...)
		b = append(b, '\n')
		total += calls
	}
	return b, total
}

// probeCall is appended to a candidate input to check that it leaves no
// state open (an unclosed think, fence or block would swallow the probe).
const probeCall = "\n<function_calls>\n<invoke name=\"probe_tool\">\n<parameter name=\"x\">1</parameter>\n</invoke>\n</function_calls>\n"

// selfContained parses in and reports its call count; false if it gave a
// runaway, a call closed at end of input, or left markup, reasoning or a
// code fence open (the probe call after it is then not recognised).
func selfContained(in []byte) (int, bool) {
	calls := 0
	probe := false
	for _, e := range toolsieve.Parse(append(append([]byte{}, in...), probeCall...), toolsieve.Options{}) {
		switch e.Type {
		case toolsieve.Runaway, toolsieve.Error:
			return 0, false
		case toolsieve.ToolCall:
			if e.HasRepair("closed_at_eof") {
				return 0, false
			}
			if e.Name == "probe_tool" {
				probe = true
			} else {
				calls++
			}
		}
	}
	return calls, probe
}
