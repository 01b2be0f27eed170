package sievehttp

// The proxy: an http.Handler that forwards every request to an upstream
// OpenAI- or Anthropic-compatible server and rewrites its chat responses.

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
)

// Proxy forwards every request to Upstream with the request path appended
// unchanged (Upstream https://api.deepseek.com, request /v1/chat/completions:
// https://api.deepseek.com/v1/chat/completions). Chat responses, streamed or
// not, come back rewritten as Transport does; everything else, including
// errors from the upstream, passes through unchanged. GET /healthz is
// answered by the proxy itself (200, {"status":"ok"}), as is GET /metrics
// when Metrics is set.
//
// A client that goes away cancels the upstream request; a runaway closes the
// upstream body and ends the client's stream cleanly. Policy decides per
// request (and per model) the dialects, strict or lenient handling of
// repaired calls, retries of bad answers, the cleaning of leaked markup in
// the request's history and the upstream timeouts (see Policy and
// docs/policy.md); X-Toolsieve-* request headers may tighten it and are not
// forwarded. Chat responses carry X-Toolsieve-Retries, X-Toolsieve-Repairs,
// X-Toolsieve-Refused and X-Toolsieve-Runaway headers (trailers for streams
// whose headers went out before the answer ended).
//
// What the proxy itself refuses or cannot complete comes back in the API's
// own error shape (OpenAI's, or Anthropic's on …/messages paths): a body
// over MaxRequestBytes (413), the memory budget spent (503 with
// Retry-After), an upstream that cannot be reached (502) or sends no
// headers in time (504); a stream already under way that times out, breaks
// off or carries an event over the size limit ends with an error event.
// A call cut before the model finished it (the upstream broke off, ended
// before its finish marker or by the token limit) is never handed on as a
// call, only whole upstream events are passed on, and every way an
// upstream body can end gives the client one error in its API's shape;
// error messages name no address. Paths with a ".." segment get 400,
// CONNECT and TRACE 405; with ClientKeys, requests without a key 401.
// Logs never contain request headers, query strings or bodies, so API keys
// stay out of them. User information in Upstream is sent as Basic
// authentication on requests that carry no Authorization header (as
// net/http does for such URLs).
type Proxy struct {
	// Upstream is the base URL requests are forwarded to.
	Upstream *url.URL
	// Options configure the parsers; the tools declared in each request
	// are used unless Options.Tools is set.
	Options toolsieve.Options
	// Transport makes the upstream requests; nil means a transport from
	// NewUpstreamTransport, made once.
	Transport http.RoundTripper
	// Logger receives one record per request and the proxy's errors; nil
	// means slog.Default().
	Logger *slog.Logger
	// Policy decides settings per request; nil is lenient, without
	// retries, built-in family rules or history cleaning.
	Policy *Policy
	// Metrics, when set, counts what the proxy does and is served on
	// GET /metrics (which is then not forwarded).
	Metrics *Metrics
	// MemoryBudget bounds the bytes held across all requests in flight:
	// request bodies, answers held while a retry is possible, whole
	// answers read for rewriting. 0 means DefaultMemoryBudget; negative,
	// no bound. Past it a held stream goes out as it comes, and a request
	// body or whole answer that does not fit gets 503 with Retry-After.
	MemoryBudget int64
	// MaxRequestBytes is the largest request body taken (0:
	// DefaultMaxRequestBytes); a larger one gets 413.
	MaxRequestBytes int64
	// ClientWriteTimeout drops a client that takes none of its answer's
	// bytes for this long (the upstream request is cancelled); 0 means
	// DefaultClientWriteTimeout, negative never.
	ClientWriteTimeout time.Duration
	// ClientKeys, when set, are the keys every request but GET /healthz
	// must present (see ClientKeys); without one it gets 401.
	ClientKeys *ClientKeys
	// ReadyTimeout bounds the wait for the upstreams' answers to the
	// probes of GET /readyz (0: DefaultReadyTimeout); ReadyCache is how
	// long their result is kept for the next probes (0:
	// DefaultReadyCache; negative: not kept).
	ReadyTimeout, ReadyCache time.Duration
	// CaptureDir, when set, is where each chat exchange is saved: its
	// request, the upstream's answer as received and the client's (see
	// capture.go), for toolsieve rewrite --policy to replay.
	CaptureDir string

	once  sync.Once
	rt    http.RoundTripper
	mem   *budget
	ready readiness
}

