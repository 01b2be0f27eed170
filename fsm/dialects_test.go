package fsm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve/lexer"
)

// tokenOf lexes s, which must be one marker.
func tokenOf(t *testing.T, s string) *lexer.Token {
	t.Helper()
	var l lexer.Lexer
	l.Feed([]byte(s))
	tok, ok := l.Next(true)
	require.True(t, ok)
	require.Equal(t, len(s), len(tok.Raw), "%q is one token", s)
	return tok
}

func names(s dset) []string {
	var out []string
	for i := range table {
		if s.has(i) {
			out = append(out, table[i].Name)
		}
	}
	return out
}

// TestOpeners: which dialects a token may start in text, and how.
func TestOpeners(t *testing.T) {
	m := New(Options{}, &recorder{})
	tests := []struct {
		token    string
		role     role
		cands    []string
		variants []string
	}{
		{`<function_calls>`, rBlockOpen, []string{anthropic, dsmlDialect, olmo3}, nil},
		{`<｜DSML｜tool_calls>`, rBlockOpen, []string{anthropic, dsmlDialect, hunyuan, hyV3, hyV4, miniMaxM1}, []string{anthropic, hunyuan, hyV3, hyV4, miniMaxM1}},
		{`<｜DSML｜toolcall>`, rBlockOpen, []string{dsmlDialect, miniMax, qwen3Coder, hermes, glm, teleChat4, nemotron}, []string{dsmlDialect, miniMax, qwen3Coder, hermes, glm, teleChat4, nemotron}},
		{`<｜DSML｜tool_call>`, rBlockOpen, []string{dsmlDialect, miniMax, miniMaxM3, qwen3Coder, hermes, glm, hermesPythonic, teleChat4, granite, stepAudio2, glm53Flash}, []string{dsmlDialect, miniMax, miniMaxM3, qwen3Coder, hermes, glm, hermesPythonic, teleChat4, granite, stepAudio2, glm53Flash}},
		{`<toolscall>`, rBlockOpen, []string{anthropic, dsmlDialect, hunyuan, hyV3, hyV4, miniMaxM1}, nil}, // an alias: the token is a variant
		{`<tool_calls:opensource>`, rBlockOpen, []string{anthropic, dsmlDialect, hunyuan, hyV3, hyV4, miniMaxM1}, nil},
		{`<TOOLCALL>`, rBlockOpen, []string{miniMax, qwen3Coder, hermes, glm, teleChat4, nemotron}, []string{miniMax, qwen3Coder, hermes, glm, teleChat4}},
		{`<|START_ACTION|>`, rBlockOpen, []string{cohere}, nil},
		{`<invoke name="f">`, rCallOpen, []string{anthropic, dsmlDialect}, nil},
		{`<invoke>`, rNone, nil, nil}, // a call opener needs its name
		{`<tool_call>`, rBlockOpen, []string{miniMax, miniMaxM3, qwen3Coder, hermes, glm, hermesPythonic, teleChat4, granite, stepAudio2, glm53Flash}, []string{miniMax, miniMaxM3}},
		{`<minimax:tool_call>`, rBlockOpen, []string{miniMax}, nil},
		{`<seed:tool_call>`, rBlockOpen, []string{seedOSS}, nil},
		{`<other:tool_call>`, rBlockOpen, []string{miniMax, miniMaxM3, qwen3Coder, hermes, glm, hermesPythonic, teleChat4, granite, stepAudio2, glm53Flash}, []string{miniMax, miniMaxM3}},
		{`<|tool_call|>`, rBlockOpen, []string{granite}, nil},
		{`<|message_sep|>`, rBlockOpen, []string{gigaChat3}, nil},
		{`<tool_use>`, rBlockOpen, []string{hermes}, nil},
		{`<function=f>`, rCallOpen, []string{qwen3Coder, functionaryV31}, nil},
		{`<invoke_tool_call>`, rBlockOpen, []string{invokeToolCall}, nil},
		{`<｜tool▁calls▁begin｜>`, rBlockOpen, []string{deepSeekV3, deepSeekV31, step3}, nil},
		{`<｜tool_calls_begin｜>`, rBlockOpen, []string{deepSeekV3, deepSeekV31, step3}, nil},
		{`<|tool_calls_section_begin|>`, rBlockOpen, []string{kimiK2}, nil},
		{`<|tool_call_begin|>`, rCallOpen, []string{deepSeekV3, deepSeekV31, kimiK2, step3}, nil},
		{`<|open|>tools<|sep|>`, rBlockOpen, []string{kimiK3}, nil},
		{`<|open|>call tool="f" index="1"<|sep|>`, rCallOpen, []string{kimiK3}, nil},
		{`<|open|>call<|sep|>`, rNone, nil, nil}, // a call opener needs its tool
		{`<function name="f">`, rCallOpen, []string{miniCPM5}, nil},
		{`<functionname="f">`, rCallOpen, []string{miniCPM5}, nil},
		{`[TOOL_CALLS]`, rBlockOpen, []string{mistral}, nil},
		{`<|python_tag|>`, rBlockOpen, []string{llama3, llama3Builtin}, nil},
		{`<|channel|>`, rBlockOpen, []string{harmonyDialect}, nil},
		{`<]minimax[>[<tool_call>`, rBlockOpen, []string{miniMaxM3}, nil},
		{`<]minimax[>[<invoke name="f">`, rCallOpen, []string{miniMaxM3}, nil},
		{`<｜GCML｜tool_calls>`, rBlockOpen, []string{gigaChat35}, nil},
		{`<ifm|tool_calls>`, rBlockOpen, []string{k2Horizon}, nil},
		{`<ifm|tool_call>`, rCallOpen, []string{k2Horizon}, nil},
		{`<tool_call:opensource>`, rBlockOpen, []string{miniMax, miniMaxM3, qwen3Coder, hermes, glm, hermesPythonic, teleChat4, granite, stepAudio2, glm53Flash}, []string{miniMax, miniMaxM3}},
		{`<|tool_call_start|>`, rBlockOpen, []string{lfm2, lfm2JSON, miniCPM3}, nil},
		{`<|tool_call:start|>`, rBlockOpen, []string{solarOpen2}, nil},
		{`<|message_model|>`, rBlockOpen, []string{inkling}, nil},
		{`<|content_invoke_tool_json|>`, rBlockOpen, []string{inkling}, nil},
		{`<|plamo:begin_tool_requests:plamo|>`, rBlockOpen, []string{plamo3}, nil},
		{`<|plamo:begin_tool_request:plamo|>`, rCallOpen, []string{plamo3}, nil},
		{`<p>`, rNone, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.token, func(t *testing.T) {
			cands, variants, r := m.openersOf(tokenOf(t, tt.token))
			assert.Equal(t, tt.role, r)
			assert.Equal(t, tt.cands, names(cands))
			assert.Equal(t, tt.variants, names(variants))
		})
	}
}

