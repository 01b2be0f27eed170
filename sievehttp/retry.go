package sievehttp

// One chat request under a policy: the body is read once (its model picks
// the settings, its history is cleaned), then sent upstream; a bad answer
// (see badReason) that nothing of has reached the client yet is dropped
// and the request re-issued, with exponential backoff, up to the retry
// budget. The answer delivered carries X-Toolsieve-* headers, or trailers
// when its headers had to go out before it ended.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
)

// maxHeldAnswer caps the bytes of an answer held back while a retry is
// still possible; past it (or past the memory budget) the answer goes out
// as it comes.
const maxHeldAnswer = 16 << 20

// docPeak is how many times its size a whole answer takes at the peak of
// its rewriting: the rewriter collects it (in a buffer grown to up to
// twice its size), takes its content out, parses it into text and pieces
// and writes the new document. The budget reserves that much as the answer
// is read, so that an answer that would not fit is refused (503) before it
// is rewritten rather than after.
const docPeak = 7

// Retry reasons: the signals that make an answer bad.
const (
	retryRunaway     = "runaway"     // the answer was cut by a runaway
	retryRefused     = "refused"     // strict mode refused a call
	retryTruncated   = "truncated"   // a call was cut before the model finished it
	retryUnrecovered = "unrecovered" // markup meant as a call did not become one
	retryEmptyBlock  = "empty_block" // a call wrapper with no call, and no call at all
)

// badHeaderError is returned for a request whose X-Toolsieve-* headers
// cannot be read; the proxy answers it with status 400.
type badHeaderError struct{ Err error }

func (e *badHeaderError) Error() string { return "toolsieve: " + e.Err.Error() }
func (e *badHeaderError) Unwrap() error { return e.Err }

// chatExchange is one chat request under a policy, and what happened to it.
type chatExchange struct {
	api        chat.API
	policy     *Policy
	set        Settings
	opt        toolsieve.Options
	body       []byte // sent upstream on every attempt; nil when too large to hold
	model      string
	stream     bool // the request asks for a stream
	maxTokens  int64
	history    chat.HistoryResult
	choice     chat.ToolChoice // the request's tool_choice
	historyIDs int             // history call ids rewritten to the id_format
	retryBody  []byte          // the body of the next retry, with feedback (feedback.go)
	feedbacks  int             // retries sent with feedback
	pairing    chat.PairResult // what history pairing mended (pairing.go)
	askedUsage bool            // the proxy asked for the usage chunk (usage.go)
	discarded  int64           // tokens of the answers discarded for retries
	metrics    exchangeMetrics // counters labelled with the model label
	label      string          // the model label (Policy.ModelLabel)
	notify     func(*toolsieve.Event)
	mem        *budget // held answers are reserved in it
	bodyHold   hold    // the request body's share of the budget

	attempts int                 // upstream requests made
	reasons  []string            // why each retry was made
	final    *attempt            // the answer delivered, when it was rewritten
	calls    int                 // calls delivered
	repairs  map[string]int      // repairs of the calls delivered
	dialects map[string]struct{} // dialects of the calls delivered
	failure  *ExchangeError      // what ended the exchange early, if anything
}

// exchangeLimits are the proxy's bounds on an exchange.
type exchangeLimits struct {
	maxBody    int64 // largest request body held (0: maxRequestBytes)
	refuseBody bool  // a larger body is refused, not forwarded as it comes
	mem        *budget
	upstream   *url.URL // the proxy's Upstream, whose host may tell the family
}