// MemoryHeld returns the bytes of the memory budget in use and the budget
// (0, 0 when unbounded).
func (p *Proxy) MemoryHeld() (held, budget int64) {
	p.once.Do(p.init)
	return p.mem.inUse()
}

// DefaultClientWriteTimeout is Proxy.ClientWriteTimeout's default.
const DefaultClientWriteTimeout = 60 * time.Second

// LogValue makes a logged proxy its upstream, without user info or query
// (which may hold keys).
func (p *Proxy) LogValue() slog.Value { return slog.StringValue(redactURL(p.Upstream)) }

// NewProxy returns a proxy to upstream.
func NewProxy(upstream *url.URL, opt toolsieve.Options) *Proxy {
	return &Proxy{Upstream: upstream, Options: opt}
}

func (p *Proxy) logger() *slog.Logger {
	if p.Logger != nil {
		return p.Logger
	}
	return slog.Default()
}

// init makes the transport and the budget, once.
func (p *Proxy) init() {
	p.rt = p.Transport
	if p.rt == nil {
		p.rt = NewUpstreamTransport()
	}
	p.mem = newBudget(p.MemoryBudget)
	p.Metrics.setBudget(p.mem)
	p.Metrics.SetModels(p.Policy.ModelLabels())
}

// exchangeLog collects what one request did, for its log record.
type exchangeLog struct {
	api      chat.API
	chat     bool
	status   int
	ex       *chatExchange
	up       *watchedBody   // the upstream body of a request passed through
	refused  *ExchangeError // a request the proxy did not forward
	err      error
	upstream string // the name of the upstream the request went to
	label    string // the model label of the metrics
}

// ServeHTTP implements http.Handler.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.once.Do(p.init)
	get := r.Method == http.MethodGet || r.Method == http.MethodHead
	if get && r.URL.Path == "/healthz" {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet {
			io.WriteString(w, `{"status":"ok"}`)
		}
		return
	}
	clientStyle := clientKeyStyle(r.Header) // before admit takes a client key out
	keyed := p.ClientKeys == nil || p.ClientKeys.admit(r.Header)
	if get && r.URL.Path == "/readyz" {
		p.serveReady(w, r, keyed)
		return
	}
	if keyed && get && p.Metrics != nil && r.URL.Path == "/metrics" {
		p.Metrics.ServeHTTP(w, r)
		return
	}
	start := time.Now()
	lg := &exchangeLog{}
	lg.api, lg.chat = chatRequest(r)
	sw := newStatusWriter(w, p.ClientWriteTimeout)
	p.Metrics.started()
	defer p.logExchange(r, lg, sw, start)
	var denied *ExchangeError
	switch {
	case !keyed:
		denied = &ExchangeError{f: failUnauthorized}
	case refusedMethod(r.Method):
		denied = &ExchangeError{f: failBadMethod, bound: r.Method}
	case climbs(r.URL):
		denied = &ExchangeError{f: failBadPath}
	}
	if denied != nil {
		lg.api = errorAPI(r.URL.Path) // the error's shape; the metrics keep the request's API
		p.refuse(sw, lg, denied)
		return
	}
	base := p.rt
	var transport http.RoundTripper
	var set *Settings // the settings that route the request
	var capt *capture // the exchange's capture, when the proxy captures
	if lg.chat {
		ex, out, err := newChatExchange(r, lg.api, p.Options, p.Policy, p.Metrics,
			exchangeLimits{maxBody: p.MaxRequestBytes, refuseBody: true, mem: p.mem, upstream: p.Upstream})
		if err != nil {
			p.refuse(sw, lg, err)
			return
		}
		defer ex.release()
		r, lg.ex, set = out, ex, &ex.set
		capt = p.newCapture(r, ex)
		defer func() { capt.finish(sw.status, lg.upstream) }()
		if len(ex.set.Refused) > 0 {
			p.Metrics.headersRefused(ex.set.Refused)
			p.logger().LogAttrs(r.Context(), slog.LevelDebug, "request headers would loosen the policy; ignored",
				slog.String("path", r.URL.Path), slog.String("headers", strings.Join(ex.set.Refused, ",")))
		}
		transport = transportFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := ex.roundTrip(req, capt.roundTrip(base.RoundTrip))
			if err == nil && isEventStream(resp.Header.Get("Content-Type")) {
				resp.Body = &streamGuard{body: resp.Body, api: ex.api, ctx: req.Context()}
			}
			return resp, err
		})
	} else {
		out, model, release, err := p.peekModel(r)
		if err != nil {
			p.refuse(sw, lg, err)
			return
		}
		defer release()
		r = out
		s, _ := p.Policy.resolve(model, nil, p.Upstream)
		set, lg.label = &s, p.Policy.ModelLabel(model, p.Upstream)
		transport = transportFunc(func(req *http.Request) (*http.Response, error) {
			resp, up, err := sendWatched(req, base.RoundTrip, s.upstreamTimeouts(false))
			lg.up = up
			return resp, err
		})
	}
	rt, err := routeFor(set, p.Upstream)
	if err != nil {
		p.refuse(sw, lg, &ExchangeError{f: failInternal, Err: err})
		return
	}
	lg.upstream = rt.name
	rp := &httputil.ReverseProxy{
		Transport:  transport,
		BufferPool: copyBuffers,
		ErrorLog:   slog.NewLogLogger(p.logger().Handler(), slog.LevelWarn),
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(rt.target)
			stripHeaders(pr.Out.Header)
			rt.setCredentials(pr.Out.Header, clientStyle, errorAPI(pr.In.URL.Path))
			if lg.chat {
				// The rewriter reads the body: ask for it uncompressed
				// (Go's transport then negotiates and decompresses).
				pr.Out.Header.Del("Accept-Encoding")
			}
		},
		ModifyResponse: func(resp *http.Response) error {
			lg.status = resp.StatusCode
			capt.response(resp)
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			lg.err = err
			if errors.Is(err, context.Canceled) || r.Context().Err() != nil {
				return // the client went away
			}
			fe := asExchangeError(err, failUnreachable)
			lg.status = failures[fe.f].status
			writeError(w, errorAPI(r.URL.Path), fe.f, fe.clientMessage())
		},
	}
	rp.ServeHTTP(sw, r)
	sw.extend() // the server still writes the end of the response
}

