package sievehttp

// What a request asks of its answer's calls (issue 28): tool_choice (none,
// required, a named tool), parallel calls turned off, and call ids in the
// format the provider accepts. See docs/policy.md, "Tool choice".

import (
	"crypto/sha256"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
)

// Response headers (trailers for streams whose headers went out first).
const (
	// HeaderToolChoice is "unmet" when the answer delivered has no call
	// though tool_choice required one (or one to a named tool), or calls
	// another tool than the one named.
	HeaderToolChoice = "X-Toolsieve-Tool-Choice"
	// HeaderDropped is the number of calls not passed on because the
	// request turned parallel calls off.
	HeaderDropped = "X-Toolsieve-Dropped"
)

// retryToolChoice is the retry reason of an answer that does not meet its
// request's tool_choice.
const retryToolChoice = "tool_choice"

// IDFormatMistral is the id_format of nine alphanumerics (Mistral's
// endpoints refuse other call ids).
const IDFormatMistral = "mistral"

// validIDFormat checks an id_format: "mistral" or a prefix of up to 32
// letters, digits, '_' and '-'.
func validIDFormat(f string) error {
	if f == "" || f == IDFormatMistral {
		return nil
	}
	if len(f) > 32 {
		return errors.New("id_format: a prefix is at most 32 bytes")
	}
	for i := 0; i < len(f); i++ {
		if c := f[i]; !isAlnum(c) && c != '_' && c != '-' {
			return errors.New("id_format: " + strconv.Quote(f) + " (want \"mistral\" or a prefix of letters, digits, '_' and '-')")
		}
	}
	return nil
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// idOptions sets the parser's id options for s.IDFormat.
func (s *Settings) idOptions(o *toolsieve.Options) {
	switch s.IDFormat {
	case "":
	case IDFormatMistral:
		o.CallID = mistralID
	default:
		o.IDPrefix = s.IDFormat
	}
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// mistralID makes a random id of nine alphanumerics.
func mistralID(int) string {
	var b [9]byte
	for i := range b {
		b[i] = alnum[rand.IntN(len(alnum))]
	}
	return string(b[:])
}

// mistralFormat accepts nine alphanumerics and makes them from a digest
// of any other id, so that a call and its result, and the same history in
// the next request, get the same new id.
var mistralFormat = chat.IDFormat{
	Valid: func(id []byte) bool {
		if len(id) != 9 {
			return false
		}
		for _, c := range id {
			if !isAlnum(c) {
				return false
			}
		}
		return true
	},
	From: func(id []byte) string {
		sum := sha256.Sum256(id)
		var b [9]byte
		for i := range b {
			b[i] = alnum[int(sum[i])%len(alnum)]
		}
		return string(b[:])
	},
}

// formatHistory rewrites the history's call ids that the rule's id_format
// refuses (only "mistral" refuses any).
func (x *chatExchange) formatHistory(body []byte) []byte {
	if x.set.IDFormat != IDFormatMistral {
		return body
	}
	body, x.historyIDs = chat.FormatHistoryIDs(body, x.api, mistralFormat)
	return body
}

// choiceOptions returns the parser options for the answer to request cr:
// tool_choice none reads no call, a named tool is declared when the
// request declared none (so that the dialects that need declared tools
// read its calls, and calls to other names stay text), parallel calls
// off pass on one call.
func choiceOptions(opt toolsieve.Options, cr chat.Request) toolsieve.Options {
	switch cr.ToolChoice.Mode {
	case chat.ChoiceNone:
		opt.NoCalls = true
	case chat.ChoiceTool:
		if opt.Tools.Len() == 0 {
			q := strconv.Quote(cr.ToolChoice.Name)
			if t, err := toolsieve.ParseTools([]byte(`[{"name":` + q + `}]`)); err == nil {
				opt.Tools = t
			}
		}
	}
	if cr.NoParallel {
		opt.MaxCalls = 1
	}
	return opt
}

// choiceTally counts an answer's calls for its tool_choice.
type choiceTally struct {
	calls int // calls passed on (recovered, or native with markup arguments)
	other int // of those, calls to another tool than the one named
}

func (c *choiceTally) see(want *chat.ToolChoice, e *toolsieve.Event) {
	if e.Type != toolsieve.ToolCall {
		return
	}
	c.calls++
	if want.Mode == chat.ChoiceTool && e.Name != want.Name {
		c.other++
	}
}

// choiceUnmet reports an answer that does not meet the request's
// tool_choice: required and no call at all; a named tool and a call to
// another, or no call. Native calls of the upstream count as calls (their
// names are the upstream's business).
func (a *attempt) choiceUnmet() bool {
	st := a.rw.Stats()
	switch a.x.choice.Mode {
	case chat.ChoiceRequired:
		return a.choice.calls == 0 && !st.UpstreamCalls
	case chat.ChoiceTool:
		return a.choice.other > 0 || a.choice.calls == 0 && !st.UpstreamCalls
	}
	return false
}

// choiceSignals sets X-Toolsieve-Tool-Choice and X-Toolsieve-Dropped.
func (a *attempt) choiceSignals(h http.Header) {
	if a.choiceUnmet() {
		h.Set(HeaderToolChoice, "unmet")
	}
	if n := a.rw.Stats().Dropped; n > 0 {
		h.Set(HeaderDropped, strconv.Itoa(n))
	}
}

// choiceAttrs are the log attributes of the answer delivered.
func (a *attempt) choiceAttrs() []slog.Attr {
	var attrs []slog.Attr
	if a.x.choice.Mode != chat.ChoiceAuto {
		attrs = append(attrs, slog.String("tool_choice", a.x.choice.Mode.String()))
		if a.choiceUnmet() {
			attrs = append(attrs, slog.Bool("tool_choice_unmet", true))
		}
	}
	if n := a.rw.Stats().Dropped; n > 0 {
		attrs = append(attrs, slog.Int("dropped", n))
	}
	if n := a.x.historyIDs; n > 0 {
		attrs = append(attrs, slog.Int("history_ids", n))
	}
	if n := a.x.feedbacks; n > 0 {
		attrs = append(attrs, slog.Int("retry_feedback", n))
	}
	attrs = append(attrs, a.x.pairAttrs()...)
	if n := a.x.discarded; n > 0 {
		attrs = append(attrs, slog.Int64("discarded_tokens", n))
	}
	return attrs
}

// choiceCounters are the metrics of tool_choice and parallel calls.
type choiceCounters struct {
	unmet   map[string]uint64 // answers delivered unmet, by tool_choice mode
	dropped uint64            // calls dropped
	// feedback counts feedback retries by message kind (feedback.go).
	feedback map[string]uint64
	// pairing counts history pairing's mends by action (pairing.go).
	pairing map[string]uint64
	// discarded counts the tokens of discarded answers (usage.go).
	discarded map[string]uint64
}

// choiceDelivered counts the answer delivered.
func (m *Metrics) choiceDelivered(mode chat.ChoiceMode, unmet bool, dropped int) {
	if (!unmet && dropped == 0) || !m.lock() {
		return
	}
	if unmet {
		if m.choice.unmet == nil {
			m.choice.unmet = map[string]uint64{}
		}
		m.choice.unmet[mode.String()]++
	}
	m.choice.dropped += uint64(dropped)
	m.mu.Unlock()
}

// writeChoice writes the counters (with m locked).
func (m *Metrics) writeChoice(family func(name, typ, help string), byLabel func(name, label string, c map[string]uint64, always ...string), sample func(name string, v uint64, labels ...string)) {
	family("toolsieve_tool_choice_unmet_total", "counter", "Answers delivered that did not meet the request's tool_choice (no call where one was required, or a call to another tool than the one named), by tool_choice.")
	byLabel("toolsieve_tool_choice_unmet_total", "tool_choice", m.choice.unmet, "required", "tool")
	family("toolsieve_parallel_calls_dropped_total", "counter", "Calls not passed on because the request turned parallel calls off (parallel_tool_calls false, disable_parallel_tool_use).")
	sample("toolsieve_parallel_calls_dropped_total", m.choice.dropped)
	family("toolsieve_retry_feedback_total", "counter", "Feedback messages sent with retries (retry_feedback), by kind.")
	byLabel("toolsieve_retry_feedback_total", "kind", m.choice.feedback)
	family("toolsieve_history_orphans_total", "counter", "Orphaned native calls and results in request histories mended before they went upstream, by action: calls_restored, calls_dropped, results_dropped.")
	byLabel("toolsieve_history_orphans_total", "action", m.choice.pairing, "calls_restored", "calls_dropped", "results_dropped")
	family("toolsieve_discarded_tokens_total", "counter", "Tokens of upstream answers discarded for a retry, by kind: input and output as the answers reported them, output_estimate (SSE data events) for streams cut before their usage came.")
	byLabel("toolsieve_discarded_tokens_total", "kind", m.choice.discarded, "input", "output", "output_estimate")
}
