package lexer

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// describe renders a token as a short string for comparisons.
func describe(t *Token) string {
	switch t.Kind {
	case Text:
		return fmt.Sprintf("text(%q)", t.Raw)
	case Backticks:
		return fmt.Sprintf("ticks(%d,ls=%v)", t.Count, t.Has(LineStart))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s(%s", t.Kind, t.Marker)
	if t.Has(Closing) {
		b.WriteString(",close")
	}
	if t.Has(SelfClosing) {
		b.WriteString(",self")
	}
	if t.Has(Unclosed) {
		b.WriteString(",unclosed")
	}
	if t.Flags&Variant != 0 {
		b.WriteString(",variant")
	}
	if len(t.NS) > 0 {
		fmt.Fprintf(&b, ",ns=%s", t.NS)
	}
	fmt.Fprintf(&b, ",name=%s", t.Name)
	if len(t.Value) > 0 {
		fmt.Fprintf(&b, ",value=%s", t.Value)
	}
	for _, a := range t.Attrs {
		fmt.Fprintf(&b, ",%s=%s", a.Key, a.Val)
	}
	fmt.Fprintf(&b, ",raw=%q)", t.Raw)
	return b.String()
}

// lexAll feeds input in chunks of size n (0: whole) and describes the
// tokens, merging adjacent text so that chunking can be compared.
func lexAll(input string, cuts []int) []string {
	var l Lexer
	var out []string
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			out = append(out, fmt.Sprintf("text(%q)", text.String()))
			text.Reset()
		}
	}
	take := func(atEOF bool) {
		for {
			t, ok := l.Next(atEOF)
			if !ok {
				return
			}
			if t.Kind == Text {
				text.Write(t.Raw)
				continue
			}
			flush()
			out = append(out, describe(t))
		}
	}
	prev := 0
	for _, c := range append(cuts, len(input)) {
		l.Feed([]byte(input[prev:c]))
		take(false)
		prev = c
	}
	l.Feed(nil)
	take(true)
	flush()
	return out
}

func everyByte(n int) []int {
	cuts := make([]int, 0, n)
	for i := 1; i < n; i++ {
		cuts = append(cuts, i)
	}
	return cuts
}

