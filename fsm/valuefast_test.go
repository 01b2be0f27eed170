package fsm

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// tape is a Sink that records everything it receives, raw bytes included.
type tape struct{ got []string }

func (r *tape) Text(b []byte) { r.got = append(r.got, fmt.Sprintf("text %q", b)) }
func (r *tape) Reasoning(text, raw []byte) {
	r.got = append(r.got, fmt.Sprintf("reasoning %q %q", text, raw))
}
func (r *tape) CallStart(name []byte) { r.got = append(r.got, fmt.Sprintf("start %q", name)) }
func (r *tape) Call(c *Call) {
	s := fmt.Sprintf("call %s %q id=%q args=%q raw=%q off=%d %v", c.Dialect, c.Name, c.ID, c.Args, c.Raw, c.Offset, c.Repairs.Append(nil))
	for _, p := range c.Params {
		s += fmt.Sprintf(" %q=%q/%d", p.Name, p.Value, p.Hint)
	}
	r.got = append(r.got, s)
}
func (r *tape) Discard(raw []byte, reason Reason) {
	r.got = append(r.got, fmt.Sprintf("discard %q %v", raw, reason))
}
func (r *tape) Runaway(raw []byte, reason Reason) {
	r.got = append(r.got, fmt.Sprintf("runaway %q %v", raw, reason))
}
func (r *tape) Error(msg string, offset int64) {
	r.got = append(r.got, fmt.Sprintf("error %s %d", msg, offset))
}

// writeLong is Write without its short paths (writeValue, writeJSONString):
// the reference they must agree with.
func (m *Machine) writeLong(p []byte) {
	if m.lex.Guard() == nil {
		m.startGuard()
	}
	if m.kept != nil {
		m.restore()
	}
	m.flushWord()
	m.flushJSON()
	m.write(p)
	m.streamArgs()
	m.plain = m.idle()
}

