// Command jsonjob writes the sample SSE events of the JSON-job benchmarks
// (testdata/sse/jsonjob_events.txt): OpenAI chat.completion.chunk and
// Anthropic Messages events as providers send them, one JSON per line, in
// whole streams that each start with a line "# API NAME". The text deltas
// are 1 to 20 tokens long, mostly short; some streams carry tool-call
// markup, reasoning, code full of escapes, or non-ASCII text written as
// \uXXXX escapes. The two hand-written streams of testdata/sse come first.
// The output is deterministic.
//
//	cd bench/peers && go run ./cmd/jsonjob > ../../testdata/sse/jsonjob_events.txt
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

var rng = rand.New(rand.NewPCG(13, 3))

func main() {
	root := "../.."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	copyStream(w, filepath.Join(root, "testdata/sse/openai_chat.sse"), "openai", "testdata-openai_chat")
	copyStream(w, filepath.Join(root, "testdata/sse/anthropic_messages.sse"), "anthropic", "testdata-anthropic_messages")

	o := openai{w: w, id: "chatcmpl-B7kQe2n9XcVd4Lr1TzHq8", model: "gpt-4o-2024-08-06", fp: `"system_fingerprint":"fp_50cad350e4",`}
	o.stream("prose", "", prose(900), true)
	o = openai{w: w, id: "chatcmpl-5f0c3a7e9b2d4c18a6e1", model: "Qwen/Qwen3-32B"}
	o.stream("reasoning-hermes-call", prose(500), prose(160)+"\n\n"+hermesCall, false)
	o = openai{w: w, id: "chatcmpl-0e6d2b91c4a84f7f", model: "Qwen/Qwen3-Coder-30B-A3B-Instruct"}
	o.stream("qwen3coder-code-call", "", "I'll write the file now.\n"+qwenCall, false)
	o = openai{w: w, id: "chatcmpl-7a1e55d0c2b9", model: "deepseek-chat", ascii: true}
	o.stream("ascii-escaped-unicode", "", unicodeProse(600), true)

	a := anthropic{w: w, id: "msg_01Hq7Xv3Lw9TnPz2Rb5Ke8Ud", model: "claude-sonnet-4-20250514"}
	a.stream("prose", prose(900))
	a = anthropic{w: w, id: "msg_01Jt4Bn8Qc2Wm6Yx9Fa3Gd7Ls", model: "claude-sonnet-4-20250514"}
	a.stream("function-calls", prose(200)+"\n\n"+anthropicCall)
	a = anthropic{w: w, id: "msg_8c2f6a1d0e9b4f7a", model: "qwen3-coder-plus"}
	a.stream("qwen3coder-code-call", "Writing the file.\n"+qwenCall)
	a = anthropic{w: w, id: "msg_01Pp5Vd2Ke7Nr3Ua8Ht6Wc1Zq", model: "claude-sonnet-4-20250514"}
	a.stream("unicode", unicodeProse(500))
}

// copyStream writes the data lines of an SSE file, [DONE] aside.
func copyStream(w *bufio.Writer, path, api, name string) {
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintf(w, "# %s %s\n", api, name)
	for _, line := range strings.Split(string(b), "\n") {
		d, ok := strings.CutPrefix(line, "data: ")
		if !ok || d == "[DONE]" {
			continue
		}
		var v any
		if json.Unmarshal([]byte(d), &v) != nil {
			fmt.Fprintf(os.Stderr, "%s: not JSON: %s\n", path, d)
			os.Exit(1)
		}
		fmt.Fprintln(w, d)
	}
}

const hermesCall = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"unit\": \"celsius\", \"days\": 3}}\n</tool_call>"

const anthropicCall = "<function_calls>\n<invoke name=\"search_docs\">\n<parameter name=\"query\">rate limits \"burst\" & retry-after</parameter>\n<parameter name=\"max_results\">5</parameter>\n</invoke>\n</function_calls>"

const qwenCall = "<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/util/strings.go\n</parameter>\n<parameter=content>\n" +
	"package util\n\nimport \"strings\"\n\n// Quote wraps s in double quotes, escaping \\ and \".\nfunc Quote(s string) string {\n" +
	"\tvar b strings.Builder\n\tb.WriteByte('\"')\n\tfor _, r := range s {\n\t\tswitch r {\n\t\tcase '\"', '\\\\':\n" +
	"\t\t\tb.WriteByte('\\\\')\n\t\t}\n\t\tb.WriteRune(r)\n\t}\n\tb.WriteByte('\"')\n\treturn b.String()\n}\n" +
	"</parameter>\n</function>\n</tool_call>"

var words = strings.Fields(`the a of to and in is it that for on with as this be are you your
can will by from at or an if not we have more which use when each other than so some only
request response stream token model server client latency buffer parser answer question
example result value function error retry timeout limit cache memory network request`)

// prose returns about n bytes of sentences.
func prose(n int) string {
	var b strings.Builder
	for b.Len() < n {
		k := 6 + rng.IntN(14)
		for i := 0; i < k; i++ {
			w := words[rng.IntN(len(words))]
			if i == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			} else {
				b.WriteByte(' ')
			}
			b.WriteString(w)
			if i < k-1 && rng.IntN(9) == 0 {
				b.WriteByte(',')
			}
		}
		switch rng.IntN(7) {
		case 0:
			b.WriteString(".\n\n")
		case 1:
			b.WriteString("? ")
		default:
			b.WriteString(". ")
		}
	}
	return strings.TrimSpace(b.String())
}

