// Package peers compares the toolsieve parser with other streaming
// tool-call parsers on the same inputs and the same chunkings:
//
//   - a naive baseline (Naive, in this package) written from the "seed 000"
//     design: on every chunk it appends to the accumulated text and re-runs
//     the lenient regex pass over all of it;
//   - ollama's Go parsers from github.com/ollama/ollama/model/parsers:
//     "qwen3-coder" (Qwen3CoderParser) and "deepseek3" (DeepSeek3Parser).
//
// It is a separate module so that the main module never depends on ollama.
// The benchmarks are in peers_test.go; cmd/table turns `go test -bench`
// output into one markdown table with the per-byte cost of every parser and
// the ratio peer/toolsieve.
package peers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
)

// The tool every call input invokes, with its two string parameters.
const (
	ToolName  = "write_file"
	ToolPath  = "src/big.txt"
	ToolsJSON = `[{"type":"function","function":{"name":"write_file","description":"Write a file.",` +
		`"parameters":{"type":"object","required":["path","content"],"properties":{` +
		`"path":{"type":"string","description":"Path of the file."},` +
		`"content":{"type":"string","description":"Whole content of the file."}}}}}]`
)

// Preamble is the prose a model writes before its call in every call input.
const Preamble = "I will write the whole file now.\n\n"

var words = []string{
	"the", "model", "writes", "a", "long", "answer", "about", "streaming", "parsers",
	"and", "every", "chunk", "of", "text", "arrives", "in", "small", "pieces", "while",
	"users", "wait", "for", "tokens", "to", "appear", "on", "screen", "quickly", "so",
	"latency", "matters", "more", "than", "anything", "else", "here", "because", "people",
	"read", "as", "fast", "it", "comes", "which", "means", "buffers", "should", "stay",
	"short", "we", "also", "care", "memory", "linear", "time", "output", "that", "never",
	"ends", "one", "two", "three", "hundred", "thousand", "lines", "file", "function",
	"value", "argument", "result", "error", "request", "response", "server", "client",
}

// Prose returns n bytes of deterministic English-like prose: sentences of
// lower-case words in paragraphs, with no markup characters at all
// (no '<', '[', '{', '|', backticks).
func Prose(n int) []byte {
	rng := rand.New(rand.NewPCG(7, 11))
	b := make([]byte, 0, n+64)
	for len(b) < n {
		sentences := 3 + rng.IntN(4)
		for s := 0; s < sentences; s++ {
			k := 8 + rng.IntN(13)
			for i := 0; i < k; i++ {
				w := words[rng.IntN(len(words))]
				if i == 0 {
					b = append(b, w[0]-'a'+'A')
					b = append(b, w[1:]...)
				} else {
					b = append(b, ' ')
					b = append(b, w...)
				}
				if i == k/2 && rng.IntN(3) == 0 {
					b = append(b, ',')
				}
			}
			b = append(b, ". "...)
		}
		b = append(b, "\n\n"...)
	}
	return b[:n]
}

// FileContent returns n bytes of source-file-like content, the value of a
// write_file call: Go code with comparisons, generics, '&&', string literals
// with quotes and an HTML template line, so about one '<' in 40 bytes (and
// closers like </div>, but never one of a tool-call dialect). It never holds
// the letters "inv" (where the seed's "unclosed" pattern stops).
func FileContent(n int) []byte {
	b := make([]byte, 0, n+256)
	for i := 0; len(b) < n; i++ {
		b = fmt.Appendf(b, "func step%05d[T int | float64](xs []T, limit T) (n T) {\n"+
			"\tfor i := 0; i < len(xs) && xs[i] <= limit; i++ {\n"+
			"\t\tfmt.Println(\"line %d: the quick brown fox\", xs[i]) // %x\n"+
			"\t}\n\treturn n*%d + %d\n}\n\n"+
			"const row%05d = `<div class=\"row\"><span>%d</span></div>`\n\n",
			i, i, i*2654435761, i%97, i%13, i, i)
	}
	return b[:n]
}

