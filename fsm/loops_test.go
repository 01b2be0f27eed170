package fsm

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLoopSteps feeds chunks one at a time: a call that may belong to a
// loop is held, and released with the byte that shows it is not one.
func TestLoopSteps(t *testing.T) {
	qcall := "<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>\n"
	runSteps(t, Options{}, []stepCase{
		{"an implicitly closed call waits for the closer of the next",
			[]string{"<function_calls>\n<invoke name=\"a\">\n<parameter name=\"x\">1</parameter>\n",
				"<invoke name=\"b\">\n<parameter name=\"x\">2</parameter>\n</invoke", ">", "\n</function_calls>"},
			[][]string{{`start a`}, {}, {`call a x="1" [missing_closer]`, `start b`, `call b x="2" []`}, {`discard block_markup`}, nil}},
		{"an identical repeat waits for the first byte of other text",
			[]string{qcall, qcall, " ", "D", "one."},
			[][]string{{`start f`, `call f x="1" []`, `discard block_markup`, `text "\n"`}, {`start f`}, {},
				{`call f x="1" []`, `discard block_markup`, `text "\n "`, `text "D"`}, {`text "one."`}, nil}},
		{"an identical repeat waits for the end of input",
			[]string{qcall, qcall},
			[][]string{{`start f`, `call f x="1" []`, `discard block_markup`, `text "\n"`}, {`start f`},
				{`call f x="1" []`, `discard block_markup`, `text "\n"`}}},
	})
	runSteps(t, Options{Runaway: RunawayLimits{RepeatedCalls: 2}}, []stepCase{
		{"the repeat over the limit takes the held ones into the runaway",
			[]string{qcall, qcall, qcall},
			[][]string{{`start f`, `call f x="1" []`, `discard block_markup`, `text "\n"`}, {`start f`},
				{`runaway repeated_call`, `discard after_runaway`, `discard after_runaway`, `discard after_runaway`}, nil}},
	})
}

// rawRecorder is a recorder that keeps the raw bytes of runaways too.
type rawRecorder struct {
	recorder
	raw string
}

func (r *rawRecorder) Runaway(raw []byte, reason Reason) {
	r.raw += string(raw)
	r.recorder.Runaway(raw, reason)
}

// TestLoopHoldBounds: past its bounds the hold releases its oldest call,
// and what it keeps is intact, whether it is released or folded later.
func TestLoopHoldBounds(t *testing.T) {
	opt := Options{MaxCall: 64, Runaway: RunawayLimits{OpenersWithoutCloser: 2, RepeatedCalls: 2}}
	fill := func(h *loopHold) {
		h.holdCall(&Call{Name: []byte("a"), Params: []Param{{Name: []byte("x"), Value: []byte("1")}}, Raw: []byte("A1")})
		h.Text([]byte("\n"))
		h.CallStart([]byte("b"))
		h.holdCall(&Call{Name: []byte("b"), ID: []byte("id"), Params: []Param{{Name: []byte("y"), Value: []byte("2")}}, Raw: []byte("B")})
		h.Discard([]byte("D"), DiscardBlockMarkup)
		h.holdCall(&Call{Name: []byte("c"), Args: []byte(`{"z":3}`), Raw: []byte("C")}) // a third: the first goes
	}
	rec := &rawRecorder{}
	h := newLoopHold(rec, &opt)
	fill(&h)
	assert.Equal(t, []string{`call a x="1" []`}, rec.got)
	rec.got = nil
	h.release()
	assert.Equal(t, []string{`text "\n"`, `start b`, `call b y="2" []`, `discard block_markup`, `call c {"z":3}[]`}, rec.got)
	assert.False(t, h.busy())

	rec = &rawRecorder{}
	h = newLoopHold(rec, &opt)
	fill(&h)
	rec.got = nil
	h.Runaway([]byte("R"), RunawayRepeatedCall)
	assert.Equal(t, []string{`runaway repeated_call`}, rec.got)
	assert.Equal(t, "\nBDCR", rec.raw)
	assert.Zero(t, h.holding())

	// Bytes: 2 × 64 at most. Whitespace past that releases the oldest call;
	// more whitespace than the hold may keep releases everything.
	rec = &rawRecorder{}
	h = newLoopHold(rec, &opt)
	big := strings.Repeat("x", 60)
	h.holdCall(&Call{Name: []byte("a"), Raw: []byte(big)})
	h.holdCall(&Call{Name: []byte("b"), Raw: []byte(big)})
	h.Text([]byte(strings.Repeat(" ", 20)))
	assert.Equal(t, []string{`call a []`}, rec.got)
	assert.Equal(t, 80, h.holding())
	rec.got = nil
	h.Text([]byte(strings.Repeat(" ", 200)))
	assert.Equal(t, []string{`call b []`, `text "` + strings.Repeat(" ", 20) + `"`, `text "` + strings.Repeat(" ", 200) + `"`}, rec.got)
	assert.False(t, h.busy())
}
