package fsm

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// recorder is a Sink that describes what it receives.
type recorder struct{ got []string }

func (r *recorder) Text(b []byte) { r.got = append(r.got, fmt.Sprintf("text %q", b)) }
func (r *recorder) Reasoning(text, raw []byte) {
	r.got = append(r.got, fmt.Sprintf("reasoning %q", text))
}
func (r *recorder) CallStart(name []byte) { r.got = append(r.got, "start "+string(name)) }
func (r *recorder) Call(c *Call) {
	args := string(c.Args)
	for _, p := range c.Params {
		args += fmt.Sprintf("%s=%q ", p.Name, p.Value)
	}
	r.got = append(r.got, fmt.Sprintf("call %s %s%v", c.Name, args, c.Repairs.Append(nil)))
}
func (r *recorder) Discard(raw []byte, reason Reason) {
	r.got = append(r.got, "discard "+reason.String())
}
func (r *recorder) Runaway(raw []byte, reason Reason) {
	r.got = append(r.got, "runaway "+reason.String())
}
func (r *recorder) Error(msg string, offset int64) { r.got = append(r.got, "error "+msg) }

// TestSteps feeds chunks one at a time and checks what each one releases:
// text as soon as it cannot be markup, a call with the byte that closes it.
func TestSteps(t *testing.T) {
	tests := []stepCase{
		{"text passes at once", []string{"Hello, ", "world."},
			[][]string{{`text "Hello, "`}, {`text "world."`}, nil}},
		{"a possible marker is held", []string{"Hi <inv", "oke name=\"f\">", "</invoke>", " ok"},
			[][]string{{`text "Hi "`}, {}, {`call f [missing_opener]`}, {`text " ok"`}, nil}},
		{"not a marker after all", []string{"a <b", " c"},
			[][]string{{`text "a "`}, {}, {`text "<b c"`}}}, // `<b c` may still become `<b c="d">`
		{"not a marker at the first impossible byte", []string{"a <b", " c!"},
			[][]string{{`text "a "`}, {`text "<b c"`, `text "!"`}, nil}},
		{"call on its closing byte", []string{"<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function", ">", "\n</tool_call>"},
			[][]string{{`start f`}, {`call f x="1" []`}, {`discard block_markup`}, nil}},
		{"split inside a multi-byte bar", []string{"<\xef\xbd", "\x9cDSML\xef\xbd\x9cinvoke name=\"f\"></\xef\xbd\x9cDSML\xef\xbd\x9cinvoke>"},
			[][]string{{}, {`call f [missing_opener]`}, nil}},
		{"parameter closer waits for what follows", []string{"<function_calls><invoke name=\"f\"><parameter name=\"a\">x</parameter>", "<", "/invoke>"},
			[][]string{{`start f`}, {}, {`call f a="x" []`}, nil}},
		{"cut at end of stream", []string{"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"b"},
			[][]string{{}, {`call f {"a": "b"}[missing_closer truncated_json closed_at_eof]`}}},
	}
	runSteps(t, Options{}, tests)
}

// TestFailedBodyThenNextBody: a JSON body that fails on the first byte of a
// chunk ends its call, and that byte starts the next body: two steps that
// take no input, which is progress, not a loop (fuzz reproducer
// 7ed4a15ba6d75664).
func TestFailedBodyThenNextBody(t *testing.T) {
	in := "<toolCAll {{"
	rec := &recorder{}
	m := New(Options{}, rec)
	for i := range in {
		m.Write([]byte(in[i : i+1]))
	}
	m.Close()
	assert.NotContains(t, rec.got, "error "+ErrNoProgress)
}

// TestRestartedBodyIsProgress: fuzz reproducers of false no-progress
// errors. A JSON body that fails on the first byte of a chunk completes the
// call's body, then that byte starts a repeated value afresh: the same
// level, but the body is done (56195fa5f6e1588a). 221971ebf9e2aff7 is the
// case of TestFailedBodyThenNextBody in an envelope list.
func TestRestartedBodyIsProgress(t *testing.T) {
	for _, in := range []string{
		"<|tool_CAll_Begin|><|tool_CAll_Argument_Begin|>{{",
		"<|tools_prefiX|>{{",
		"<｜tool▁CAll▁Begin｜><｜tool▁sep｜>{{", // 8e6150b1cfaa76b4
	} {
		rec := &recorder{}
		m := New(Options{}, rec)
		for i := range in {
			m.Write([]byte(in[i : i+1]))
		}
		m.Close()
		assert.NotContains(t, rec.got, "error "+ErrNoProgress, in)
	}
}

// stepCase is a per-chunk step test: the events each Write reports, then
// those Close reports.
type stepCase struct {
	name   string
	chunks []string
	want   [][]string // per chunk, then one more entry for Close
}

// runSteps feeds each case's chunks to a new machine with opt and checks
// what every Write and the Close report.
func runSteps(t *testing.T, opt Options, tests []stepCase) {
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			m := New(opt, rec)
			for i, c := range tc.chunks {
				rec.got = nil
				m.Write([]byte(c))
				assert.Equal(t, fmt.Sprint(tc.want[i]), fmt.Sprint(rec.got), "after chunk %d %q", i, c)
			}
			rec.got = nil
			m.Close()
			assert.Equal(t, fmt.Sprint(tc.want[len(tc.chunks)]), fmt.Sprint(rec.got), "at Close")
		})
	}
}
