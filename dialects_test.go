package toolsieve

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve/fsm"
)

// TestDialectTable walks the dialect table: every dialect has a fixture
// file of at least three cases, and every fixture call names its dialect.
func TestDialectTable(t *testing.T) {
	fixtures := loadFixtures(t)
	for _, d := range fsm.Dialects() {
		cases, ok := fixtures[d.Name]
		if assert.True(t, ok, "dialect %s has no testdata/cases/%s.json", d.Name, d.Name) {
			assert.GreaterOrEqual(t, len(cases), 3, "dialect %s needs at least three cases", d.Name)
		}
		assert.NotEmpty(t, d.Family, "dialect %s has no family", d.Name)
		assert.NotEmpty(t, d.Example, "dialect %s has no example", d.Name)
	}
	for group, cases := range fixtures {
		for _, fx := range cases {
			for i, c := range fx.Calls {
				assert.NotEmpty(t, c.Dialect, "%s/%s: call %d does not assert its dialect", group, fx.Name, i)
			}
		}
	}
}

// weatherTool declares the tool every canonical example calls.
const weatherTool = `[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]`

// TestDialectIsolation runs each dialect's canonical example with only that
// dialect enabled (one call, in that dialect), with only its siblings
// enabled and with every other dialect enabled (no call, every byte
// accounted for, at every chunking).
func TestDialectIsolation(t *testing.T) {
	tools, err := ParseTools([]byte(weatherTool))
	require.NoError(t, err)
	for _, d := range fsm.Dialects() {
		t.Run(d.Name, func(t *testing.T) {
			input := []byte(d.Example)
			events := checkInvariants(t, Options{Dialects: []string{d.Name}, Tools: tools}, input)
			calls := callsOf(events)
			require.Len(t, calls, 1, "only %s enabled: %v", d.Name, summarize(events))
			assert.Equal(t, "get_weather", calls[0].Name)
			assert.Equal(t, d.Name, calls[0].Dialect)
			assert.JSONEq(t, `{"city":"SF"}`, string(calls[0].Arguments))
			assert.Empty(t, calls[0].Repairs)

			var siblings, others []string
			for _, o := range fsm.Dialects() {
				switch {
				case o.Name == d.Name:
				case o.Family == d.Family:
					siblings = append(siblings, o.Name)
					fallthrough
				default:
					others = append(others, o.Name)
				}
			}
			for _, set := range [][]string{siblings, others} {
				if len(set) == 0 {
					continue
				}
				events := checkInvariants(t, Options{Dialects: set, Tools: tools}, input)
				assert.Empty(t, callsOf(events), "with %v enabled", set)
			}
		})
	}
}

func callsOf(events []Event) []Event {
	var calls []Event
	for _, e := range events {
		if e.Type == ToolCall {
			calls = append(calls, e)
		}
	}
	return calls
}

// TestUnknownDialect: an unknown name is an error, never a silent
// "nothing enabled".
func TestUnknownDialect(t *testing.T) {
	opt := Options{Dialects: []string{"kimi_k2", "kimi_k9"}}
	err := opt.Validate()
	require.ErrorIs(t, err, fsm.ErrUnknownDialect)
	assert.Contains(t, err.Error(), `"kimi_k9"`)
	assert.NoError(t, (&Options{Dialects: []string{"kimi_k2"}}).Validate())

	// NewParser reports it as the first event, then parses with the known ones.
	events := Parse([]byte(fsm.Dialects()[0].Example), opt)
	require.NotEmpty(t, events)
	assert.Equal(t, Error, events[0].Type)
	assert.Contains(t, events[0].Message, "kimi_k9")
	assert.Empty(t, callsOf(events), "anthropic is not enabled")
}

// TestReadmeDialects checks the README's dialect table against the table.
func TestReadmeDialects(t *testing.T) {
	data, err := os.ReadFile("README.md")
	require.NoError(t, err)
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9_]+)` \\| ([a-z0-9_]+) \\|")
	var names []string
	for _, m := range row.FindAllStringSubmatch(string(data), -1) {
		names = append(names, m[1])
		if d, ok := dialectByName(m[1]); assert.True(t, ok, "README lists unknown dialect %s", m[1]) {
			assert.Equal(t, d.Family, m[2], "README family of %s", m[1])
		}
	}
	assert.Equal(t, fsm.DialectNames(), names, "README dialect table, in table order")
}

func dialectByName(name string) (fsm.Spec, bool) {
	for _, d := range fsm.Dialects() {
		if strings.EqualFold(d.Name, name) {
			return d, true
		}
	}
	return fsm.Spec{}, false
}