// newChatExchange reads req's body and resolves its settings. It returns
// the request to send (the body replaced, cleaned when the settings say
// so). Errors are a body that cannot be read, a *badHeaderError or an
// *ExchangeError (body_too_large, memory_budget).
func newChatExchange(req *http.Request, api chat.API, base toolsieve.Options, pol *Policy, m *Metrics, lim exchangeLimits) (*chatExchange, *http.Request, error) {
	x := &chatExchange{api: api, policy: pol, metrics: exchangeMetrics{Metrics: m}, mem: lim.mem, bodyHold: hold{b: lim.mem}}
	out, body, err := holdBody(req, bodyLimits{max: lim.maxBody, refuse: lim.refuseBody, hold: &x.bodyHold})
	if err != nil {
		return nil, nil, err
	}
	if body == nil && out.Body != nil && out.Body != http.NoBody {
		// Too large to hold: forwarded as it comes, once, without its
		// tools, model rule or history cleaning.
		set, err := pol.resolve("", req.Header, lim.upstream)
		if err != nil {
			return nil, nil, &badHeaderError{err}
		}
		set.Retries, set.CleanHistory = 0, false
		x.set, x.opt = set, set.options(base)
		x.setLabel(pol.ModelLabel("", lim.upstream))
		return x, out, nil
	}
	cr := chat.ReadRequest(body)
	set, err := pol.resolve(cr.Model, req.Header, lim.upstream)
	if err != nil {
		x.release()
		return nil, nil, &badHeaderError{err}
	}
	x.set, x.maxTokens, x.model, x.stream = set, cr.MaxTokens, cr.Model, requestsStream(body)
	x.opt = set.options(base)
	x.setLabel(pol.ModelLabel(cr.Model, lim.upstream))
	if x.opt.Tools == nil {
		x.opt.Tools = cr.Tools
	}
	held := body
	if set.CleanHistory {
		body, x.history = chat.CleanHistory(body, api, x.opt)
		m.history(x.history)
		body = x.pairHistory(body)
	}
	body = x.formatHistory(body)
	body, x.askedUsage = askUsage(body, api, x.stream, set.Retries)
	x.opt, x.choice = choiceOptions(x.opt, cr), cr.ToolChoice
	if body == nil {
		body = []byte{}
	}
	if edited(held, body) && !x.bodyHold.grow(int64(cap(body))) {
		// The edited copy is held beside the body read (whose bytes the
		// declared tools point into): both count.
		x.release()
		return nil, nil, &ExchangeError{f: failMemoryBudget}
	}
	x.body = body
	if out == req {
		out = req.Clone(req.Context())
	}
	setBody(out, body)
	return x, out, nil
}

// edited reports whether body is a copy of held, not held itself.
func edited(held, body []byte) bool {
	return cap(body) > 0 && (cap(held) == 0 || &held[:cap(held)][cap(held)-1] != &body[:cap(body)][cap(body)-1])
}

// requestsStream reads a chat request body's "stream": true.
func requestsStream(body []byte) bool {
	ms, _ := jsonspan.Members(body, 0, nil)
	m, ok := jsonspan.Lookup(body, ms, "stream")
	return ok && string(body[m.Start:m.End]) == "true"
}

// release gives the request body's share of the budget back; once the
// exchange is over.
func (x *chatExchange) release() { x.bodyHold.free() }

// fail records what ended the exchange early, for the log and the
// metrics; not when the client went away (that is no failure upstream).
func (x *chatExchange) fail(ctx context.Context, err error, inBody bool, upstream error) error {
	if ctx.Err() != nil {
		return err
	}
	fe := asExchangeError(err, failUnreachable)
	if inBody {
		fe = bodyFailure(err, upstream)
	}
	if x.failure == nil {
		x.failure = fe
		x.metrics.failure(fe.f)
	}
	return fe
}

// stripHeaders removes the X-Toolsieve-* request headers.
func stripHeaders(h http.Header) {
	for k := range h {
		if len(k) > 12 && strings.EqualFold(k[:12], "X-Toolsieve-") {
			delete(h, k)
		}
	}
}