// refuse answers a chat request that is not forwarded: a bad header, a
// body that cannot be read, is too large or does not fit the budget.
func (p *Proxy) refuse(w http.ResponseWriter, lg *exchangeLog, err error) {
	fe := requestFailure(err)
	lg.refused, lg.status = fe, failures[fe.f].status
	if fe.f == failMemoryBudget {
		p.Metrics.budgetRefused()
	}
	writeError(w, lg.api, fe.f, fe.clientMessage())
}

// streamGuard ends a stream that fails after it started (a timeout, a
// broken upstream body, an end before the finish marker, an event over the
// size limit) with one error event in the API's shape, instead of a
// connection cut off without a word. The event starts with a blank line,
// so that it is an event of its own whatever came before it (the rewriter
// passes on whole events only, so that is an empty line between events).
type streamGuard struct {
	body io.ReadCloser
	api  chat.API
	ctx  context.Context
	tail []byte // the error event, being written
	end  bool
	last byte // the last byte passed on
}

func (g *streamGuard) Read(p []byte) (int, error) {
	if len(g.tail) > 0 {
		n := copy(p, g.tail)
		g.tail = g.tail[n:]
		return n, nil
	}
	if g.end {
		return 0, io.EOF
	}
	n, err := g.body.Read(p)
	if n > 0 {
		g.last = p[n-1]
	}
	var fe *ExchangeError
	if err != nil && err != io.EOF && g.ctx.Err() == nil && errors.As(err, &fe) {
		g.end, err = true, nil
		if !fe.told {
			sep := []byte("\n")
			if g.last != 0 && g.last != '\n' && g.last != '\r' {
				sep = []byte("\n\n") // never so after the rewriter: the end of a line too
			}
			g.tail = appendErrorEvent(sep, g.api, fe.f, fe.clientMessage())
		}
	}
	return n, err
}

func (g *streamGuard) Close() error { return g.body.Close() }

