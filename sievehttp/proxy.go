package sievehttp

// The proxy: an http.Handler that forwards every request to an upstream
// OpenAI- or Anthropic-compatible server and rewrites its chat responses.

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
)

// Proxy forwards every request to Upstream with the request path appended
// unchanged (Upstream https://api.deepseek.com, request /v1/chat/completions:
// https://api.deepseek.com/v1/chat/completions). Chat responses, streamed or
// not, come back rewritten as Transport does; everything else, including
// errors from the upstream, passes through unchanged.
//
// A client that goes away cancels the upstream request; a runaway closes the
// upstream body and ends the client's stream cleanly. Policy decides per
// request (and per model) the dialects, strict or lenient handling of
// repaired calls, retries of bad answers and the cleaning of leaked markup
// in the request's history (see Policy and docs/policy.md); X-Toolsieve-*
// request headers override it and are not forwarded. Chat responses carry
// X-Toolsieve-Retries, X-Toolsieve-Repairs, X-Toolsieve-Refused and
// X-Toolsieve-Runaway headers (trailers for streams whose headers went out
// before the answer ended). Logs never contain request headers, query
// strings or bodies, so API keys stay out of them.
type Proxy struct {
	// Upstream is the base URL requests are forwarded to.
	Upstream *url.URL
	// Options configure the parsers; the tools declared in each request
	// are used unless Options.Tools is set.
	Options toolsieve.Options
	// Transport makes the upstream requests; nil means http.DefaultTransport.
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
}

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

// exchangeLog collects what one request did, for its log record.
type exchangeLog struct {
	api    chat.API
	chat   bool
	status int
	ex     *chatExchange
	err    error
}

// ServeHTTP implements http.Handler.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p.Metrics != nil && r.URL.Path == "/metrics" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		p.Metrics.ServeHTTP(w, r)
		return
	}
	start := time.Now()
	lg := &exchangeLog{}
	lg.api, lg.chat = chatRequest(r)
	if lg.chat {
		p.Metrics.request(lg.api.String())
	} else {
		p.Metrics.request("other")
	}
	base := p.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	transport := base
	if lg.chat {
		ex, out, err := newChatExchange(r, lg.api, p.Options, p.Policy, p.Metrics)
		if err != nil {
			msg, what := "toolsieve: reading the request: "+err.Error(), "unreadable body"
			var bh *badHeaderError
			if errors.As(err, &bh) {
				msg, what = err.Error(), "bad X-Toolsieve-* header"
			}
			p.logger().LogAttrs(r.Context(), slog.LevelWarn, "request", slog.String("method", r.Method),
				slog.String("path", r.URL.Path), slog.Int("status", http.StatusBadRequest), slog.String("error", what))
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			b, _ := json.Marshal(map[string]any{"error": map[string]string{"type": "invalid_request_error", "message": msg}})
			w.Write(b)
			return
		}
		r, lg.ex = out, ex
		transport = transportFunc(func(req *http.Request) (*http.Response, error) {
			return ex.roundTrip(req, base.RoundTrip)
		})
	}
	sw := &statusWriter{ResponseWriter: w}
	rp := &httputil.ReverseProxy{
		Transport: transport,
		ErrorLog:  slog.NewLogLogger(p.logger().Handler(), slog.LevelWarn),
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(p.Upstream)
			stripHeaders(pr.Out.Header)
			if lg.chat {
				// The rewriter reads the body: ask for it uncompressed
				// (Go's transport then negotiates and decompresses).
				pr.Out.Header.Del("Accept-Encoding")
			}
		},
		ModifyResponse: func(resp *http.Response) error {
			lg.status = resp.StatusCode
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			lg.err = err
			if errors.Is(err, context.Canceled) || r.Context().Err() != nil {
				return // the client went away
			}
			lg.status = http.StatusBadGateway
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadGateway)
			msg, _ := json.Marshal(map[string]any{"error": map[string]string{
				"type":    "proxy_error",
				"message": "toolsieve: upstream request failed: " + safeError(err),
			}})
			w.Write(msg)
		},
	}
	defer p.logExchange(r, lg, sw, start)
	rp.ServeHTTP(sw, r)
}

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
// status, what was rewritten, duration. Never headers.
func (p *Proxy) logExchange(r *http.Request, lg *exchangeLog, sw *statusWriter, start time.Time) {
	status := sw.status
	if status == 0 {
		status = lg.status
	}
	attrs := []slog.Attr{
		slog.String("method", r.Method),
		slog.String("path", r.URL.Path),
		slog.Int("status", status),
		slog.Duration("duration", time.Since(start)),
		slog.Int64("bytes", sw.bytes),
	}
	level := slog.LevelInfo
	if lg.chat {
		attrs = append(attrs, slog.String("api", lg.api.String()))
	}
	if ex := lg.ex; ex != nil {
		attrs = append(attrs, slog.String("mode", ex.set.Mode()))
		if len(ex.set.From) > 0 {
			attrs = append(attrs, slog.String("policy", strings.Join(ex.set.From, ",")))
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
	}
	if a := lg.finalAttempt(); a != nil {
		st := a.rw.Stats()
		attrs = append(attrs, slog.Bool("stream", a.stream), slog.Int("calls", st.Calls))
		if st.Repaired > 0 {
			attrs = append(attrs, slog.Int("repaired", st.Repaired), slog.Any("repairs", lg.ex.repairs))
		}
		if st.Native > 0 {
			attrs = append(attrs, slog.Int("native_converted", st.Native))
		}
		if st.Refused > 0 {
			attrs = append(attrs, slog.Int("refused", st.Refused))
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
	}
	if r.Context().Err() != nil {
		attrs = append(attrs, slog.Bool("client_gone", true))
	}
	if lg.err != nil {
		attrs = append(attrs, slog.String("error", safeError(lg.err)))
		if r.Context().Err() == nil {
			level = slog.LevelError
		}
	}
	p.logger().LogAttrs(r.Context(), level, "request", attrs...)
}

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

// statusWriter records the status and size of a response. It unwraps for
// http.ResponseController, so flushing reaches the real writer.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 && code >= 200 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += int64(n)
	return n, err
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Flush implements http.Flusher for callers that check for it directly.
func (s *statusWriter) Flush() {
	http.NewResponseController(s.ResponseWriter).Flush()
}