// roundTrip sends the request through next until an answer is good, the
// budget is spent, or part of the answer had to reach the client. An
// answer that fails (a timeout, a broken body) before anything of it went
// out is an error (an *ExchangeError); after, its body's Read returns one.
func (x *chatExchange) roundTrip(req *http.Request, next func(*http.Request) (*http.Response, error)) (_ *http.Response, err error) {
	defer func() {
		if err != nil {
			x.release()
		}
	}()
	ctx := req.Context()
	for n := 0; ; n++ {
		out := req.Clone(ctx)
		stripHeaders(out.Header)
		if x.body != nil {
			setBody(out, x.sendBody())
		}
		x.attempts++
		resp, up, err := sendWatched(out, next, x.set.upstreamTimeouts(x.stream))
		if err != nil {
			return nil, x.fail(ctx, err, false, nil)
		}
		cnt := &countingBody{ReadCloser: resp.Body, st: 1}
		var tee *teeBody
		if resp.Body != nil && resp.Body != http.NoBody {
			resp.Body, tee = x.capture(cnt, n < x.set.Retries && x.body != nil)
		}
		rw := RewriteResponse(resp, x.api, x.opt)
		if rw != nil && x.askedUsage {
			rw.DropUsageChunk()
		}
		if rw == nil { // an error status or a body that is not rewritten
			resp.Header.Set(HeaderRetriesOut, strconv.Itoa(n))
			x.pairSignals(resp.Header)
			x.usageSignals(resp.Header)
			resp.Body = &releasingBody{ReadCloser: resp.Body, x: x}
			return resp, nil
		}
		a := &attempt{x: x, n: n, resp: resp, rw: rw, cnt: cnt, up: up, hold: hold{b: x.mem}, rwHold: hold{b: x.mem},
			stream: isEventStream(resp.Header.Get("Content-Type")), tee: tee}
		if !a.stream {
			up.held, up.perByte = &a.hold, docPeak // a whole answer is held by the rewriter as it is read
		}
		rw.Notify, rw.Hold = a.event, a.fitRewriter
		canRetry := n < x.set.Retries && x.body != nil
		if err := a.gate(ctx, canRetry); err != nil {
			a.finish(false)
			return nil, err
		}
		// A loop found after one of its calls started streaming, or a
		// streamed call that lost its arguments, ends the answer with an
		// error; nothing of it went out yet, so a retry may replace it.
		if errors.Is(a.err, chat.ErrStreamedCall) && canRetry && a.done {
			a.err = nil
		}
		// A call cut before the model finished it (the answer broke off,
		// ended before its finish marker or by the token limit): asked
		// for again too, unless a timeout ended it (those are not retried).
		if a.rw.Stats().Truncated > 0 && canRetry && a.done && !isTimeout(a.err) {
			a.err = nil
		}
		if a.err != nil { // it failed before anything of it went out
			err := x.fail(ctx, a.err, true, up.err)
			a.finish(false)
			return nil, err
		}
		if reason := a.badReason(); reason != "" && canRetry && a.done {
			x.reasons = append(x.reasons, reason)
			x.metrics.retry(reason)
			x.feedback(a, reason)
			x.discard(a)
			a.finish(false)
			if err := sleepCtx(ctx, x.policy.backoff(n)); err != nil {
				return nil, err
			}
			continue
		}
		return a.deliver(ctx), nil
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// deliverEvent passes on an event of the answer delivered.
func (x *chatExchange) deliverEvent(e *toolsieve.Event) {
	if e.Type == toolsieve.ToolCall {
		x.calls++
		if x.repairs == nil {
			x.repairs, x.dialects = map[string]int{}, map[string]struct{}{}
		}
		for _, r := range e.Repairs {
			x.repairs[r]++
		}
		x.dialects[e.Dialect] = struct{}{}
		x.metrics.call(e.Dialect, e.Repairs)
	}
	if x.notify != nil {
		x.notify(e)
	}
}

// repairsValue is the X-Toolsieve-Repairs value: repair=count, sorted.
func (x *chatExchange) repairsValue() string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(x.repairs)) {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%d", k, x.repairs[k])
	}
	return b.String()
}

// attempt is one upstream answer.
type attempt struct {
	x      *chatExchange
	n      int // 0 for the first request
	resp   *http.Response
	rw     *chat.Rewriter
	cnt    *countingBody
	up     *watchedBody
	stream bool
	hold   hold // the budget's share of what this answer holds
	// rwHold is the share of a stream's rewriter buffers (its SSE
	// decoder's above all: up to twice the largest event), set to their
	// footprint after each read.
	rwHold hold
	ctx    context.Context

	buf       []byte            // rewritten output held back
	done      bool              // the rewriter reached its end
	err       error             // the read error that ended it, if not io.EOF
	committed bool              // something the client must see came out: no retry
	pending   []toolsieve.Event // events of the held output, passed on at delivery
	live      bool
	runaway   string // the runaway's reason
	finished  bool
	choice    choiceTally
	tee       *teeBody // the answer's first bytes, for feedback
}