// finalAttempt is the answer delivered, when it was rewritten.
func (lg *exchangeLog) finalAttempt() *attempt {
	if lg.ex == nil {
		return nil
	}
	return lg.ex.final
}

// transportFunc adapts a function to http.RoundTripper.
type transportFunc func(*http.Request) (*http.Response, error)

func (f transportFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func isEventStream(ct string) bool {
	return len(ct) >= 17 && ct[:17] == "text/event-stream"
}

// logExchange writes the request's log record: method, path (no query),
// status, model, what was rewritten, what failed, duration. Never headers.
// It also counts the request in the metrics.
func (p *Proxy) logExchange(r *http.Request, lg *exchangeLog, sw *statusWriter, start time.Time) {
	status := sw.status
	if status == 0 {
		status = lg.status
	}
	gone := r.Context().Err() != nil
	if status == 0 && gone {
		status = statusClientGone
	}
	d := time.Since(start)
	apiLabel := "other"
	if lg.chat {
		apiLabel = lg.api.String()
	}
	label := lg.label
	if lg.ex != nil {
		label = lg.ex.label
	}
	if label == "" {
		label = LabelOther
	}
	p.Metrics.finished(apiLabel, label, status, d, sw.firstByte(start))
	attrs := []slog.Attr{
		slog.String("method", r.Method),
		slog.String("path", r.URL.Path),
		slog.Int("status", status),
		slog.Float64("duration_seconds", d.Seconds()),
		slog.Int64("bytes", sw.bytes),
	}
	level := slog.LevelInfo
	if lg.chat {
		attrs = append(attrs, slog.String("api", lg.api.String()))
	}
	if lg.upstream != "" && p.Policy.routes() {
		attrs = append(attrs, slog.String("upstream", lg.upstream))
	}
	fail := lg.refused
	if ex := lg.ex; ex != nil {
		if ex.model != "" {
			attrs = append(attrs, slog.String("model", ex.model))
		}
		attrs = append(attrs, slog.String("mode", ex.set.Mode()))
		if len(ex.set.From) > 0 {
			attrs = append(attrs, slog.String("policy", strings.Join(ex.set.From, ",")))
		}
		if len(ex.set.Refused) > 0 {
			attrs = append(attrs, slog.String("headers_refused", strings.Join(ex.set.Refused, ",")))
		}
		if h := ex.history; h.Messages > 0 {
			attrs = append(attrs, slog.Int("history_rewritten", h.Messages), slog.Int("history_calls", h.Calls))
			if h.Dropped > 0 {
				attrs = append(attrs, slog.Int("history_dropped", h.Dropped))
			}
		}
		if len(ex.reasons) > 0 {
			attrs = append(attrs, slog.Int("retries", len(ex.reasons)), slog.String("retry_reasons", strings.Join(ex.reasons, ",")))
		}
		if ex.failure != nil {
			fail = ex.failure
		}
	}
	if a := lg.finalAttempt(); a != nil {
		st := a.rw.Stats()
		attrs = append(attrs, slog.Bool("stream", a.stream), slog.Int("calls", st.Calls))
		if len(lg.ex.dialects) > 0 {
			attrs = append(attrs, slog.String("dialects", strings.Join(slices.Sorted(maps.Keys(lg.ex.dialects)), ",")))
		}
		if st.Repaired > 0 {
			attrs = append(attrs, slog.Int("repaired", st.Repaired), slog.String("repairs", lg.ex.repairsValue()))
		}
		if st.Native > 0 {
			attrs = append(attrs, slog.Int("native_converted", st.Native))
		}
		if st.Refused > 0 {
			attrs = append(attrs, slog.Int("refused", st.Refused))
			level = slog.LevelWarn
		}
		if st.Truncated > 0 {
			attrs = append(attrs, slog.Int("truncated", st.Truncated))
			level = slog.LevelWarn
		}
		if st.Runaway {
			attrs = append(attrs, slog.Bool("runaway", true))
			level = slog.LevelWarn
		}
		if st.Errors > 0 {
			attrs = append(attrs, slog.Int("errors", st.Errors))
		}
		if reason := a.badReason(); reason != "" {
			attrs = append(attrs, slog.String("bad_answer", reason))
		}
		attrs = append(attrs, a.choiceAttrs()...)
	}
	if fail == nil && lg.up != nil && lg.up.err != nil && !gone {
		// A body passed through broke off.
		fail = asExchangeError(lg.up.err, failReset)
		p.Metrics.failure(fail.f)
	}
	if fail == nil && lg.err != nil && lg.ex == nil && !gone {
		fail = asExchangeError(lg.err, failUnreachable)
		p.Metrics.failure(fail.f)
	}
	if gone {
		attrs = append(attrs, slog.Bool("client_gone", true))
	}
	if sw.werr != nil {
		attrs = append(attrs, slog.String("client_error", sw.clientError()))
	}
	if fail != nil {
		attrs = append(attrs, slog.String("failure", fail.Reason()), slog.String("error", fail.Error()))
		level = max(level, slog.LevelWarn)
		if fail.f == failUnreachable || fail.f == failInternal {
			level = slog.LevelError
		}
	} else if lg.err != nil {
		attrs = append(attrs, slog.String("error", safeError(lg.err)))
	}
	p.logger().LogAttrs(r.Context(), level, "request", attrs...)
}

// statusClientGone is the status logged and counted for a request whose
// client went away before any status was written (nginx's 499).
const statusClientGone = 499

// safeError returns an error's message without the request URL that
// *url.Error adds (its query may hold an API key).
func safeError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// redactURL returns u as scheme://host/path, without user info or query,
// for logs.
func redactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	return c.String()
}

