package lexer

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPrefixesAndSuffixes: the markers of issue 27's formats that carry
// something around their name: MiniMax-M3's sentinel token, K2 Horizon's
// `ifm|` prefix, GigaChat 3.5's GCML prefix, Hunyuan's per-checkpoint
// suffix (in NS, with Suffixed). Each token reads the same at every split.
func TestPrefixesAndSuffixes(t *testing.T) {
	type want struct {
		kind     Kind
		marker   Marker
		name, ns string
		flags    Flags
	}
	tests := []struct {
		input string
		want  []want // text tokens are left out
	}{
		{"]<]minimax[>[<tool_call>\n", []want{{Tag, ToolCall, "tool_call", "minimax", Sentinel}}},
		{"ls]<]minimax[>[</param>", []want{{Tag, Parameter, "param", "minimax", Sentinel | Closing}}},
		{"<]minimax[>[<invoke name=\"run\">", []want{{Tag, Invoke, "invoke", "minimax", Sentinel}}},
		{"a ]<]minimax[>[ b", []want{{Special, MiniMaxSentinel, "minimax", "", Sentinel}}},
		{"x <]minimax[> y", nil}, // not the whole sentinel
		{"<tool_calls:opensource>", []want{{Tag, ToolCalls, "tool_calls", "opensource", Suffixed}}},
		{"</arg_value:6124c78e>", []want{{Tag, ArgValue, "arg_value", "6124c78e", Suffixed | Closing}}},
		{"<minimax:tool_call>", []want{{Tag, ToolCall, "tool_call", "minimax", 0}}},
		{"<ifm|tool_call>", []want{{Tag, ToolCall, "tool_call", "ifm", 0}}},
		{"</ifm|arg_type>", []want{{Tag, ArgType, "arg_type", "ifm", Closing}}},
		{"<tool_call|>", []want{{Tag, GemmaToolCall, "tool_call", "", HalfBar | Closing}}},
		{"<abc|tool_call>", nil}, // only ifm is a prefix
		{"<｜GCML｜tool_calls>", []want{{Tag, ToolCalls, "tool_calls", "GCML", DSML}}},
		{"</｜GCML｜parameter>", []want{{Tag, Parameter, "parameter", "GCML", DSML | Closing}}},
		{"<｜GSML｜tool_calls>", nil}, // no prefix: text
		{"<tool_sep>", []want{{Tag, ToolSepTag, "tool_sep", "", 0}}},
		{"<|tool_arg:value|>", []want{{Special, SolarValue, "tool_arg:value", "", 0}}},
		{"<|plamo:end_tool_requests:plamo|>", []want{{Special, PlamoRequestsEnd, "plamo:end_tool_requests:plamo", "", 0}}},
		{"<|eot|>", []want{{Special, HarmonyEnd, "eot", "", 0}}},
	}
	const check = Sentinel | Closing | HalfBar | DSML | Suffixed
	for _, tc := range tests {
		t.Run(tc.input, func(t *testing.T) {
			lex := func(cuts []int) []want {
				var l Lexer
				var out []want
				prev := 0
				for k, c := range append(cuts, len(tc.input)) {
					l.Feed([]byte(tc.input[prev:c]))
					prev = c
					for {
						tok, ok := l.Next(k == len(cuts))
						if !ok {
							break
						}
						if tok.Kind != Text {
							out = append(out, want{tok.Kind, tok.Marker, string(tok.Name), string(tok.NS), tok.Flags & check})
						}
					}
				}
				return out
			}
			whole := lex(nil)
			assert.Equal(t, tc.want, whole)
			for i := 1; i < len(tc.input); i++ {
				require.Equal(t, whole, lex([]int{i}), fmt.Sprintf("split at %d", i))
			}
		})
	}
}

// BarAt reads the bars the recognizer reads, and nothing cut short.
func TestBarAt(t *testing.T) {
	for in, want := range map[string]int{"|x": 1, "｜x": 3, "‖": 3, "x|": 0, "\xef\xbd": 0, "/": 0, "é": 0} {
		if got := BarAt([]byte(in), 0); got != want {
			t.Errorf("BarAt(%q, 0) = %d, want %d", in, got, want)
		}
	}
}