// valueInputs are calls whose values hold triggers that the value's short
// path decides at once or hands to the lexer: '<' and '[' followed by
// bytes that end or continue a marker, backtick runs, HTML, '>' after a
// word, misspelt closers, multi-byte characters and bars, markup quoted
// in a value.
var valueInputs = []string{
	"<tool_call>\n<function=f>\n<parameter=a>\nx < y && z<=1 [T] xs[i] `c` ``` <div class=\"r\">é</div> a>b 3 > 2\n</parameter>\n</function>\n</tool_call>\nok",
	"<tool_call>\n<function=f>\n<parameter=a>\n<<< [[ [/ < / < |x <  y <\t<\n</parameter>\n<parameter=b>\n< /parameter>\n</function>\n</tool_call>",
	"<tool_call>\n<function=f>\n<parameter=a>\n[T int] [ABC def [A_1( [/B) [1] [_] [//X [/] [TOOL_CALLS] [ARGS]x [AB<\n</parameter>\n</function>\n</tool_call>",
	"<tool_call>\n<function=f>\n<parameter=a>\nv\n</parameter\n</function>\n</tool_call>",
	"<tool_call>\n<function=f>\n<parameter=a>\nv /parameter>\n</function>\n</tool_call>",
	"<tool_call>\n<function=f>\n<parameter=a>\nvparameter>\n</function>\n</tool_call>",
	"<tool_call>\n<function=f>\n<parameter=a>\nv</content> w</a>\n</parameter>\n</function>\n</tool_call>",
	"<tool_call>\n<function=f>\n<parameter=a>\nquoted <tool_call>\n<function=g>\n<parameter=b>\n1\n</parameter>\n</function>\n</tool_call> end\n</parameter>\n</function>\n</tool_call>",
	"<tool_call>\n<function=f>\n<parameter=a>\n日本語<日本 ｜x｜ <｜y [ＡB] é<é\n</parameter>\n<parameter=b>\n2\n</function>\n</tool_call>",
	"<function_calls><invoke name=\"f\"><parameter name=\"a\">1 < 2 [x] </span> [TOOL_CALLS] <|im_end|> x</parameter><parameter name=\"b\">q</invoke></function_calls>",
	"<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"a\" string=\"true\">v <x é ｜ < ｜DSML｜ <｜DSML｜x> </｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
	"<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"a\" string=\"true\">v /｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
	"<read_file>\n<path>a <b>x</b> </c> [d] `e`</path>\n</read_file>",
	"<tool_call>\n<function=f>\n<parameter=a>\n``` x `` y `\n</parameter>\n</function>\n</tool_call>",
	"<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"a\" string=\"true\">x<｜DSML｜/parameter>\n<｜DSML｜/invoke>\n<｜DSML｜/function_calls>",
	"<function_calls>\n<invoke name=\"f\">\n<parameter name=\"a\">x</parameter1>\n<parameter name=\"b\">y</parameterfunction>\n</invoke>\n</function_calls>",
	// JSON strings (jsonfast.go)
	"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>w<｜tool▁sep｜>{\"p\": \"a\\tb\", \"c\": \"x < y [T] xs[i] `c` <div class=\\\"r\\\">é</div>\\n\\\\ \\\"q\\\" \\u00e9\\/ a>b tag> <b>x</b>\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>ok",
	"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>w<｜tool▁sep｜>{\"t\": \"a<｜tool▁call▁end｜>b\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
	"<function_calls>\n<invoke name=\"f\">{\n  \"todos\": \"[-] Gather\\nnfo <a href='x'>\\q\\x invfunction_calls>",
	"<function_calls>\n<invoke name=\"ls\">{\"a\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa日\\ninvfunction_calls>",
	"<function_calls>\n<invoke name=\"f\">{\"a\": \"x </invoke> y <parameter> z\"}</invoke></function_calls>",
	"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>w<｜tool▁sep｜>{\"a\": \"\\u00e9\\uD83D\\uDE00 \\ud83d\\ux \\q\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
	"<function_calls>\n<invoke name=\"f\">{\"a\": \"x </invoke>\n</function_calls>\nafter",
	"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>w<｜tool▁sep｜>{\"a\": \"x\\\\\"}<b>ab<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
	"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>w<｜tool▁sep｜>{\"a\": \"\\nabc\"}<b>ab<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
	"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>w<｜tool▁sep｜>{\"a\": \"x\\n\", \"b\": \"\"}<b>ab<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
	"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>w<｜tool▁sep｜>{\"a\": \"x\\\\\", \"b\": \"\\\\\\\"q\\\\\\nfunction>\\\\\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
	"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"\\\\\\\\\\n\\t\\\"<x\\\">\", \"b\": 'it''s <i>'}}\n</tool_call>",
}

// TestValueShortPath feeds each of valueInputs in every chunking with two
// cuts and in chunks of every size up to 8, through Write and through the
// long way alone, and wants the same events (raw bytes and offsets too).
func TestValueShortPath(t *testing.T) {
	declared := func(name []byte) bool { return string(name) == "read_file" }
	hasParam := func(_, param []byte) bool { return string(param) == "path" }
	for _, in := range valueInputs {
		for _, maxCall := range []int{0, 60} { // 60: the cap is hit inside the value
			run := func(cuts []int, long bool) []string {
				rec := &tape{}
				m := New(Options{Declared: declared, HasParam: hasParam, MaxCall: maxCall}, rec)
				prev := 0
				for _, c := range append(cuts, len(in)) {
					p := []byte(in[prev:c])
					if long {
						m.writeLong(p)
					} else {
						m.Write(p)
					}
					prev = c
					rec.got = append(rec.got, "|")
				}
				m.Close()
				return rec.got
			}
			var chunkings [][]int
			for i := 1; i < len(in); i++ {
				for j := i; j < len(in); j++ {
					chunkings = append(chunkings, []int{i, j})
				}
			}
			for size := 1; size <= 8; size++ {
				var cuts []int
				for c := size; c < len(in); c += size {
					cuts = append(cuts, c)
				}
				chunkings = append(chunkings, cuts)
			}
			for _, cuts := range chunkings {
				want, got := run(cuts, true), run(cuts, false)
				if !slices.Equal(got, want) {
					t.Fatalf("input %q, cap %d, cuts %v:\n got %q\nwant %q", in, maxCall, cuts, got, want)
				}
			}
		}
	}
}