// statusWriter records the status, size and time to first byte of a
// response, and drops a client that takes no byte for the write timeout.
// It unwraps for http.ResponseController, so flushing reaches the real
// writer.
type statusWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	status  int
	bytes   int64
	first   time.Time
	werr    error // the first write to the client that failed
}

func newStatusWriter(w http.ResponseWriter, timeout time.Duration) *statusWriter {
	if timeout == 0 {
		timeout = DefaultClientWriteTimeout
	}
	return &statusWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: timeout}
}

// extend moves the write deadline timeout ahead of now (no deadline when
// the timeout is negative), before a write.
func (s *statusWriter) extend() {
	if s.timeout > 0 {
		s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	}
}

// firstByte returns the time from start to the first write, or 0.
func (s *statusWriter) firstByte(start time.Time) time.Duration {
	if s.first.IsZero() {
		return 0
	}
	return s.first.Sub(start)
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 && code >= 200 {
		s.status = code
		s.first = time.Now()
	}
	s.extend()
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
		s.first = time.Now()
	}
	s.extend()
	n, err := s.ResponseWriter.Write(b)
	s.bytes += int64(n)
	if err != nil && s.werr == nil {
		s.werr = err
	}
	return n, err
}

// clientError describes a failed write to the client, for the log.
func (s *statusWriter) clientError() string {
	if errors.Is(s.werr, os.ErrDeadlineExceeded) {
		return "write timeout"
	}
	return s.werr.Error()
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Flush implements http.Flusher for callers that check for it directly.
func (s *statusWriter) Flush() {
	s.extend()
	if err := s.rc.Flush(); err != nil && s.werr == nil {
		s.werr = err
	}
}

// copyBuffers lends the buffers the proxy copies answers through. A
// stream holds its buffer while it lasts and the rewriter's output of one
// upstream read is mostly an event or two, so the buffers are smaller than
// the ReverseProxy's own 32 KiB: a larger output takes more than one copy.
// They are as large as the rewriter's least read buffer, so that it reads
// the upstream straight into them and needs no buffer of its own.
var copyBuffers = &bufferPool{size: minCopyBuffer}

// bufferPool is an httputil.BufferPool of buffers of one size.
type bufferPool struct {
	size int
	pool sync.Pool
}

// minCopyBuffer is the size of the proxy's copy buffers: the least p into
// which chat.Rewriter.Read reads the upstream directly (4 KiB).
const minCopyBuffer = 4 << 10

func (b *bufferPool) Get() []byte {
	if p, ok := b.pool.Get().(*[]byte); ok {
		return *p
	}
	return make([]byte, b.size)
}

func (b *bufferPool) Put(buf []byte) {
	if cap(buf) == b.size {
		buf = buf[:b.size]
		b.pool.Put(&buf)
	}
}
