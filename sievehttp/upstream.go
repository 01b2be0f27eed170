package sievehttp

// The upstream side of an exchange: a transport pooled for many streams to
// one host, and the timeouts of each upstream request (response headers,
// silence in the middle of a body), which cancel the request on expiry.

import (
	"context"
	"io"
	"net/http"
	"time"
)

// Default upstream timeouts (Settings; policy fields header_timeout_ms,
// idle_timeout_ms, response_timeout_ms; proxy flags --header-timeout,
// --idle-timeout, --response-timeout). See docs/policy.md for the reasons.
const (
	// DefaultHeaderTimeout bounds the wait for the headers of a streamed
	// answer. Providers send them as soon as they accept the request; a
	// local server that loads the model first (Ollama) can take a minute.
	DefaultHeaderTimeout = 120 * time.Second
	// DefaultIdleTimeout bounds the silence between bytes of an answer.
	// Reasoning models that stream nothing while they think (OpenAI's
	// o-series in chat completions) can be silent for minutes.
	DefaultIdleTimeout = 300 * time.Second
	// DefaultResponseTimeout bounds the wait for the headers of a
	// non-streamed answer (the server sends them when the whole answer is
	// written) and of requests passed through: the OpenAI and Anthropic
	// SDKs' own default request timeout, so the proxy never gives up
	// before a client with default settings would.
	DefaultResponseTimeout = 600 * time.Second
)

// timeouts of one upstream request; 0 is none.
type timeouts struct{ header, idle time.Duration }

// upstreamTimeouts returns the timeouts of s for a streamed request or not.
func (s *Settings) upstreamTimeouts(stream bool) timeouts {
	t := timeouts{header: s.ResponseTimeout, idle: s.IdleTimeout}
	if t.header == 0 {
		t.header = DefaultResponseTimeout
	}
	if stream {
		t.header = s.HeaderTimeout
		if t.header == 0 {
			t.header = DefaultHeaderTimeout
		}
	}
	if t.idle == 0 {
		t.idle = DefaultIdleTimeout
	}
	return t
}

// NewUpstreamTransport returns the transport a Proxy uses when its
// Transport is nil: http.DefaultTransport's settings (proxy from the
// environment, dial and TLS handshake timeouts, HTTP/2 when the upstream
// offers it) with a connection pool sized for many concurrent streams to
// one host, so that a burst of requests reuses connections instead of
// opening (and TLS-handshaking) new ones.
func NewUpstreamTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ForceAttemptHTTP2 = true
	t.MaxIdleConns = 1024
	t.MaxIdleConnsPerHost = 512
	t.IdleConnTimeout = 90 * time.Second
	return t
}

// sendWatched sends req through next with t's timeouts: the header
// timeout until next returns, the idle timeout during each Read of the
// response body (the time spent waiting for the upstream, not for the
// reader). Either cancels the upstream request; the error is then an
// *ExchangeError. An error of next is an *ExchangeError (unreachable)
// unless the request's own context ended.
func sendWatched(req *http.Request, next func(*http.Request) (*http.Response, error), t timeouts) (*http.Response, *watchedBody, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	var timer *time.Timer
	if t.header > 0 {
		timer = time.AfterFunc(t.header, func() { cancel(&ExchangeError{f: failHeaderTimeout, bound: t.header.String()}) })
	}
	resp, err := next(req.WithContext(ctx))
	if timer != nil && !timer.Stop() && err == nil {
		// The timeout fired as the headers came: the request is cancelled.
		resp.Body.Close()
		resp, err = nil, context.Cause(ctx)
	}
	if err != nil {
		if c := context.Cause(ctx); c != nil && req.Context().Err() == nil {
			err = c
		}
		cancel(context.Canceled)
		if req.Context().Err() == nil {
			err = asExchangeError(err, failUnreachable)
		}
		return nil, nil, err
	}
	wb := &watchedBody{body: resp.Body, ctx: ctx, cancel: cancel, idle: t.idle}
	if t.idle > 0 {
		wb.timer = time.AfterFunc(t.idle, func() { cancel(&ExchangeError{f: failIdleTimeout, bound: t.idle.String()}) })
		wb.timer.Stop()
	}
	resp.Body = wb
	return resp, wb, nil
}

// watchedBody is an upstream response body under the idle timeout. While
// held is set, every byte read is reserved in it, perByte times (a whole
// answer being read for rewriting); past the budget Read fails.
type watchedBody struct {
	body    io.ReadCloser
	ctx     context.Context
	cancel  context.CancelCauseFunc
	idle    time.Duration
	timer   *time.Timer
	held    *hold
	perByte int64
	err     error // the first error Read returned, not io.EOF
}

func (b *watchedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.timer != nil {
		b.timer.Reset(b.idle)
	}
	n, err := b.body.Read(p)
	if b.timer != nil {
		b.timer.Stop()
	}
	if n > 0 && b.held != nil && !b.held.grow(int64(n)*b.perByte) {
		err = &ExchangeError{f: failMemoryBudget}
		b.cancel(err)
	}
	if err != nil && err != io.EOF {
		if c := context.Cause(b.ctx); c != nil && c != context.Canceled {
			err = c // a timeout that fired, or the budget
		}
		b.err = err
	}
	return n, err
}

// Close closes the body and ends the upstream request.
func (b *watchedBody) Close() error {
	if b.timer != nil {
		b.timer.Stop()
	}
	err := b.body.Close()
	b.cancel(context.Canceled)
	return err
}