func (a *attempt) event(e *toolsieve.Event) {
	if e.Type == toolsieve.Runaway {
		a.runaway = e.Reason.String()
	}
	a.choice.see(&a.x.choice, e)
	if a.live {
		a.x.deliverEvent(e)
	} else {
		a.pending = append(a.pending, e.Clone())
	}
}

// gate reads the rewritten answer while a retry is possible: a document to
// its end, a stream until it ends or shows something (RewriteStats.Shown;
// with HoldText, to its end). Calls do not count: they are held back with
// the rest until the end of the answer (they come at its end anyway, and a
// loop often starts with a few calls). A
// stream that cannot be retried is not held at all; a document always is,
// so that its headers carry the signals.
func (a *attempt) gate(ctx context.Context, canRetry bool) error {
	if a.stream && !canRetry {
		return nil
	}
	tmp := make([]byte, 32<<10)
	for {
		n, err := a.rw.Read(tmp)
		if n > 0 {
			fits := a.keep(tmp[:n])
			if !fits && !a.stream {
				a.done, a.err = true, &ExchangeError{f: failMemoryBudget}
				return nil
			}
			if !fits {
				// Past the budget: the stream goes out as it comes.
				a.x.metrics.budgetSpent()
			}
			if !fits || a.stream && !a.x.set.HoldText && a.rw.Stats().Shown || len(a.buf) > maxHeldAnswer {
				a.committed = true
				return nil
			}
		}
		if err == io.EOF {
			a.done = true
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			a.done, a.err = true, err
			return nil
		}
	}
}

// fitRewriter sets the stream's share of the budget to its rewriter's
// buffers (chat.Rewriter.Hold: as it reads), and fails when they do not
// fit: a large event that comes while the budget is spent ends the stream
// (memory_budget), as a whole answer that does not fit is refused.
func (a *attempt) fitRewriter(footprint int64) error {
	if a.stream && !a.rwHold.set(max(0, footprint-rewriterBase)) {
		return &ExchangeError{f: failMemoryBudget}
	}
	return nil
}

// rewriterBase is what a stream's rewriter holds whatever its events (its
// read buffer, its output, decoder arenas for a read's worth, the parsers'
// bounded state): not counted, as the connection's own buffers are not.
// What a large event grows past it is.
const rewriterBase = 256 << 10

// keep appends p to the held output, reserving the capacity it takes in
// the budget first; false when the budget cannot give it (p is kept all
// the same: one read's worth over the budget at most).
func (a *attempt) keep(p []byte) bool {
	fits := true
	if need := len(a.buf) + len(p); need > cap(a.buf) {
		c := max(need, 2*cap(a.buf))
		fits = a.hold.grow(int64(c - cap(a.buf)))
		if !fits {
			c = need
		}
		nb := make([]byte, len(a.buf), c)
		copy(nb, a.buf)
		a.buf = nb
	}
	a.buf = append(a.buf, p...)
	return fits
}

// badReason names the first signal that makes the answer bad, or "".
func (a *attempt) badReason() string {
	st := a.rw.Stats()
	switch {
	case st.Runaway:
		return retryRunaway
	case st.Refused > 0:
		return retryRefused
	case st.Truncated > 0:
		return retryTruncated
	case st.Unrecovered > 0:
		return retryUnrecovered
	case st.EmptyBlocks > 0 && st.Calls+st.Native == 0:
		return retryEmptyBlock
	case a.choiceUnmet():
		return retryToolChoice
	}
	return ""
}

// deliver makes the response that the client gets from this answer.
func (a *attempt) deliver(ctx context.Context) *http.Response {
	x := a.x
	x.final, a.ctx = a, ctx
	a.live = true
	for i := range a.pending {
		x.deliverEvent(&a.pending[i])
	}
	a.pending = nil
	resp := a.resp
	resp.Header.Set(HeaderRetriesOut, strconv.Itoa(a.n))
	x.pairSignals(resp.Header)
	x.usageSignals(resp.Header)
	if a.done {
		a.signals(resp.Header)
		if a.err == nil {
			resp.ContentLength = int64(len(a.buf))
			resp.Header.Set("Content-Length", strconv.Itoa(len(a.buf)))
		}
	} else {
		resp.Trailer = http.Header{HeaderRepairsOut: nil, HeaderRefused: nil, HeaderRunaway: nil, HeaderTruncated: nil,
			HeaderToolChoice: nil, HeaderDropped: nil}
	}
	resp.Body = &answerBody{a: a}
	return resp
}

