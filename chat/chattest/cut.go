package chattest

// Cut streams: what a client should see of an upstream stream cut at a
// byte (the connection closed cleanly, reset or stalled there), for tests
// of the rewriter and of the proxy.

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/sse"
)

// StreamEvent is one event of a stream built by this package, as a cut
// sees it.
type StreamEvent struct {
	Start, End int // its bytes in the stream
	// DataEnd is where its data ends: a cut at or after it delivers the
	// event (a cut before it tears it).
	DataEnd int
	Text    string // the content it carries
	// Natural: the model's own end is known (finish_reason stop,
	// message_delta end_turn, response.completed).
	Natural bool
	// Ended: the finish marker, the answer is whole (a finish_reason,
	// [DONE], message_stop, the final Responses event).
	Ended bool
}

// StreamEvents reads a stream of api built by this package (one data line
// per event) into its events.
func StreamEvents(t testing.TB, api chat.API, stream []byte) []StreamEvent {
	var d sse.Decoder
	evs, _ := d.Feed(stream)
	var out []StreamEvent
	for _, ev := range evs {
		i := bytes.Index(ev.Raw, []byte("data: "))
		require.GreaterOrEqual(t, i, 0)
		u := StreamEvent{Start: int(ev.Offset), End: int(ev.Offset) + len(ev.Raw), DataEnd: int(ev.Offset) + i + 6 + len(ev.Data)}
		if string(ev.Data) == "[DONE]" {
			u.Ended = true
			out = append(out, u)
			continue
		}
		var e struct {
			Type    string
			Delta   json.RawMessage
			Choices []struct {
				Delta struct {
					Content string
				}
				FinishReason *string `json:"finish_reason"`
			}
		}
		require.NoError(t, json.Unmarshal(ev.Data, &e))
		switch api {
		case chat.APIOpenAI:
			if len(e.Choices) > 0 {
				u.Text = e.Choices[0].Delta.Content
				if f := e.Choices[0].FinishReason; f != nil {
					u.Natural, u.Ended = *f == "stop", true
				}
			}
		case chat.APIAnthropic:
			switch e.Type {
			case "content_block_delta":
				var dt struct{ Text string }
				require.NoError(t, json.Unmarshal(e.Delta, &dt))
				u.Text = dt.Text
			case "message_delta":
				u.Natural = true // end_turn
			case "message_stop":
				u.Ended = true
			}
		default:
			switch e.Type {
			case "response.output_text.delta":
				require.NoError(t, json.Unmarshal(e.Delta, &u.Text))
			case "response.completed":
				u.Natural, u.Ended = true, true
			}
		}
		out = append(out, u)
	}
	return out
}

// CutPositions are the bytes of a stream to cut it at: in every event, its
// first bytes, inside its data, the last byte of its data, right after it
// (the data whole, its line not ended), after its line end (the blank line
// missing), and its end.
func CutPositions(evs []StreamEvent) []int {
	var ks []int
	for _, e := range evs {
		mid := (e.Start + e.DataEnd) / 2
		for _, k := range []int{e.Start, e.Start + 1, e.Start + 4, mid, e.DataEnd - 1, e.DataEnd, e.DataEnd + 1, e.End - 1, e.End} {
			if len(ks) == 0 || k > ks[len(ks)-1] {
				ks = append(ks, k)
			}
		}
	}
	return ks
}

// CutView is what a client should see of a stream cut at a byte: the
// parser's reading of the content delivered, where a call the end of the
// content closed is the model's only when its own end came first.
type CutView struct {
	Calls     []Call   // the calls handed on
	Text      string   // the text, with the markup of a cut call that did not start to stream
	Segments  []string // Text split at the calls
	CutName   string   // the call cut while it streamed, "" if none
	Ended     bool     // the finish marker was delivered
	Natural   bool     // the model's own end was delivered
	Truncated int      // the calls the cut ended
	Content   string   // the content delivered
}