var uwords = strings.Fields(`café naïve déjà vu — « bonjour » 東京 の 天気 は 晴れ です ✓ résumé
über straße 🙂 данные модель ответ «guillemets» ½ °C`)

// unicodeProse returns about n bytes of text with many non-ASCII words.
func unicodeProse(n int) string {
	var b strings.Builder
	for b.Len() < n {
		if rng.IntN(2) == 0 {
			b.WriteString(words[rng.IntN(len(words))])
		} else {
			b.WriteString(uwords[rng.IntN(len(uwords))])
		}
		if rng.IntN(12) == 0 {
			b.WriteString(".\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return strings.TrimSpace(b.String())
}

// tokens splits text roughly as a BPE tokenizer would: a word with its
// leading space (long words in pieces of up to 4 letters), a run of
// digits, or one other character (a UTF-8 sequence stays whole).
func tokens(s string) []string {
	var out []string
	isWord := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
	}
	for i := 0; i < len(s); {
		j := i
		if s[j] == ' ' && j+1 < len(s) && isWord(s[j+1]) {
			j++
		}
		if isWord(s[j]) {
			k := j
			for k < len(s) && isWord(s[k]) && k-j < 4 {
				_, n := utf8.DecodeRuneInString(s[k:])
				k += n
			}
			out = append(out, s[i:k])
			i = k
			continue
		}
		_, n := utf8.DecodeRuneInString(s[j:])
		out = append(out, s[i:j+n])
		i = j + n
	}
	return out
}

// deltas groups tokens into deltas of 1 to 20 tokens, mostly 1 to 3.
func deltas(s string) []string {
	ts := tokens(s)
	var out []string
	for len(ts) > 0 {
		var k int
		switch r := rng.IntN(20); {
		case r < 11:
			k = 1
		case r < 16:
			k = 2 + rng.IntN(2)
		case r < 19:
			k = 4 + rng.IntN(5)
		default:
			k = 9 + rng.IntN(12)
		}
		k = min(k, len(ts))
		out = append(out, strings.Join(ts[:k], ""))
		ts = ts[k:]
	}
	return out
}

// quote encodes s as providers do: no HTML escaping; with ascii, every
// non-ASCII character as \uXXXX (Python's json.dumps default).
func quote(s string, ascii bool) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(s); err != nil {
		panic(err)
	}
	q := strings.TrimSuffix(b.String(), "\n")
	if !ascii {
		return q
	}
	var o strings.Builder
	for _, r := range q {
		switch {
		case r < 0x80:
			o.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&o, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(&o, `\u%04x`, r)
		}
	}
	return o.String()
}

type openai struct {
	w                *bufio.Writer
	id, model, fp    string
	ascii            bool
	created          int
	promptTokens, nt int
}

func (o *openai) chunk(delta, finish string) {
	if o.created == 0 {
		o.created = 1747000000 + rng.IntN(1000000)
	}
	f := "null"
	if finish != "" {
		f = quote(finish, false)
	}
	fmt.Fprintf(o.w, `{"id":%q,"object":"chat.completion.chunk","created":%d,"model":%q,%s"choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}]}`+"\n",
		o.id, o.created, o.model, o.fp, delta, f)
}

// stream writes one OpenAI stream: a role chunk, reasoning deltas, text
// deltas, the finish chunk and, with usage, the usage chunk.
func (o *openai) stream(name, reasoning, text string, usage bool) {
	fmt.Fprintf(o.w, "# openai %s\n", name)
	o.chunk(`{"role":"assistant","content":""}`, "")
	n := 0
	for _, d := range deltas(reasoning) {
		o.chunk(`{"reasoning_content":`+quote(d, o.ascii)+`}`, "")
		n++
	}
	for _, d := range deltas(text) {
		o.chunk(`{"content":`+quote(d, o.ascii)+`}`, "")
		n++
	}
	o.chunk(`{}`, "stop")
	if usage {
		p := 20 + rng.IntN(400)
		fmt.Fprintf(o.w, `{"id":%q,"object":"chat.completion.chunk","created":%d,"model":%q,%s"choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`+"\n",
			o.id, o.created, o.model, o.fp, p, n, p+n)
	}
}

type anthropic struct {
	w         *bufio.Writer
	id, model string
}

// stream writes one Anthropic Messages stream with one text block.
func (a *anthropic) stream(name, text string) {
	w := a.w
	in := 12 + rng.IntN(900)
	fmt.Fprintf(w, "# anthropic %s\n", name)
	fmt.Fprintf(w, `{"type":"message_start","message":{"id":%q,"type":"message","role":"assistant","model":%q,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`+"\n", a.id, a.model, in)
	fmt.Fprintln(w, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	fmt.Fprintln(w, `{"type":"ping"}`)
	ds := deltas(text)
	for _, d := range ds {
		fmt.Fprintf(w, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%s}}`+"\n", quote(d, false))
	}
	fmt.Fprintln(w, `{"type":"content_block_stop","index":0}`)
	fmt.Fprintf(w, `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":%d}}`+"\n", len(ds)+1)
	fmt.Fprintln(w, `{"type":"message_stop"}`)
}
