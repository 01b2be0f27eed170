package sievehttp

// Usage of every attempt (issue 29): the tokens of answers that were
// discarded for a retry are counted (metrics, X-Toolsieve-Discarded-Tokens);
// to know them for OpenAI chat streams, the proxy asks for the usage chunk
// (stream_options.include_usage) when the client did not, and keeps that
// chunk from the client. The usage the client receives is the final
// attempt's.

import (
	"net/http"
	"strconv"

	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
)

// HeaderDiscardedTokens is the number of tokens the answers discarded for
// retries cost (as they reported them; see discardedTokens).
const HeaderDiscardedTokens = "X-Toolsieve-Discarded-Tokens"

// askUsage adds stream_options.include_usage to an OpenAI chat stream
// request that may be retried and did not set it, and reports whether it
// did.
func askUsage(body []byte, api chat.API, stream bool, retries int) ([]byte, bool) {
	if api != chat.APIOpenAI || !stream || retries == 0 {
		return body, false
	}
	ms, ok := jsonspan.Members(body, 0, nil)
	if !ok {
		return body, false
	}
	end := len(body)
	for end > 0 && jsonspan.IsSpace(body[end-1]) {
		end--
	}
	var edit jsonspan.Edit
	so, has := jsonspan.Lookup(body, ms, "stream_options")
	switch {
	case !has:
		edit = jsonspan.InsertMember(ms, end, "stream_options", []byte(`{"include_usage":true}`))
	case body[so.Start] == '{':
		oms, ok := jsonspan.Members(body, so.Start, nil)
		if !ok {
			return body, false
		}
		if _, set := jsonspan.Lookup(body, oms, "include_usage"); set {
			return body, false // the client's choice
		}
		edit = jsonspan.InsertMember(oms, so.End, "include_usage", []byte("true"))
	default:
		return body, false
	}
	return jsonspan.Spliced(body, []jsonspan.Edit{edit}), true
}

// discard counts the tokens of an answer dropped for a retry: the usage it
// reported; for a stream cut by a runaway (before its final usage came),
// the input tokens it reported at its start (Anthropic) and its SSE data
// events as an estimate of its output tokens.
func (x *chatExchange) discard(a *attempt) {
	st := a.rw.Stats()
	var in, out, est int64
	switch {
	case a.stream && (st.Runaway || !st.Usage.Seen):
		in, est = st.Usage.Input, a.cnt.events
	default:
		in, out = st.Usage.Input, st.Usage.Output
	}
	x.discarded += in + out + est
	x.metrics.discardedTokens(in, out, est)
}

// usageSignals sets X-Toolsieve-Discarded-Tokens: always a header, as the
// discarded answers came before the one delivered.
func (x *chatExchange) usageSignals(h http.Header) {
	if x.discarded > 0 {
		h.Set(HeaderDiscardedTokens, strconv.FormatInt(x.discarded, 10))
	}
}

// discardedTokens counts the tokens of a discarded answer.
func (m *Metrics) discardedTokens(in, out, est int64) {
	if in+out+est == 0 || !m.lock() {
		return
	}
	if m.choice.discarded == nil {
		m.choice.discarded = map[string]uint64{}
	}
	m.choice.discarded["input"] += uint64(in)
	m.choice.discarded["output"] += uint64(out)
	m.choice.discarded["output_estimate"] += uint64(est)
	m.mu.Unlock()
}
