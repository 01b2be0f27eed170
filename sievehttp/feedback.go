package sievehttp

// Feedback retries (issue 29): with retry_feedback, the request of a retry
// carries the model's failed answer and one short message, in the
// request's API shape, that names what was wrong: the tool and the missing
// or ill-typed argument, markup that could not be read, a runaway, an
// unmet tool_choice. The client's own messages are never altered: the two
// turns are added after them. See docs/policy.md, "Feedback retries".

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
)

// Feedback message kinds. Their texts may hold {tool} (the tool called or
// named), {args} (argument names, comma-separated) and {tools} (the
// declared tools).
const (
	FeedbackMissingRequired = "missing_required"     // a call lacks required arguments
	FeedbackSchemaMismatch  = "schema_mismatch"      // a call's argument has the wrong type
	FeedbackUndeclaredTool  = "undeclared_tool"      // a call to a tool that was not declared
	FeedbackMarkup          = "markup"               // call markup that could not be read
	FeedbackTruncated       = "truncated"            // a call cut before it was complete
	FeedbackRunaway         = "runaway"              // the answer looped
	FeedbackRequired        = "tool_choice_required" // no call where one was required
	FeedbackNamed           = "tool_choice_tool"     // not the call to the tool named
)

// defaultFeedback are the texts of the feedback messages.
var defaultFeedback = map[string]string{
	FeedbackMissingRequired: "Your call to {tool} lacks the required argument {args}. Call {tool} again with every required argument.",
	FeedbackSchemaMismatch:  "Your call to {tool} gives {args} a value of the wrong type. Call {tool} again with the types its schema declares.",
	FeedbackUndeclaredTool:  "There is no tool named {tool}. Call one of these tools: {tools}.",
	FeedbackMarkup:          "Your tool call was written as text and could not be read. Write tool calls as native calls.",
	FeedbackTruncated:       "Your tool call was cut off before it was complete. Write the call again, complete and shorter.",
	FeedbackRunaway:         "Your answer kept repeating itself and was stopped. Stop repeating: make each call once.",
	FeedbackRequired:        "You must call a tool to answer. Write the tool call as a native call.",
	FeedbackNamed:           "You must call the tool {tool}, and no other. Write the call as a native call.",
}

// FeedbackKinds returns the kinds of feedback messages, sorted.
func FeedbackKinds() []string { return slices.Sorted(maps.Keys(defaultFeedback)) }

// FeedbackText returns the default text of a kind of feedback message.
func FeedbackText(kind string) string { return defaultFeedback[kind] }

func validFeedback(m map[string]string) error {
	for k, v := range m {
		if _, ok := defaultFeedback[k]; !ok {
			return fmt.Errorf("unknown message kind %q (known: %s)", k, strings.Join(FeedbackKinds(), ", "))
		}
		if strings.TrimSpace(v) == "" {
			return fmt.Errorf("message %q is empty", k)
		}
	}
	return nil
}

// maxFeedbackAnswer caps the failed answer a retry carries (its start);
// maxFeedbackCapture caps the upstream bytes kept to find it in.
const (
	maxFeedbackAnswer  = 8 << 10
	maxFeedbackCapture = 256 << 10
)

// teeBody keeps the first bytes of an upstream answer, to give them back to
// the model in a feedback retry.
type teeBody struct {
	io.ReadCloser
	kept []byte
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	if room := maxFeedbackCapture - len(t.kept); room > 0 {
		t.kept = append(t.kept, p[:min(n, room)]...)
	}
	return n, err
}

// capture wraps the body of an answer that a feedback retry may follow.
func (x *chatExchange) capture(body io.ReadCloser, canRetry bool) (io.ReadCloser, *teeBody) {
	if !x.set.RetryFeedback || !canRetry || body == nil {
		return body, nil
	}
	t := &teeBody{ReadCloser: body}
	return t, t
}

