package chat

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/sse"
)

// rewriteShapes rewrites an OpenAI stream fed chunk bytes at a time, with
// chunk shapes kept (openai_shape.go) or every chunk read in full, and
// returns the output, stats and notified events.
func rewriteShapes(in []byte, chunk int, shapes bool) (out []byte, st RewriteStats, notes []string) {
	w := newStreamRewriter(APIOpenAI, toolsieve.Options{IDPrefix: "id_"})
	s := openAI{}.newStream(w).(*oaStream)
	s.shape.off = !shapes
	w.st = s
	w.notify = func(e *toolsieve.Event) {
		notes = append(notes, fmt.Sprintf("%v %q %s %q %v %d", e.Type, e.Name, e.Arguments, e.Message, e.Repairs, e.Offset))
	}
	for len(in) > 0 {
		n := min(chunk, len(in))
		w.Write(in[:n])
		out = append(out, w.out...)
		w.out = w.out[:0]
		in = in[n:]
	}
	w.Close()
	return append(out, w.out...), w.stats, notes
}

// sameShapes checks that in comes out the same whether chunk shapes are
// kept or not.
func sameShapes(t *testing.T, in []byte, chunk int) {
	t.Helper()
	fast, fst, fnotes := rewriteShapes(in, chunk, true)
	full, st, notes := rewriteShapes(in, chunk, false)
	if !bytes.Equal(fast, full) {
		i := 0
		for i < min(len(fast), len(full)) && fast[i] == full[i] {
			i++
		}
		t.Fatalf("outputs differ at %d (chunk %d):\nshapes: %q\nfull:   %q\ninput: %q", i, chunk,
			fast[max(0, i-200):min(len(fast), i+200)], full[max(0, i-200):min(len(full), i+200)], in[:min(len(in), 4000)])
	}
	if fst != st || strings.Join(fnotes, "\n") != strings.Join(notes, "\n") {
		t.Fatalf("stats or events differ:\n%+v\n%+v\n%s\n--\n%s", fst, st, fnotes, notes)
	}
}

// shapeTexts are pieces of content: prose, markup, escapes, characters of
// every UTF-8 length.
var shapeTexts = []string{
	"Hello ", "wörld ", "日本語の文 ", "emoji 😀 ", "\"quoted\" ", `back\slash `, "tab\there ", "line\n", "a/b ",
	"<tool_call>\n{\"name\": \"search\", \"arguments\": {\"q\": \"é 😀\", \"n\": 5}}\n</tool_call>\n",
	"<tool_call>\n<function=read_file>\n<parameter=path>\na.go\n</parameter>\n</function>\n</tool_call>",
	"`<tool_call>` in code ", "<think>hmm</think>", "<", "\x00ctl ",
}

