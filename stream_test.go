package toolsieve

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkStreamed checks the streamed-calls contract on one run's events:
// every call has one tool_call_start before it, with its index, id and
// name, and its tool_call_delta pieces concatenate to its arguments; a
// started call that does not complete is followed by a runaway, or by text
// and an error, before the next start. It returns the calls, their
// arguments decoded (a name written twice counts once, the last).
func checkStreamed(t *testing.T, events []Event, how string) []string {
	t.Helper()
	var calls []string
	open := false
	var cur Event
	var args strings.Builder
	ending := false // the open call was given back as text: an error must follow
	for i, e := range events {
		where := fmt.Sprintf("%s: event %d (%s)", how, i, e.Type)
		switch e.Type {
		case ToolCallStart:
			require.False(t, open, "%s: a start while call %d is open", where, cur.Index)
			require.False(t, ending, "%s: a start before the error of the call given back", where)
			require.NotEmpty(t, e.ID, where)
			open, cur = true, e
			args.Reset()
		case ToolCallDelta:
			require.True(t, open, "%s: a delta without a start", where)
			require.Equal(t, cur.Index, e.Index, where)
			args.Write(e.Arguments)
		case ToolCall:
			require.True(t, open, "%s: a call without a start", where)
			require.Equal(t, cur.Index, e.Index, where)
			require.Equal(t, cur.ID, e.ID, where)
			require.Equal(t, cur.Name, e.Name, where)
			require.Equal(t, string(e.Arguments), args.String(), "%s: the deltas are the arguments", where)
			open = false
			var v any
			require.NoError(t, json.Unmarshal(e.Arguments, &v), where)
			norm, _ := json.Marshal(v)
			calls = append(calls, fmt.Sprintf("%s %s %s %v", e.Name, norm, e.Dialect, e.Repairs))
		case Text:
			if open {
				open, ending = false, true
			}
		case Runaway:
			open, ending = false, false
		case Error:
			if open {
				open = false
			}
			ending = false
		}
	}
	require.False(t, ending, "%s: a call given back as text without an error", how)
	return calls
}

// decodedCalls is summarize's calls with arguments decoded and encoded
// again, as checkStreamed gives them.
func decodedCalls(t *testing.T, events []Event) []string {
	var calls []string
	for _, e := range events {
		if e.Type == ToolCall {
			var v any
			require.NoError(t, json.Unmarshal(e.Arguments, &v))
			norm, _ := json.Marshal(v)
			calls = append(calls, fmt.Sprintf("%s %s %s %v", e.Name, norm, e.Dialect, e.Repairs))
		}
	}
	return calls
}

// TestStreamedCalls runs every fixture with streamed calls, whole, in
// 1-byte chunks and in random pieces: the contract of streamed calls
// holds, the input is accounted for, and the calls and text are those of
// the same input parsed without streaming.
func TestStreamedCalls(t *testing.T) {
	for group, cases := range loadFixtures(t) {
		for _, fx := range cases {
			t.Run(group+"/"+fx.Name, func(t *testing.T) {
				opt := fx.options(t)
				in := []byte(fx.Input)
				plain := run(opt, in, nil)
				want, wantText := decodedCalls(t, plain), summarize(plain).Text
				opt.StreamCalls = true
				rng := rand.New(rand.NewSource(int64(len(in))))
				for k := 0; k < 4; k++ {
					var cuts []int
					switch k {
					case 1:
						for i := 1; i < len(in); i++ {
							cuts = append(cuts, i)
						}
					case 2, 3:
						for i := 1 + rng.Intn(5); i < len(in); i += 1 + rng.Intn(11) {
							cuts = append(cuts, i)
						}
					}
					how := fmt.Sprintf("cuts %v", cuts)
					ev := run(opt, in, cuts)
					require.Equal(t, fx.Input, string(accounted(ev)), how)
					checkOffsets(t, ev, how)
					assert.Equal(t, want, checkStreamed(t, ev, how), how)
					assert.Equal(t, wantText, summarize(ev).Text, how)
				}
			})
		}
	}
}