// sendBody is the body of the next upstream request.
func (x *chatExchange) sendBody() []byte {
	if x.retryBody != nil {
		return x.retryBody
	}
	return x.body
}

// feedback makes the body of the retry that follows the failed answer a:
// the request's own body with the answer and the message added.
func (x *chatExchange) feedback(a *attempt, reason string) {
	if a.tee == nil {
		return
	}
	msg, kinds := a.feedbackMessage(reason)
	answer := chat.AnswerText(a.tee.kept, x.api, maxFeedbackAnswer)
	body, ok := chat.AppendTurns(x.body, x.api, answer, []byte(msg))
	if !ok {
		return
	}
	x.retryBody = body
	x.feedbacks++
	x.metrics.feedbackSent(kinds)
}

// feedbackMessage says what was wrong with the answer, from its events and
// the retry's reason; kinds are the message kinds used.
func (a *attempt) feedbackMessage(reason string) (string, []string) {
	x := a.x
	var lines, kinds []string
	add := func(kind, tool string, args []string) {
		text := defaultFeedback[kind]
		if t, ok := x.policy.feedbackText(kind); ok {
			text = t
		}
		var tools string
		if x.opt.Tools.Len() > 0 {
			tools = strings.Join(x.opt.Tools.Names(), ", ")
		}
		text = strings.NewReplacer("{tool}", tool, "{args}", strings.Join(args, ", "), "{tools}", tools).Replace(text)
		if !slices.Contains(lines, text) {
			lines, kinds = append(lines, text), append(kinds, kind)
		}
	}
	for i := range a.pending {
		e := &a.pending[i]
		switch {
		case e.Type == toolsieve.ToolCall:
			missing, mistyped := x.opt.Tools.Problems(e.Name, e.Arguments)
			if len(missing) > 0 {
				add(FeedbackMissingRequired, e.Name, missing)
			}
			if len(mistyped) > 0 {
				add(FeedbackSchemaMismatch, e.Name, mistyped)
			}
		case e.Type == toolsieve.Runaway:
			add(FeedbackRunaway, "", nil)
		case e.Type != toolsieve.Error:
		case e.Reason == toolsieve.ReasonRefused && slices.Contains(e.Repairs, FeedbackMissingRequired):
			var required []string
			if t, ok := x.opt.Tools.Lookup(e.Name); ok {
				required = t.Required
			}
			add(FeedbackMissingRequired, e.Name, required)
		case e.Reason == toolsieve.ReasonUndeclaredTool:
			add(FeedbackUndeclaredTool, e.Name, nil)
		case e.Reason == toolsieve.ReasonTruncated:
			add(FeedbackTruncated, e.Name, nil)
		case e.Reason == toolsieve.ReasonRefused:
			add(FeedbackMarkup, e.Name, nil)
		}
	}
	switch reason {
	case retryRunaway:
		add(FeedbackRunaway, "", nil)
	case retryTruncated:
		add(FeedbackTruncated, "", nil)
	case retryToolChoice:
		if x.choice.Mode == chat.ChoiceTool {
			add(FeedbackNamed, x.choice.Name, nil)
		} else {
			add(FeedbackRequired, "", nil)
		}
	}
	if len(lines) == 0 { // unrecovered markup, an empty call block
		add(FeedbackMarkup, "", nil)
	}
	return strings.Join(lines, "\n"), kinds
}

// feedbackText returns the operator's text for a kind, if any.
func (p *Policy) feedbackText(kind string) (string, bool) {
	if p == nil {
		return "", false
	}
	t, ok := p.Feedback[kind]
	return t, ok
}

// feedbackSent counts a feedback retry's message kinds.
func (m *Metrics) feedbackSent(kinds []string) {
	if !m.lock() {
		return
	}
	if m.choice.feedback == nil {
		m.choice.feedback = map[string]uint64{}
	}
	for _, k := range kinds {
		m.choice.feedback[k]++
	}
	m.mu.Unlock()
}