// TestChoose: among the candidates of one opener, the content decides.
func TestChoose(t *testing.T) {
	set := func(ns ...string) (s dset) {
		for _, n := range ns {
			d, ok := lookup(n)
			require.True(t, ok, n)
			s |= specSet(d)
		}
		return s
	}
	toolCall := set(miniMax, qwen3Coder, hermes, glm)
	tests := []struct {
		name  string
		cands dset
		mk    lexer.Marker
		dsml  bool
		sh    shape
		want  string
	}{
		{"tool_call holding a function", toolCall, lexer.Function, false, shNone, qwen3Coder},
		{"tool_call holding an invoke", toolCall, lexer.Invoke, false, shNone, miniMax},
		{"tool_call holding JSON", toolCall, lexer.Unknown, false, shEnvelope, hermes},
		{"tool_call holding a bare name", toolCall, lexer.Unknown, false, shKV, glm},
		{"plain invoke", set(anthropic, dsmlDialect), lexer.Invoke, false, shNone, anthropic},
		{"DSML invoke", set(anthropic, dsmlDialect), lexer.Invoke, true, shNone, dsmlDialect},
		{"invoke in deepseek tokens", set(deepSeekV3, deepSeekV31, kimiK2, step3), lexer.Invoke, false, shXML, step3},
		{"no fit", set(anthropic, dsmlDialect), lexer.Function, false, shNone, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if s := choose(tt.cands, tt.mk, tt.dsml, tt.sh); s != nil {
				got = s.Name
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestTokenRoles: special tokens mean what the unit's dialects say.
func TestTokenRoles(t *testing.T) {
	deepseek, _ := lookup(deepSeekV31)
	harmony, _ := lookup(harmonyDialect)
	assert.Equal(t, rSep, tokenRoleOf(specSet(deepseek), lexer.ToolSep))
	assert.Equal(t, rCallClose, tokenRoleOf(specSet(deepseek), lexer.ToolCallEnd))
	assert.Equal(t, rBlockClose, tokenRoleOf(specSet(deepseek), lexer.SectionEnd))
	assert.Equal(t, rNone, tokenRoleOf(specSet(deepseek), lexer.HarmonyMessage))
	assert.Equal(t, rSep, tokenRoleOf(specSet(harmony), lexer.HarmonyMessage))
}

// TestTableShape: every entry is complete and consistent.
func TestTableShape(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range table {
		assert.False(t, seen[d.Name], "%s listed twice", d.Name)
		seen[d.Name] = true
		assert.NotEqual(t, shNone, d.shape, d.Name)
		assert.NotEqual(t, nameNone, d.name, d.Name)
		assert.True(t, d.shape == shProbe || d.eol || len(d.opens) > 0, "%s: nothing opens it", d.Name)
		if d.name == nameHeader {
			assert.NotNil(t, d.header, "%s reads a header without a hook", d.Name)
		}
		if d.key != lexer.Unknown {
			assert.NotEqual(t, lexer.Unknown, d.value, "%s: a key without a value element", d.Name)
		}
	}
	assert.Len(t, DialectNames(), len(table))
}

// TestArgumentStyles runs one call of each argument style and checks the
// name and arguments the machine hands over.
func TestArgumentStyles(t *testing.T) {
	declared := func(name []byte) bool { return string(name) == "get_weather" }
	hasParam := func(tool, param []byte) bool { return string(tool) == "get_weather" && string(param) == "city" }
	tests := []struct {
		style string
		input string
		want  string
	}{
		{"xml parameters (name attribute)", "<function_calls><invoke name=\"f\"><parameter name=\"a\">1</parameter></invoke></function_calls>", `call f a="1" []`},
		{"xml parameters (=VALUE, trimmed newlines)", "<tool_call><function=f><parameter=a>\n1\n</parameter></function></tool_call>", `call f a="1" []`},
		{"JSON body in a call element", "<function_calls><invoke name=\"f\">{\"a\": 1}</invoke></function_calls>", `call f {"a": 1}[]`},
		{"JSON envelope", "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>", `call f {"a": 1}[]`},
		{"JSON envelope array in a tag", "<tool_call>[{\"name\": \"f\", \"arguments\": {\"a\": 1}}]</tool_call>", `call f {"a": 1}[]`},
		{"envelope keyed by name", "<|tools_prefix|>[{\"f\": {\"a\": 1}}]<|tools_suffix|>", `call f {"a": 1}[]`},
		{"envelope after a preamble", "<|message_sep|>\n\nfunction call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}", `call f {"a": 1}[]`},
		{"JSON envelope array", "[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {\"a\": 1}}, {\"name\": \"g\", \"arguments\": {}}]", `call f {"a": 1}[] call g {}[]`},
		{"key/value pairs", "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>", `call f a="1" []`},
		{"attribute JSON", "<invoke_tool_call><tool name=\"f\" args=\"{\\\"a\\\": 1}\"/></invoke_tool_call>", `call f {"a": 1}[]`},
		{"child tags of a declared tool", "<get_weather><city>SF</city></get_weather>", `call get_weather city="SF" []`},
		{"token header, bare JSON", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": 1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>", `call f {"a": 1}[]`},
		{"token header, name line", "<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n{\"a\": 1}<｜tool▁call▁end｜>", `call f {"a": 1}[missing_opener]`},
		{"harmony header", "<|channel|>commentary to=functions.f<|message|>{\"a\": 1}<|call|>", `call f {"a": 1}[]`},
		{"pythonic list", "<|python_start|>[f(a=1, b='x'), g()]<|python_end|>", `call f {"a":1,"b":"x"}[] call g {}[]`},
		{"pythonic lines", "<function_calls>\nf(a=True)\ng(b=None)\n</function_calls>", `call f {"a":true}[] call g {"b":null}[]`},
		{"loose object", "<|tool_call>call:f{a:<|\"|>x<|\"|>,n:5}<tool_call|>", `call f {"a":"x","n":5}[]`},
		{"loose object, tag delimiters", "<start_function_call>call:f{a:<escape>x<escape>}<end_function_call>", `call f {"a":"x"}[]`},
		{"token call around an element", "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\"><steptml:parameter name=\"a\">1</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>", `call f a="1" []`},
		{"XTML tags, typed", "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument key=\"a\" type=\"number\"<|sep|>1<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>", `call f a="1" []`},
		{"attribute-named function, own param spelling", "<function name=\"f\"><param name=\"a\">1</param></function>", `call f a="1" []`},
		{"bare JSON object", "{\"name\": \"get_weather\", \"arguments\": {\"a\": 1}}", `call get_weather {"a": 1}[]`},
		{"bare JSON array", "[{\"name\": \"get_weather\", \"arguments\": {\"a\": 1}}]", `call get_weather {"a": 1}[]`},
		{"bare Python call list", "[get_weather(a=1)]", `call get_weather {"a":1}[]`},
		{"JSON array after a word", "functools[{\"name\": \"get_weather\", \"arguments\": {\"a\": 1}}]", `call get_weather {"a": 1}[]`},
	}
	for _, tt := range tests {
		t.Run(tt.style, func(t *testing.T) {
			rec := &recorder{}
			m := New(Options{Declared: declared, HasParam: hasParam}, rec)
			m.Write([]byte(tt.input))
			m.Close()
			var got []string
			for _, g := range rec.got {
				if strings.HasPrefix(g, "call ") {
					got = append(got, g)
				}
			}
			assert.Equal(t, tt.want, strings.Join(got, " "), fmt.Sprint(rec.got))
		})
	}
}

// TestMutedDialect: a call of a dialect that is not enabled is parsed to
// its end and passed on as text, closers included.
func TestMutedDialect(t *testing.T) {
	rec := &recorder{}
	m := New(Options{Dialects: map[string]bool{hermes: true}}, rec)
	in := "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call> after"
	m.Write([]byte(in))
	m.Close()
	var text strings.Builder
	for _, g := range rec.got {
		require.True(t, strings.HasPrefix(g, "text "), "only text: %v", rec.got)
		var s string
		_, err := fmt.Sscanf(g, "text %q", &s)
		require.NoError(t, err)
		text.WriteString(s)
	}
	assert.Equal(t, in, text.String())
}

// hintSink keeps the hints of the parameters of the calls it receives.
type hintSink struct {
	recorder
	hints []string
}

func (h *hintSink) Call(c *Call) {
	for _, p := range c.Params {
		h.hints = append(h.hints, fmt.Sprintf("%s:%d", p.Name, p.Hint))
	}
}

// TestTypeAttribute: where a dialect's arguments carry a type attribute,
// it says how the value is written; elsewhere it is just an attribute.
func TestTypeAttribute(t *testing.T) {
	tests := []struct {
		input string
		want  []string
	}{
		{"<|open|>tools<|sep|><|open|>call tool=\"f\"<|sep|><|open|>argument key=\"a\" type=\"string\"<|sep|>1<|close|>argument<|sep|>" +
			"<|open|>argument key=\"b\" type=\"number\"<|sep|>1<|close|>argument<|sep|><|open|>argument key=\"c\"<|sep|>1<|close|>argument<|sep|><|close|>call<|sep|>",
			[]string{fmt.Sprintf("a:%d", HintString), fmt.Sprintf("b:%d", HintJSON), fmt.Sprintf("c:%d", HintNone)}},
		{"<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\"><steptml:parameter name=\"a\" type=\"integer\">1</steptml:parameter></steptml:invoke>",
			[]string{fmt.Sprintf("a:%d", HintJSON)}},
		{"<function_calls><invoke name=\"f\"><parameter name=\"a\" type=\"integer\">1</parameter></invoke></function_calls>",
			[]string{fmt.Sprintf("a:%d", HintNone)}},
	}
	for _, tt := range tests {
		h := &hintSink{}
		m := New(Options{}, h)
		m.Write([]byte(tt.input))
		m.Close()
		assert.Equal(t, tt.want, h.hints, tt.input)
	}
}