// FuzzValueShortPath compares Write with the long way (writeLong) on any
// input cut at the chunk sizes the fuzzer picks.
func FuzzValueShortPath(f *testing.F) {
	for _, in := range valueInputs {
		f.Add(in, []byte{3, 1, 4, 1, 5, 9, 2, 6})
	}
	declared := func(name []byte) bool { return string(name) == "read_file" }
	hasParam := func(_, param []byte) bool { return string(param) == "path" }
	f.Fuzz(func(t *testing.T, in string, sizes []byte) {
		if len(sizes) == 0 {
			sizes = []byte{4}
		}
		for _, maxCall := range []int{0, 60} {
			run := func(long bool) []string {
				rec := &tape{}
				m := New(Options{Declared: declared, HasParam: hasParam, MaxCall: maxCall}, rec)
				for i, k := 0, 0; i < len(in); k++ {
					n := min(int(sizes[k%len(sizes)])%16+1, len(in)-i)
					if long {
						m.writeLong([]byte(in[i : i+n]))
					} else {
						m.Write([]byte(in[i : i+n]))
					}
					i += n
					rec.got = append(rec.got, "|")
				}
				m.Close()
				return rec.got
			}
			if want, got := run(true), run(false); !slices.Equal(got, want) {
				t.Fatalf("input %q, cap %d, sizes %v:\n got %q\nwant %q", in, maxCall, sizes, got, want)
			}
		}
	})
}

// TestValueSteps feeds values cut where the short paths must wait or hand
// over: '<' and '[' at a chunk's end, a closer cut inside its name or
// inside a multi-byte bar, a character cut in two, an escape cut after its
// backslash. It checks what each chunk releases.
func TestValueSteps(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   [][]string // per chunk, then one more entry for Close
	}{
		{"triggers at chunk ends, closer cut in its name",
			[]string{"<tool_call>\n<function=f>\n<parameter=a>\nx <", " y [T", "] `a` </param", "eter>\n</function>", "\n</tool_call>"},
			[][]string{{"start f"}, nil, nil, {"call f a=\"x < y [T] `a` \" []"}, {"discard block_markup"}, nil}},
		{"a character cut in two, a tag cut, a closer without '>'",
			[]string{"<tool_call>\n<function=f>\n<parameter=a>\né\xe2", "\x82\xac <div>1</d", "iv> v</paramete", "r\n</function>\n</tool_call>"},
			[][]string{{"start f"}, nil, nil, {"call f a=\"é€ <div>1</div> v\" [unclosed_tag]", "discard block_markup"}, nil}},
		{"a DSML closer cut after '<' and inside its bar",
			[]string{"<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"a\" string=\"true\">1 < 2 <", "/\xef\xbd", "\x9cDSML\xef\xbd\x9cparameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"},
			[][]string{{"start f"}, nil, {"call f a=\"1 < 2 \" []", "discard block_markup"}, nil}},
		{"JSON string: escapes cut after the backslash, a tag, a word before '>'",
			[]string{"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>w<｜tool▁sep｜>{\"a\": \"x\\", "n<b>\\", "\"</b> invoke>", "\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"},
			[][]string{{"start w"}, nil, nil, {"call w {\"a\": \"x\\n<b>\\\"</b> invoke>\"}[]", "discard block_markup"}, nil}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			m := New(Options{}, rec)
			for i, c := range tc.chunks {
				rec.got = nil
				m.Write([]byte(c))
				assert.Equal(t, tc.want[i], rec.got, "chunk %d %q", i, c)
			}
			rec.got = nil
			m.Close()
			assert.Equal(t, tc.want[len(tc.chunks)], rec.got, "close")
		})
	}
}