// ExpectCut is the view of the stream whose events are evs, cut at byte k,
// rewritten with opt.
func ExpectCut(evs []StreamEvent, k int, opt toolsieve.Options) CutView {
	var v CutView
	var content strings.Builder
	for _, e := range evs {
		if e.DataEnd > k {
			break
		}
		content.WriteString(e.Text)
		v.Natural = v.Natural || e.Natural
		v.Ended = v.Ended || e.Ended
	}
	v.Content = content.String()
	started := map[int]string{} // calls whose start went out before the end, by index
	for _, e := range toolsieve.NewParser(opt).Feed([]byte(v.Content)) {
		if e.Type == toolsieve.ToolCallStart {
			started[e.Index] = e.Name
		}
	}
	seg := ""
	pevs := toolsieve.Parse([]byte(v.Content), opt)
	var back map[int]string // calls that started to stream and were given back
	if opt.StreamCalls && !v.Natural {
		// A call that started to stream and then was given back as text
		// (the end cut its last value): the cut ends it as it went out.
		back = maps.Clone(started)
		for _, e := range pevs {
			if e.Type == toolsieve.ToolCall {
				delete(back, e.Index)
			}
		}
		for _, name := range back {
			v.Truncated++
			v.CutName = name
		}
	}
	gaveBack := map[string]int{} // the calls counted above, by name
	if opt.StreamCalls && !v.Natural {
		for i, name := range started {
			if !slices.ContainsFunc(pevs, func(e toolsieve.Event) bool { return e.Type == toolsieve.ToolCall && e.Index == i }) {
				gaveBack[name]++
			}
		}
	}
	for _, e := range pevs {
		switch e.Type {
		case toolsieve.Error:
			// A call the end cut inside a value (or right after its
			// name) is text; the answer's cut makes it truncated, once.
			if e.Reason == toolsieve.ReasonCutAtEOF && !v.Natural {
				if gaveBack[e.Name] > 0 {
					gaveBack[e.Name]--
				} else {
					v.Truncated++
				}
			}
		case toolsieve.ToolCallStart:
			if _, ok := back[e.Index]; ok {
				// Its start went out and ended the text before it (blank
				// text there was dropped); its markup comes back after.
				v.Segments = append(v.Segments, seg)
				seg = ""
			}
		case toolsieve.Text:
			v.Text += string(e.Text)
			seg += string(e.Text)
		case toolsieve.ToolCall:
			if e.HasRepair("closed_at_eof") && !v.Natural {
				v.Truncated++
				if _, ok := started[e.Index]; opt.StreamCalls && ok {
					v.CutName = e.Name
					continue
				}
				v.Text += string(e.Raw)
				seg += string(e.Raw)
				continue
			}
			v.Calls = append(v.Calls, Call{Name: e.Name, Args: string(argsOf(&e))})
			v.Segments = append(v.Segments, seg)
			seg = ""
		}
	}
	v.Segments = append(v.Segments, seg)
	return v
}

// CheckCut checks the client's view of a rewritten stream of api that the
// upstream cut: the output ends with a whole event, the calls and the text
// are want's, a call cut while it streamed keeps arguments that are not a
// JSON object (nothing closed them). It returns the stream put together
// (its Errors are the error events it ends with).
func CheckCut(t testing.TB, api chat.API, out []byte, want CutView, msg string) Response {
	t.Helper()
	if len(out) > 0 {
		require.True(t, bytes.HasSuffix(out, []byte("\n\n")), "%s: output ends inside an event: %q", msg, out[max(0, len(out)-80):])
	}
	var got Response
	switch api {
	case chat.APIOpenAI:
		got = AccumulateOpenAI(t, out)
	case chat.APIAnthropic:
		got = AccumulateAnthropic(t, out)
	default:
		got = AccumulateResponsesCut(t, out)
	}
	calls := got.Calls
	if want.CutName != "" {
		require.NotEmpty(t, calls, "%s: the cut call", msg)
		last := calls[len(calls)-1]
		require.Equal(t, want.CutName, last.Name, msg)
		require.False(t, json.Valid([]byte(last.Args)), "%s: the cut call's arguments were completed: %s", msg, last.Args)
		calls = calls[:len(calls)-1]
	}
	SameCalls(t, want.Calls, calls, msg)
	switch api {
	case chat.APIOpenAI:
		if !(got.Text == "" && strings.TrimSpace(want.Text) == "") {
			require.Equal(t, want.Text, got.Text, "%s: text", msg)
		}
	default:
		require.Equal(t, NonBlank(want.Segments), NonBlank(got.Segments), "%s: text", msg)
	}
	return got
}