// FileContentNoAngle is FileContent without '<' and '&': a best case for
// parsers that look for their closer with strings.Index, which then runs
// at memchr speed.
func FileContentNoAngle(n int) []byte {
	b := make([]byte, 0, n+128)
	for i := 0; len(b) < n; i++ {
		b = fmt.Appendf(b, "func step%05d(x int) int {\n\tfmt.Println(\"line %d: the quick brown fox\") // %x\n\treturn x*%d + %d\n}\n\n",
			i, i, i*2654435761, i%97, i%13)
	}
	return b[:n]
}

// jsonArgs is the arguments object of the calls written with JSON
// arguments, in a fixed key order.
type jsonArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// ArgsJSON encodes the arguments of a call writing content to ToolPath,
// without HTML escaping and without a trailing newline.
func ArgsJSON(content []byte) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(jsonArgs{Path: ToolPath, Content: string(content)}); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// Markup names a way to write the one call of a call input.
type Markup string

const (
	// Qwen3Coder: <tool_call><function=N><parameter=K>V</parameter>…
	// (FORMATS.md qwen3_coder), what ollama's qwen3-coder parser reads.
	Qwen3Coder Markup = "qwen3coder"
	// DeepSeek: <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>N<｜tool▁sep｜>{JSON}…
	// (FORMATS.md deepseek_v31), what ollama's deepseek3 parser reads.
	DeepSeek Markup = "deepseek"
	// Anthropic: <function_calls><invoke name="N">{JSON}</invoke></function_calls>,
	// the shape of the seed's own tests, what the naive baseline reads.
	Anthropic Markup = "anthropic"
)

// SpecialTokens are, per markup, the markers that are single tokens of the
// model's tokenizer. A real stream never splits them, and ollama's deepseek3
// parser relies on that (it does not hold back a partial
// <｜tool▁calls▁begin｜>), so Chunks delivers each of them whole.
var SpecialTokens = map[Markup][]string{
	Qwen3Coder: {"<tool_call>", "</tool_call>"},
	DeepSeek: {"<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", "<｜tool▁call▁begin｜>",
		"<｜tool▁call▁end｜>", "<｜tool▁sep｜>"},
}

// Call returns a stream holding Preamble and then one call of ToolName
// whose "content" argument is content, written in markup m.
func Call(m Markup, content []byte) []byte {
	b := []byte(Preamble)
	switch m {
	case Qwen3Coder:
		b = append(b, "<tool_call>\n<function="+ToolName+">\n<parameter=path>\n"+ToolPath+
			"\n</parameter>\n<parameter=content>\n"...)
		b = append(b, content...)
		b = append(b, "\n</parameter>\n</function>\n</tool_call>"...)
	case DeepSeek:
		b = append(b, "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>"+ToolName+"<｜tool▁sep｜>"...)
		b = append(b, ArgsJSON(content)...)
		b = append(b, "<｜tool▁call▁end｜><｜tool▁calls▁end｜>"...)
	case Anthropic:
		b = append(b, "<function_calls>\n<invoke name=\""+ToolName+"\">\n"...)
		b = append(b, ArgsJSON(content)...)
		b = append(b, "\n</invoke>\n</function_calls>\n"...)
	default:
		panic("unknown markup " + string(m))
	}
	return b
}

// Chunks splits in into pieces of size bytes, except that every occurrence
// of a special token is one piece of its own (the pieces before it are cut
// short). The pieces share in's memory.
func Chunks(in []byte, size int, special []string) [][]byte {
	var out [][]byte
	for i := 0; i < len(in); {
		if n := tokenAt(in[i:], special); n > 0 {
			out = append(out, in[i:i+n:i+n])
			i += n
			continue
		}
		end := min(i+size, len(in))
		for j := i + 1; j < end; j++ {
			if tokenAt(in[j:], special) > 0 {
				end = j
				break
			}
		}
		out = append(out, in[i:end:end])
		i = end
	}
	return out
}

func tokenAt(p []byte, special []string) int {
	if len(special) == 0 || len(p) == 0 || p[0] != '<' {
		return 0
	}
	for _, t := range special {
		if bytes.HasPrefix(p, []byte(t)) {
			return len(t)
		}
	}
	return 0
}

// Strings converts chunks to strings, for parsers whose streaming method
// takes a string.
func Strings(chunks [][]byte) []string {
	out := make([]string, len(chunks))
	for i, c := range chunks {
		out[i] = string(c)
	}
	return out
}
