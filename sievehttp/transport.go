package sievehttp

// HTTP client side: a RoundTripper and an SDK-style middleware that rewrite
// chat responses on their way to the caller, for use with any client that
// takes an *http.Client (openai-go and anthropic-sdk-go through
// option.WithHTTPClient or option.WithMiddleware).

import (
	"mime"
	"net/http"
	"strings"
	"sync"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
)

// Transport is an http.RoundTripper that forwards requests to Base and
// rewrites the responses of chat endpoints (POST .../chat/completions and
// .../messages): recovered tool calls come back as native calls, streamed
// or not. Other requests and unsuccessful responses pass through untouched.
//
// The tools declared in each request body are used for the parsers unless
// Options.Tools is set. A runaway closes the upstream body (the provider
// stops generating) and ends the response cleanly. Transport starts no
// goroutine; the response body must be closed as usual.
type Transport struct {
	// Base makes the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// Options configure the parsers.
	Options toolsieve.Options
	// Notify, if set, is called with every recovered call, runaway and
	// error event of a rewritten response (with a Policy: of the answer
	// delivered only). The event is valid during the call only.
	Notify func(req *http.Request, e *toolsieve.Event)
	// Policy, when set, applies per request as in the proxy: settings by
	// model and X-Toolsieve-* headers (not forwarded), strict mode,
	// retries, history cleaning and the X-Toolsieve-* response headers.
	Policy *Policy
	// Metrics, when set (with Policy), counts what is done.
	Metrics *Metrics
	// MemoryBudget bounds the bytes held with a Policy, as
	// Proxy.MemoryBudget does (0: DefaultMemoryBudget; negative: none).
	MemoryBudget int64

	once sync.Once
	mem  *budget
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if t.Policy != nil {
		t.once.Do(func() {
			t.mem = newBudget(t.MemoryBudget)
			t.Metrics.setBudget(t.mem)
			t.Metrics.SetModels(t.Policy.ModelLabels())
		})
		return policyExchange(req, base.RoundTrip, t.Options, t.Policy, t.Metrics, t.mem, t.Notify)
	}
	return exchange(req, base.RoundTrip, t.Options, t.Notify)
}

// PolicyMiddleware is Middleware under a policy, as Transport with Policy
// set: per-model settings, strict mode, retries and history cleaning.
func PolicyMiddleware(opt toolsieve.Options, p *Policy) func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	if p == nil {
		p = &Policy{}
	}
	mem := newBudget(0)
	return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		return policyExchange(req, next, opt, p, nil, mem, nil)
	}
}

// policyExchange sends a chat request through next under policy p.
func policyExchange(req *http.Request, next func(*http.Request) (*http.Response, error), opt toolsieve.Options, p *Policy, m *Metrics, mem *budget, notify func(*http.Request, *toolsieve.Event)) (*http.Response, error) {
	api, ok := chatRequest(req)
	if !ok {
		out := req.Clone(req.Context())
		stripHeaders(out.Header)
		return next(out)
	}
	x, out, err := newChatExchange(req, api, opt, p, m, exchangeLimits{mem: mem})
	if err != nil {
		m.roundTripped(api.String(), LabelOther, failures[requestFailure(err).f].status)
		return nil, err
	}
	if notify != nil {
		x.notify = func(e *toolsieve.Event) { notify(req, e) }
	}
	resp, err := x.roundTrip(out, next)
	switch {
	case err == nil:
		m.roundTripped(api.String(), x.label, resp.StatusCode)
	case req.Context().Err() != nil:
		m.roundTripped(api.String(), x.label, statusClientGone)
	default:
		m.roundTripped(api.String(), x.label, failures[asExchangeError(err, failUnreachable).f].status)
	}
	return resp, err
}

// Middleware returns a function with the shape of the option.Middleware of
// openai-go and anthropic-sdk-go, without importing either:
//
//	client := openai.NewClient(option.WithMiddleware(toolsieve.Middleware(opt)))
//
// It does what Transport does, around the SDK's next step.
func Middleware(opt toolsieve.Options) func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		return exchange(req, next, opt, nil)
	}
}

// exchange sends req through next, rewriting the response when req is a
// chat request.
func exchange(req *http.Request, next func(*http.Request) (*http.Response, error), opt toolsieve.Options, notify func(*http.Request, *toolsieve.Event)) (*http.Response, error) {
	api, ok := chatRequest(req)
	if !ok {
		return next(req)
	}
	out, opt, err := withTools(req, opt)
	if err != nil {
		return nil, err
	}
	resp, err := next(out)
	if err != nil || resp == nil {
		return resp, err
	}
	if rw := RewriteResponse(resp, api, opt); rw != nil && notify != nil {
		rw.Notify = func(e *toolsieve.Event) { notify(req, e) }
	}
	return resp, nil
}

// chatRequest tells whether req is a chat request whose response is to be
// rewritten, and for which API.
func chatRequest(req *http.Request) (chat.API, bool) {
	if req.Method != http.MethodPost || req.URL == nil {
		return chat.APIAuto, false
	}
	return chat.APIForPath(req.URL.Path)
}

// withTools reads the request body for its declared tools (unless opt
// already has tools) and returns a request that sends the same body.
func withTools(req *http.Request, opt toolsieve.Options) (*http.Request, toolsieve.Options, error) {
	out, body, err := holdBody(req, bodyLimits{})
	if err != nil || body == nil {
		return out, opt, err
	}
	cr := chat.ReadRequest(body)
	if opt.Tools == nil {
		opt.Tools = cr.Tools
	}
	return out, choiceOptions(opt, cr), nil
}

// RewriteResponse makes resp's body a Rewriter when resp is a successful,
// uncompressed JSON or event-stream response, and returns the Rewriter
// (nil when the response is left alone). The Content-Length header is
// dropped, as the length changes.
func RewriteResponse(resp *http.Response, api chat.API, opt toolsieve.Options) *chat.Rewriter {
	if resp.StatusCode < 200 || resp.StatusCode > 299 || resp.Body == nil || resp.Body == http.NoBody {
		return nil
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return nil
	}
	var events bool
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		mt, _, _ := mime.ParseMediaType(ct)
		if mt != "text/event-stream" && mt != "application/json" && !strings.HasSuffix(mt, "+json") {
			return nil
		}
		events = mt == "text/event-stream"
	}
	rw := chat.NewRewriter(resp.Body, api, opt)
	if events {
		rw.ExpectEvents()
	}
	resp.Body = rw
	resp.ContentLength = -1
	resp.Header.Del("Content-Length")
	return rw
}