func TestLexer(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"plain text", "hello, world", []string{`text("hello, world")`}},
		{"less-than in prose", "if a < b and c<d then", []string{`text("if a < b and c<d then")`}},
		{"invoke opener", `<invoke name="get_weather">`,
			[]string{`tag(invoke,name=invoke,name=get_weather,raw="<invoke name=\"get_weather\">")`}},
		{"closer", `</parameter>`, []string{`tag(parameter,close,name=parameter,raw="</parameter>")`}},
		{"namespace", `<ns1:invoke name="x">`,
			[]string{`tag(invoke,ns=ns1,name=invoke,name=x,raw="<ns1:invoke name=\"x\">")`}},
		{"dsml opener", `<｜DSML｜parameter name="city" string="true">`,
			[]string{`tag(parameter,ns=DSML,name=parameter,name=city,string=true,raw="<｜DSML｜parameter name=\"city\" string=\"true\">")`}},
		{"dsml closer slash before", `</｜DSML｜parameter>`,
			[]string{`tag(parameter,close,ns=DSML,name=parameter,raw="</｜DSML｜parameter>")`}},
		{"dsml closer slash after", `<｜DSML｜/parameter>`,
			[]string{`tag(parameter,close,ns=DSML,name=parameter,raw="<｜DSML｜/parameter>")`}},
		{"dsml spaced bars", `< | DSML | tool_calls>`,
			[]string{`tag(tool_calls,variant,ns=DSML,name=tool_calls,raw="< | DSML | tool_calls>")`}},
		{"dsml v4.1 space", `<｜DSML｜ calls>`,
			[]string{`tag(tool_calls,variant,ns=DSML,name=calls,raw="<｜DSML｜ calls>")`}},
		{"dsml doubled bars", `<｜｜DSML｜｜invoke name="x">`,
			[]string{`tag(invoke,variant,ns=DSML,name=invoke,name=x,raw="<｜｜DSML｜｜invoke name=\"x\">")`}},
		{"deepseek special", `<｜tool▁calls▁begin｜>`,
			[]string{`special(tool_calls_begin,name=tool▁calls▁begin,raw="<｜tool▁calls▁begin｜>")`}},
		{"kimi special", `<|tool_call_argument_begin|>`,
			[]string{`special(tool_call_argument_begin,name=tool_call_argument_begin,raw="<|tool_call_argument_begin|>")`}},
		{"bracket", `[TOOL_CALLS][{"a":1}]`,
			[]string{`special(TOOL_CALLS,name=TOOL_CALLS,raw="[TOOL_CALLS]")`, `text("[{\"a\":1}]")`}},
		{"markdown link", `[link](x) [A-b]`, []string{`text("[link](x) [A-b]")`}},
		{"qwen function", `<function=get_weather>`,
			[]string{`tag(function,name=function,value=get_weather,raw="<function=get_weather>")`}},
		{"qwen parameter", "<parameter=city>\nSF\n</parameter>",
			[]string{`tag(parameter,name=parameter,value=city,raw="<parameter=city>")`, `text("\nSF\n")`, `tag(parameter,close,name=parameter,raw="</parameter>")`}},
		{"curly quotes", `<invoke name=“x”>`,
			[]string{`tag(invoke,variant,name=invoke,name=x,raw="<invoke name=“x”>")`}},
		{"single quotes", `<invoke name='x'>`,
			[]string{`tag(invoke,variant,name=invoke,name=x,raw="<invoke name='x'>")`}},
		{"escaped quotes", `<invoke name=\"x\">`,
			[]string{`tag(invoke,variant,name=invoke,name=x,raw="<invoke name=\\\"x\\\">")`}},
		{"opener without >", "<invoke name=\"x\"\n<parameter name=\"a\">",
			[]string{`tag(invoke,unclosed,name=invoke,name=x,raw="<invoke name=\"x\"")`, `text("\n")`, `tag(parameter,name=parameter,name=a,raw="<parameter name=\"a\">")`}},
		{"closer without >", "</parameter\n</invoke>",
			[]string{`tag(parameter,close,unclosed,name=parameter,raw="</parameter")`, `text("\n")`, `tag(invoke,close,name=invoke,raw="</invoke>")`}},
		{"corrupted closer slash", `</parameter/>`, []string{`tag(parameter,close,self,name=parameter,raw="</parameter/>")`}},
		{"closer at eof", `x</invoke`, []string{`text("x")`, `tag(invoke,close,unclosed,name=invoke,raw="</invoke")`}},
		{"opener cut at eof is text", `x<invoke na`, []string{`text("x<invoke na")`}},
		{"fence", "a\n```go\nb", []string{`text("a\n")`, `ticks(3,ls=true)`, `text("go\nb")`}},
		{"inline code", "use `x` now", []string{`text("use ")`, `ticks(1,ls=false)`, `text("x")`, `ticks(1,ls=false)`, `text(" now")`}},
		{"html", `<div class="a">x</div>`,
			[]string{`tag(unknown,name=div,class=a,raw="<div class=\"a\">")`, `text("x")`, `tag(unknown,close,name=div,raw="</div>")`}},
		{"json attr", `<tool name="shell" args="{\"command\": \"echo test\"}"/>`,
			[]string{`tag(tool,self,name=tool,name=shell,args={\"command\": \"echo test\"},raw="<tool name=\"shell\" args=\"{\\\"command\\\": \\\"echo test\\\"}\"/>")`}},
		{"hermes opener then json", "<tool_call>\n{\"name\":1}",
			[]string{`tag(tool_call,name=tool_call,raw="<tool_call>")`, `text("\n{\"name\":1}")`}},
		{"invalid utf8", "a\xff<b\xfe>", []string{`text("a\xff<b\xfe>")`}},
		{"cjk", "杭州<｜DSML｜invoke name=\"天气\">", []string{`text("杭州")`, `tag(invoke,ns=DSML,name=invoke,name=天气,raw="<｜DSML｜invoke name=\"天气\">")`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			whole := lexAll(tc.input, nil)
			assert.Equal(t, tc.want, whole)
			assert.Equal(t, whole, lexAll(tc.input, everyByte(len(tc.input))), "1-byte chunks")
			for i := 1; i < len(tc.input); i++ {
				require.Equal(t, whole, lexAll(tc.input, []int{i}), "split at %d", i)
			}
		})
	}
}

func TestLexerNeverSplitsUTF8(t *testing.T) {
	input := "a杭州｜b"
	var l Lexer
	for i := 0; i < len(input); i++ {
		l.Feed([]byte{input[i]})
		for {
			tok, ok := l.Next(false)
			if !ok {
				break
			}
			assert.True(t, CompleteUTF8(tok.Raw) == len(tok.Raw), "token %q ends inside a rune", tok.Raw)
		}
	}
}

func TestLexerHoldBackIsBounded(t *testing.T) {
	var l Lexer
	l.Feed([]byte(`<invoke name="` + strings.Repeat("a", 10*DefaultMaxTag)))
	n := 0
	for {
		tok, ok := l.Next(false)
		if !ok {
			break
		}
		n += len(tok.Raw)
	}
	assert.LessOrEqual(t, l.Holding(), DefaultMaxTag+1)
	assert.Greater(t, n, 0)
}

func TestLexerPlainTextAllocs(t *testing.T) {
	var l Lexer
	chunk := []byte("The quick brown fox jumps over the lazy dog. ")
	allocs := testing.AllocsPerRun(100, func() {
		for i := 0; i+4 <= len(chunk); i += 4 {
			l.Feed(chunk[i : i+4])
			for {
				if _, ok := l.Next(false); !ok {
					break
				}
			}
		}
	})
	assert.Zero(t, allocs)
}