// quoteVaried writes s as a JSON string, escaping some characters that
// need no escape (\u forms, \/) so that equal texts differ in bytes.
func quoteVaried(rng *rand.Rand, s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		case r == '/' && rng.IntN(2) == 0:
			b.WriteString(`\/`)
		case r < 0x10000 && rng.IntN(8) == 0:
			fmt.Fprintf(&b, `\u%04X`, r)
		case r >= 0x10000 && rng.IntN(4) == 0:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// shapeStream makes a random OpenAI stream: chunks mostly alike but for
// their content and a few top-level values, with members in any order,
// values of other kinds, whitespace, several choices, role, reasoning,
// native calls, usage and malformed chunks now and then.
func shapeStream(rng *rand.Rand) []byte {
	type member struct{ key, val string }
	top := []member{{"id", `"chatcmpl-1"`}, {"object", `"chat.completion.chunk"`}, {"created", "17"},
		{"model", `"m"`}, {"system_fingerprint", "null"}, {"choices", ""}}
	if rng.IntN(2) == 0 {
		top = append(top, member{"seq", "0"})
	}
	if rng.IntN(2) == 0 {
		top = append(top, member{"usage", "null"})
	}
	rng.Shuffle(len(top), func(i, j int) { top[i], top[j] = top[j], top[i] })
	values := []string{"0", "7", "-1.5e3", "123456789", "true", "false", "null", `""`, `"x"`, `"\u00e9\n"`, `"日本"`}
	choiceKeys := []string{"index", "delta", "logprobs", "finish_reason"}
	rng.Shuffle(len(choiceKeys), func(i, j int) { choiceKeys[i], choiceKeys[j] = choiceKeys[j], choiceKeys[i] })
	typ := ""
	if rng.IntN(6) == 0 {
		typ = "chunk"
	}
	var text strings.Builder
	for range 5 + rng.IntN(40) {
		text.WriteString(shapeTexts[rng.IntN(len(shapeTexts))])
	}
	content := text.String()
	choice := func(idx int, delta, finish string) string {
		var b strings.Builder
		b.WriteByte('{')
		for i, k := range choiceKeys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + k + `":`)
			switch k {
			case "index":
				b.WriteString(strconv.Itoa(idx))
			case "delta":
				b.WriteString(delta)
			case "logprobs":
				b.WriteString("null")
			case "finish_reason":
				b.WriteString(finish)
			}
		}
		b.WriteByte('}')
		return b.String()
	}
	var out []byte
	emit := func(choices string, sep string) {
		var b strings.Builder
		b.WriteByte('{')
		for i, m := range top {
			if i > 0 {
				b.WriteString("," + sep)
			}
			b.WriteString(`"` + m.key + `":` + sep)
			if m.key == "choices" {
				b.WriteString("[" + choices + "]")
			} else {
				b.WriteString(m.val)
			}
		}
		b.WriteByte('}')
		out = sse.AppendEvent(out, typ, []byte(b.String()))
	}
	emit(choice(0, `{"role":"assistant","content":""}`, "null"), "")
	for len(content) > 0 {
		n := min(1+rng.IntN(12), len(content))
		piece := content[:n]
		content = content[n:]
		for k := range top { // a few top-level values change
			switch {
			case top[k].key == "choices":
			case top[k].key == "seq":
				top[k].val = strconv.Itoa(len(out))
			case top[k].key == "usage":
				if rng.IntN(40) == 0 {
					top[k].val = `{"prompt_tokens":1}`
				} else {
					top[k].val = "null"
				}
			case rng.IntN(10) == 0:
				top[k].val = values[rng.IntN(len(values))]
			}
		}
		delta := `{"content":` + quoteVaried(rng, piece) + `}`
		sep := ""
		switch r := rng.IntN(100); {
		case r < 3:
			sep = " "
		case r < 5:
			delta = `{"content":` + quoteVaried(rng, piece) + `,"reasoning_content":"r"}`
		case r < 7:
			delta = `{"content":null}`
		case r < 8:
			delta = `{"content":42}`
		case r < 9:
			delta = `{"content":"bad \x escape"}`
		case r < 10:
			delta = `{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`
		case r < 11:
			emit(choice(0, delta, "null")+","+choice(1, `{"content":"other"}`, "null"), "")
			continue
		case r < 12:
			out = sse.AppendEvent(out, typ, []byte(`{"id":"chatcmpl-1","choices":[],"usage":{"total_tokens":3}}`))
		case r < 13:
			out = append(out, ": keep-alive\n\n"...)
		}
		emit(choice(0, delta, "null"), sep)
	}
	emit(choice(0, `{}`, `"stop"`), "")
	if rng.IntN(4) > 0 {
		out = append(out, "data: [DONE]\n\n"...)
	}
	return out
}

// TestOpenAIShapesSameOutput: chunks matched against the kept shape come
// out exactly as when every chunk is read in full.
func TestOpenAIShapesSameOutput(t *testing.T) {
	for seed := range uint64(400) {
		rng := rand.New(rand.NewPCG(seed, 7))
		in := shapeStream(rng)
		sameShapes(t, in, len(in))
		sameShapes(t, in, 1+rng.IntN(300))
	}
}

// FuzzOpenAIShapes: any input comes out the same whether chunk shapes are
// kept or not.
func FuzzOpenAIShapes(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(shapeStream(rand.New(rand.NewPCG(seed, 8))), uint16(64))
	}
	f.Fuzz(func(t *testing.T, in []byte, chunk uint16) {
		sameShapes(t, in, 1+int(chunk))
	})
}
