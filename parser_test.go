package toolsieve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolsieve/toolsieve/fsm"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixture is one named case of testdata/cases/*.json.
type fixture struct {
	Name  string          `json:"name"`
	Input string          `json:"input"`
	Tools json.RawMessage `json:"tools,omitempty"`
	// Calls expected, in order. Repairs must match exactly when given.
	Calls []struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Dialect   string          `json:"dialect,omitempty"`
		Repairs   []string        `json:"repairs"`
	} `json:"calls"`
	// Text is the concatenated text events.
	Text *string `json:"text,omitempty"`
	// Types lists the expected event types other than text and
	// tool_call_start, in order, when given.
	Types   []string `json:"types,omitempty"`
	Options struct {
		MarkupInCode bool     `json:"markup_in_code"`
		Dialects     []string `json:"dialects"`
		MaxCallBytes int      `json:"max_call_bytes"`
	} `json:"options"`
}

func loadFixtures(t *testing.T) map[string][]fixture {
	files, err := filepath.Glob("testdata/cases/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	out := map[string][]fixture{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var cases []fixture
		require.NoError(t, json.Unmarshal(data, &cases), f)
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = cases
	}
	return out
}

func (fx *fixture) options(t testing.TB) Options {
	opt := Options{MarkupInCode: fx.Options.MarkupInCode, Dialects: fx.Options.Dialects,
		MaxCallBytes: fx.Options.MaxCallBytes, IDPrefix: "id"}
	if len(fx.Tools) > 0 {
		tools, err := ParseTools(fx.Tools)
		require.NoError(t, err)
		opt.Tools = tools
	}
	return opt
}

// run feeds input cut at the given offsets and returns cloned events.
func run(opt Options, input []byte, cuts []int) []Event {
	p := NewParser(opt)
	var out []Event
	prev := 0
	for _, c := range append(cuts, len(input)) {
		for _, e := range p.Feed(input[prev:c]) {
			out = append(out, e.Clone())
		}
		prev = c
	}
	for _, e := range p.Close() {
		out = append(out, e.Clone())
	}
	return out
}

// outcome is what chunking must not change: the calls and the text.
type outcome struct {
	Calls []string
	Text  string
	Types []string
}

func summarize(events []Event) outcome {
	var o outcome
	var text strings.Builder
	last := Text
	for _, e := range events {
		switch e.Type {
		case Text:
			text.Write(e.Text)
		case ToolCall:
			o.Calls = append(o.Calls, fmt.Sprintf("%s %s %s %v", e.Name, e.Arguments, e.Dialect, e.Repairs))
		}
		// Types other than calls may be split differently by chunking:
		// adjacent ones of the same type count once.
		if e.Type == ToolCallStart || e.Type == ToolCallDelta {
			continue // early signals; what they announce is checked with the call
		}
		if e.Type != Text && (e.Type == ToolCall || e.Type != last) {
			o.Types = append(o.Types, e.Type.String())
		}
		last = e.Type
	}
	o.Text = text.String()
	return o
}

// checkOffsets checks that every event carries the input offset of its
// first byte, and that the machine never reported making no progress.
func checkOffsets(t *testing.T, events []Event, how string) {
	t.Helper()
	var pos int64
	for i, e := range events {
		if e.Type == Error {
			require.NotEqual(t, fsm.ErrNoProgress, e.Message, "%s: event %d", how, i)
			continue
		}
		require.Equal(t, pos, e.Offset, "%s: offset of event %d (%s)", how, i, e.Type)
		require.True(t, utf8.Valid(e.Text) && utf8.Valid(e.Raw), "%s: event %d (%s) splits a character: %q %q", how, i, e.Type, e.Text, e.Raw)
		if e.Type == Text {
			pos += int64(len(e.Text))
		} else {
			pos += int64(len(e.Raw))
		}
	}
}

// accounted rebuilds the input from the events (docs/contract.md invariant 1).
func accounted(events []Event) []byte {
	var b bytes.Buffer
	for _, e := range events {
		if e.Type == Text {
			b.Write(e.Text)
		} else {
			b.Write(e.Raw)
		}
	}
	return b.Bytes()
}

// checkInvariants runs input whole, in 1-byte chunks, split at every
// position and in random pieces, checking invariants 1 and 2.
func checkInvariants(t *testing.T, opt Options, input []byte) []Event {
	t.Helper()
	whole := run(opt, input, nil)
	require.Equal(t, string(input), string(accounted(whole)), "accounting, whole input")
	checkOffsets(t, whole, "whole input")
	want := summarize(whole)
	every := make([]int, 0, len(input))
	for i := 1; i < len(input); i++ {
		every = append(every, i)
	}
	ev := run(opt, input, every)
	require.Equal(t, string(input), string(accounted(ev)), "accounting, 1-byte chunks")
	checkOffsets(t, ev, "1-byte chunks")
	require.Equal(t, want, summarize(ev), "1-byte chunks")
	for i := 1; i < len(input); i++ {
		ev := run(opt, input, []int{i})
		require.Equal(t, string(input), string(accounted(ev)), "accounting, split at %d", i)
		checkOffsets(t, ev, fmt.Sprintf("split at %d", i))
		require.Equal(t, want, summarize(ev), "split at %d", i)
	}
	rng := rand.New(rand.NewSource(int64(len(input))))
	for k := 0; k < 5; k++ {
		var cuts []int
		for i := 1 + rng.Intn(7); i < len(input); i += 1 + rng.Intn(13) {
			cuts = append(cuts, i)
		}
		ev := run(opt, input, cuts)
		require.Equal(t, want, summarize(ev), "random cuts %v", cuts)
	}
	return whole
}