// TestStreamedValue: a long value goes out while it is being written,
// each piece once the bytes after it show it is final, and the pieces
// decode to the value.
func TestStreamedValue(t *testing.T) {
	tools, err := ParseTools([]byte(`[{"type":"function","function":{"name":"write_file","parameters":{"type":"object",
		"properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}}}]`))
	require.NoError(t, err)
	var lines strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&lines, "fmt.Println(\"héllo, wörld\", %d) // <b>ok</b>\n", i)
	}
	body := lines.String()
	quoted, err := json.Marshal(body)
	require.NoError(t, err)
	for _, tc := range []struct{ name, head, body, tail, repairs string }{
		{"hermes", "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.go\", \"content\": ", string(quoted), "}}\n</tool_call>", ""},
		{"kimi_k2", "<|tool_calls_section_begin|><|tool_call_begin|>functions.write_file:0<|tool_call_argument_begin|>{\"path\": \"a.go\",\n \"content\": ", string(quoted), "}<|tool_call_end|><|tool_calls_section_end|>", ""},
		{"qwen3_coder", "<tool_call>\n<function=write_file>\n<parameter=path>\na.go\n</parameter>\n<parameter=content>\n", body, "\n</parameter>\n</function>\n</tool_call>", ""},
		{"qwen3_coder without wrapper", "<function=write_file>\n<parameter=path>\na.go\n</parameter>\n<parameter=content>\n", body, "\n</parameter>\n</function>", "missing_opener"},
		{"dsml", "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"write_file\">\n<｜DSML｜parameter name=\"path\" string=\"true\">a.go</｜DSML｜parameter>\n<｜DSML｜parameter name=\"content\" string=\"true\">", body, "</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>", ""},
		{"anthropic", "<function_calls>\n<invoke name=\"write_file\">\n<parameter name=\"path\">a.go</parameter>\n<parameter name=\"content\">", body, "</parameter>\n</invoke>\n</function_calls>", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewParser(Options{Tools: tools, StreamCalls: true})
			in := tc.head + tc.body + tc.tail
			var args strings.Builder
			var call *Event
			const chunk = 97
			for i := 0; i < len(in); i += chunk {
				for _, e := range p.Feed([]byte(in[i:min(i+chunk, len(in))])) {
					switch e.Type {
					case ToolCallDelta:
						args.Write(e.Arguments)
					case ToolCall:
						c := e.Clone()
						call = &c
					}
				}
				fed := min(i+chunk, len(in)) - len(tc.head)
				if fed <= 0 || fed >= len(tc.body) {
					continue
				}
				// What went out holds the value up to the last few bytes fed:
				// a possible marker, a word before '>' and a newline wait.
				got := args.String()
				k := strings.Index(got, `"content":"`)
				require.GreaterOrEqual(t, k, 0, "after %d bytes of the value: %s", fed, got)
				var sent string
				require.NoError(t, json.Unmarshal([]byte(got[k+len(`"content":`):]+`"`), &sent))
				require.True(t, strings.HasPrefix(body, sent))
				require.GreaterOrEqual(t, len(sent), fed*len(body)/len(tc.body)-128, "after %d bytes of the value, %d went out", fed, len(sent))
			}
			for _, e := range p.Close() {
				if e.Type == ToolCall {
					c := e.Clone()
					call = &c
				}
			}
			require.NotNil(t, call)
			require.Equal(t, string(call.Arguments), args.String())
			var a struct{ Path, Content string }
			require.NoError(t, json.Unmarshal(call.Arguments, &a))
			assert.Equal(t, "a.go", a.Path)
			assert.Equal(t, body, a.Content)
			assert.Equal(t, tc.repairs, strings.Join(call.Repairs, ","))
		})
	}
}