// signals sets the X-Toolsieve-* values that describe the answer.
func (a *attempt) signals(h http.Header) {
	st := a.rw.Stats()
	if v := a.x.repairsValue(); v != "" {
		h.Set(HeaderRepairsOut, v)
	}
	if st.Refused > 0 {
		h.Set(HeaderRefused, strconv.Itoa(st.Refused))
	}
	if st.Runaway {
		h.Set(HeaderRunaway, a.runaway)
	}
	if st.Truncated > 0 {
		h.Set(HeaderTruncated, strconv.Itoa(st.Truncated))
	}
	a.choiceSignals(h)
}

// isTimeout reports an upstream timeout.
func isTimeout(err error) bool {
	var fe *ExchangeError
	return errors.As(err, &fe) && fe.Timeout()
}

// finish counts the answer in the metrics and closes it; once.
func (a *attempt) finish(delivered bool) {
	if a.finished {
		return
	}
	a.finished = true
	x := a.x
	st := a.rw.Stats()
	var saved int64
	if st.Runaway && a.stream && x.maxTokens > 0 {
		saved = max(0, x.maxTokens-a.cnt.events)
	}
	x.metrics.answer(st, a.runaway, a.cnt.n, saved)
	if delivered && x.set.Retries > 0 && a.n >= x.set.Retries && a.badReason() != "" {
		x.metrics.retriesExhausted()
	}
	if delivered {
		x.metrics.choiceDelivered(x.choice.Mode, a.choiceUnmet(), st.Dropped)
	}
	a.rw.Close()
	a.hold.free()
	a.rwHold.free()
	if delivered {
		x.release()
	}
}

// answerBody is the body of a delivered answer: the held output, then the
// rest of the rewriter's. At its end the trailers get their values.
type answerBody struct {
	a   *attempt
	off int
}

func (b *answerBody) Read(p []byte) (int, error) {
	a := b.a
	if b.off < len(a.buf) {
		n := copy(p, a.buf[b.off:])
		b.off += n
		return n, nil
	}
	if a.done {
		if a.err != nil {
			return 0, a.err
		}
		a.finish(true)
		return 0, io.EOF
	}
	n, err := a.rw.Read(p)
	if err != nil {
		a.done = true
		if !errors.Is(err, io.EOF) {
			err = a.x.fail(a.ctx, err, true, a.up.err)
			if fe, ok := err.(*ExchangeError); ok && a.rw.Stats().UpstreamError {
				fe.told = true // the upstream's own error event went out
			}
			a.err = err
		}
		if a.resp.Trailer != nil {
			a.signals(a.resp.Trailer)
		}
		if a.err == nil {
			a.finish(true)
		}
	}
	return n, err
}

func (b *answerBody) Close() error {
	b.a.finish(true)
	return nil
}

// releasingBody is a response body that ends its exchange when closed.
type releasingBody struct {
	io.ReadCloser
	x *chatExchange
}

func (b *releasingBody) Close() error {
	b.x.release()
	return b.ReadCloser.Close()
}

// countingBody counts the bytes read from an upstream body and the SSE
// data lines among them (about one per generated token in most streams).
type countingBody struct {
	io.ReadCloser
	n, events int64
	st        int // bytes of "\ndata:" matched so far (1: at a line start)
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n += int64(n)
	c.count(p[:n])
	return n, err
}

// count advances the match of "\ndata:" over p, jumping from one newline
// to the next: most bytes of a stream are inside data lines.
func (c *countingBody) count(p []byte) {
	const pat = "\ndata:"
	for len(p) > 0 {
		if c.st == 0 {
			i := bytes.IndexByte(p, '\n')
			if i < 0 {
				return
			}
			p, c.st = p[i+1:], 1
			continue
		}
		switch b := p[0]; {
		case b == pat[c.st]:
			c.st++
			if c.st == len(pat) {
				c.events++
				c.st = 0
			}
		case b == '\n':
			c.st = 1
		default:
			c.st = 0
		}
		p = p[1:]
	}
}