func TestFixtures(t *testing.T) {
	for group, cases := range loadFixtures(t) {
		require.GreaterOrEqual(t, len(cases), 3, "group %s needs at least three cases", group)
		for _, fx := range cases {
			t.Run(group+"/"+fx.Name, func(t *testing.T) {
				opt := fx.options(t)
				events := checkInvariants(t, opt, []byte(fx.Input))
				var calls []Event
				for _, e := range events {
					if e.Type == ToolCall {
						calls = append(calls, e)
					}
				}
				require.Len(t, calls, len(fx.Calls), "calls: %v", summarize(events).Calls)
				for i, want := range fx.Calls {
					got := calls[i]
					assert.Equal(t, want.Name, got.Name, "call %d name", i)
					if want.Arguments != nil {
						assert.JSONEq(t, string(want.Arguments), string(got.Arguments), "call %d arguments", i)
					}
					if want.Dialect != "" {
						assert.Equal(t, want.Dialect, got.Dialect, "call %d dialect", i)
					}
					if want.Repairs != nil {
						assert.ElementsMatch(t, want.Repairs, got.Repairs, "call %d repairs", i)
					}
					assert.True(t, json.Valid(got.Arguments), "call %d arguments are JSON", i)
				}
				if fx.Text != nil {
					assert.Equal(t, *fx.Text, summarize(events).Text, "text")
				}
				if fx.Types != nil {
					got := summarize(events).Types
					if len(fx.Types) == 0 {
						assert.Empty(t, got, "event types")
					} else {
						assert.Equal(t, fx.Types, got, "event types")
					}
				}
			})
		}
	}
}

// TestPromptness checks docs/contract.md invariant 3 on the fixtures whose calls
// need no repair: fed one byte at a time, each call comes out of the Feed
// that consumes the last byte of its markup, not later. A call to the tool
// the call before it named may wait for what follows it: the repetition
// guard holds a unit alike to the one before until it can tell whether it
// belongs to a loop (docs/contract.md, "Runaway").
func TestPromptness(t *testing.T) {
	for group, cases := range loadFixtures(t) {
		for _, fx := range cases {
			t.Run(group+"/"+fx.Name, func(t *testing.T) {
				p := NewParser(fx.options(t))
				in := []byte(fx.Input)
				accounted := 0 // bytes covered by the events so far
				last := ""     // the name of the call before
				for i := range in {
					for _, e := range p.Feed(in[i : i+1]) {
						if e.Type == Text {
							accounted += len(e.Text)
							continue
						}
						accounted += len(e.Raw)
						if e.Type != ToolCall {
							continue
						}
						this := e.Name
						if len(e.Repairs) == 0 && len(e.Raw) > 0 && this != last {
							assert.Equal(t, i+1, accounted, "call %s emitted after byte %d, its markup ends at byte %d", e.Name, i+1, accounted)
						}
						last = this
					}
				}
				p.Close()
			})
		}
	}
}

// TestFeedAfterClose: input fed after Close is not parsed; it comes back as
// the raw bytes of an error event, and a second Close returns nothing.
func TestFeedAfterClose(t *testing.T) {
	p := NewParser(Options{})
	p.Feed([]byte("hi"))
	p.Close()
	ev := p.Feed([]byte("<tool_call>{\"name\":\"f\"}</tool_call>"))
	require.Len(t, ev, 1)
	assert.Equal(t, Error, ev[0].Type)
	assert.Contains(t, ev[0].Message, "after Close")
	assert.Equal(t, "<tool_call>{\"name\":\"f\"}</tool_call>", string(ev[0].Raw))
	assert.Equal(t, int64(2), ev[0].Offset)
	assert.Empty(t, p.Close())
}

// TestCallBytesStayUntilNextFeed: a call's raw bytes may alias the
// parser's buffer (not copied); they stay as they were until the next
// Feed, while more calls and markup follow in the same chunk and later.
func TestCallBytesStayUntilNextFeed(t *testing.T) {
	a := "<tool_call>\n<function=f>\n<parameter=x>\n" + strings.Repeat("a", 3000) + "\n</parameter>\n</function>\n</tool_call>"
	b := strings.Replace(a, "aaa", "bbb", 1)
	c := strings.Replace(a, "aaa", "ccc", 1)
	p := NewParser(Options{})
	var raws []string
	var events []Event
	for _, chunk := range []string{"x " + a[:100], a[100:] + "\n" + b + "\n" + c[:50], c[50:] + "\nend"} {
		from := len(raws)
		for _, e := range p.Feed([]byte(chunk)) {
			if e.Type == ToolCall {
				events = append(events, e)
				raws = append(raws, string(e.Raw))
			}
		}
		for i, e := range events { // valid until the next Feed: none changed meanwhile
			require.Equal(t, raws[from+i], string(e.Raw))
		}
		events = events[:0]
	}
	p.Close()
	body := func(s string) string { return strings.TrimSuffix(s, "\n</tool_call>") }
	require.Equal(t, []string{body(a), body(b), body(c)}, raws)
}
