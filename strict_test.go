package toolsieve

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// allRepairs allows every repair of the vocabulary.
func allRepairs() Repairs {
	var all Repairs
	for _, n := range RepairNames() {
		r, ok := ParseRepair(n)
		if !ok {
			panic(n)
		}
		all |= r
	}
	return all
}

// TestStrictAllowingAllInStep: strict mode that allows every repair gives
// the same events as no strict mode, for every fixture and options.
func TestStrictAllowingAllInStep(t *testing.T) {
	tools, err := ParseTools([]byte(`[{"type":"function","function":{"name":"read_file","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}}]`))
	require.NoError(t, err)
	opts := []Options{{}, {Tools: tools}, {Dialects: []string{"hermes"}}, {MarkupInCode: true},
		{MaxCallBytes: 64}, {Runaway: RunawayLimits{RepeatedCalls: 1, OpenersWithoutCloser: 1}}}
	for file, cases := range loadFixtures(t) {
		for _, c := range cases {
			for _, o := range opts {
				o.IDPrefix = "x_"
				want := eventLines(NewParser(o), c.Input)
				o.Strict = &Strict{Allow: allRepairs()}
				got := eventLines(NewParser(o), c.Input)
				require.Equal(t, want, got, "%s/%s", file, c.Name)
			}
		}
	}
}

func eventLines(p *Parser, in string) []string {
	var out []string
	for _, evs := range [2][]Event{p.Feed([]byte(in)), nil} {
		if evs == nil {
			evs = p.Close()
		}
		for _, e := range evs {
			out = append(out, string(e.AppendJSON(nil)))
		}
	}
	return out
}

// TestStrictRefusesRepairedCalls: in strict mode a call carrying a
// structural repair stays text (with its block's closer), followed by an
// error event with reason "refused"; marker variants and well-formed calls
// pass.
func TestStrictRefusesRepairedCalls(t *testing.T) {
	in := "Hi <function_calls>\n<invoke name=\"a\">\n<parameter name=\"x\">1</parameter>\n</invoke>\n</function_calls>\n" +
		"<tool_call>\n{\"name\": \"b\", \"arguments\": {\"y\": 2}\n</tool_call>\nthen <tool_call>\n<function=c>\n<parameter=z>\n3\n</parameter>\n"
	var text strings.Builder
	var calls, errs []string
	for _, e := range Parse([]byte(in), Options{Strict: &Strict{Allow: RepairMarkerVariant}}) {
		switch e.Type {
		case Text:
			text.Write(e.Text)
		case ToolCall:
			calls = append(calls, e.Name)
		case Error:
			require.Equal(t, ReasonRefused, e.Reason)
			errs = append(errs, e.Message)
		}
	}
	require.Equal(t, []string{"a"}, calls)
	require.Len(t, errs, 2)
	require.Contains(t, errs[0], `"b"`)
	require.Contains(t, errs[0], "truncated_json")
	require.Contains(t, errs[1], "closed_at_eof")
	require.Equal(t, "Hi \n<tool_call>\n{\"name\": \"b\", \"arguments\": {\"y\": 2}\n</tool_call>\nthen <tool_call>\n<function=c>\n<parameter=z>\n3\n</parameter>\n", text.String())

	// Allowed repairs pass.
	got := eventLines(NewParser(Options{Strict: &Strict{Allow: RepairClosedAtEOF | RepairMissingCloser}}), "<tool_call>\n<function=c>\n<parameter=z>\n3\n</parameter>")
	require.Len(t, got, 2)
	require.Contains(t, got[1], `"type":"tool_call"`)
}
