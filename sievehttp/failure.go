package sievehttp

// Failures: what can go wrong around an answer that is not the model's
// doing (a timeout, a broken upstream stream, a request the proxy will not
// hold), named once, with the status and the error types each API's
// clients expect. The proxy answers them in the API's own error shape: a
// JSON error body before the response has started, an error event in the
// stream after.

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/sse"
)

// failure is one kind of failure (see failures).
type failure uint8

const (
	failNone          failure = iota
	failBadHeader             // an X-Toolsieve-* request header with a bad value
	failBadBody               // the request body could not be read
	failBodyTooLarge          // the request body is over the proxy's limit
	failMemoryBudget          // the memory budget cannot hold the request body
	failHeaderTimeout         // no response headers in time
	failIdleTimeout           // the upstream went silent in the middle of a body
	failUnreachable           // the upstream request failed before its headers
	failReset                 // the upstream body broke off (reset, truncated)
	failEventTooLarge         // an upstream SSE event over the decoder's limit
	failInternal              // a bug while rewriting (recovered)
	failStreamedCall          // a streamed call turned out a loop's, or lost its arguments
	failTruncated             // the upstream's answer ended (cleanly) before its finish marker
	failBadPath               // a request path with a ".." segment
	failBadMethod             // a method the proxy does not forward (CONNECT, TRACE)
	failUnauthorized          // no client key, or an unknown one
)

// failures gives each failure its name (logs, metrics, error codes), the
// HTTP status the proxy answers it with before a response has started, the
// error type of each API (Anthropic's are those of its API:
// request_too_large, timeout_error, overloaded_error, api_error), and its
// message (%s: the bound that was passed; empty: the cause's own).
var failures = [...]struct {
	name              string
	status            int
	openai, anthropic string
	msg               string
}{
	failNone:          {"", http.StatusBadGateway, "server_error", "api_error", "failed"},
	failBadHeader:     {"bad_header", http.StatusBadRequest, "invalid_request_error", "invalid_request_error", ""},
	failBadBody:       {"bad_body", http.StatusBadRequest, "invalid_request_error", "invalid_request_error", "reading the request"},
	failBodyTooLarge:  {"body_too_large", http.StatusRequestEntityTooLarge, "invalid_request_error", "request_too_large", "request body over %s"},
	failMemoryBudget:  {"memory_budget", http.StatusServiceUnavailable, "server_error", "overloaded_error", "the proxy's memory budget is spent; retry later"},
	failHeaderTimeout: {"header_timeout", http.StatusGatewayTimeout, "server_error", "timeout_error", "upstream sent no response headers within %s"},
	failIdleTimeout:   {"idle_timeout", http.StatusGatewayTimeout, "server_error", "timeout_error", "upstream sent nothing for %s in the middle of its answer"},
	failUnreachable:   {"unreachable", http.StatusBadGateway, "server_error", "api_error", "upstream request failed"},
	failReset:         {"reset", http.StatusBadGateway, "server_error", "api_error", "upstream answer broke off"},
	failEventTooLarge: {"event_too_large", http.StatusBadGateway, "server_error", "api_error", "upstream event over the size limit; the answer is incomplete"},
	failInternal:      {"internal", http.StatusBadGateway, "server_error", "api_error", ""},
	failStreamedCall:  {"streamed_call", http.StatusBadGateway, "server_error", "api_error", ""},
	failTruncated:     {"truncated", http.StatusBadGateway, "server_error", "api_error", ""},
	failBadPath:       {"bad_path", http.StatusBadRequest, "invalid_request_error", "invalid_request_error", "request path with a \"..\" segment"},
	failBadMethod:     {"bad_method", http.StatusMethodNotAllowed, "invalid_request_error", "invalid_request_error", "method %s is not forwarded"},
	failUnauthorized:  {"unauthorized", http.StatusUnauthorized, "invalid_request_error", "authentication_error", "a valid client key is required (X-Toolsieve-Key, Authorization: Bearer, or x-api-key)"},
}

func (f failure) String() string { return failures[f].name }

// retryAfter is the Retry-After value, in seconds, of a 503 for the memory
// budget: held memory is given back as answers end, within seconds.
const retryAfter = 1

// ExchangeError is a failure of an exchange under a policy (the proxy, or a
// Transport with a Policy) that is not the model's doing: a timeout, a
// broken upstream stream, an event over the size limit, the memory budget.
// RoundTrip or the response body's Read returns it; the proxy answers it
// with an error body, or an error event in a stream already under way, in
// the request's API.
type ExchangeError struct {
	f     failure
	bound string // the timeout or limit that was passed, for the message
	Err   error  // the cause, when there is one
	// told: the client already has an error event of the upstream's for
	// this answer; the proxy adds none.
	told bool
}

// Reason names the failure: header_timeout, idle_timeout, unreachable,
// reset, event_too_large, memory_budget, body_too_large, ...
func (e *ExchangeError) Reason() string { return e.f.String() }

// Timeout reports whether a timeout expired (as net.Error does).
func (e *ExchangeError) Timeout() bool { return e.f == failHeaderTimeout || e.f == failIdleTimeout }

func (e *ExchangeError) Error() string { return e.message(safeError) }

// clientMessage is the message sent to the client: the cause says what
// failed, never where (no address of the upstream, the proxy or the
// client; publicCause).
func (e *ExchangeError) clientMessage() string { return e.message(publicCause) }

func (e *ExchangeError) message(cause func(error) string) string {
	msg := failures[e.f].msg
	if msg == "" && e.Err != nil {
		return cause(e.Err)
	}
	if strings.Contains(msg, "%s") {
		msg = fmt.Sprintf(msg, e.bound)
	}
	msg = "toolsieve: " + msg
	if e.Err != nil {
		msg += ": " + cause(e.Err)
	}
	return msg
}

func (e *ExchangeError) Unwrap() error { return e.Err }

// requestFailure classifies an error of reading a request: a bad
// X-Toolsieve-* header, an ExchangeError (too large, the budget), or a
// body that could not be read.
func requestFailure(err error) *ExchangeError {
	var bh *badHeaderError
	if errors.As(err, &bh) {
		return &ExchangeError{f: failBadHeader, Err: err}
	}
	return asExchangeError(err, failBadBody)
}

// asExchangeError returns err's *ExchangeError, or err wrapped in one of
// failure f.
func asExchangeError(err error, f failure) *ExchangeError {
	var e *ExchangeError
	if errors.As(err, &e) {
		return e
	}
	return &ExchangeError{f: f, Err: err}
}

// bodyFailure classifies an error that ended the reading of a rewritten
// answer; upstream is the error the upstream body's Read returned, if any:
// an SSE event over the limit, a streamed call that could not complete
// (chat.ErrStreamedCall), a broken upstream body, or
// else a bug the rewriter recovered from.
func bodyFailure(err, upstream error) *ExchangeError {
	var se *sse.Error
	switch {
	case errors.As(err, &se):
		return asExchangeError(err, failEventTooLarge)
	case errors.Is(err, chat.ErrStreamedCall):
		return asExchangeError(err, failStreamedCall)
	case errors.Is(err, chat.ErrTruncated):
		return asExchangeError(err, failTruncated)
	case upstream != nil:
		return asExchangeError(err, failReset)
	}
	return asExchangeError(err, failInternal)
}

// writeError answers a request with a failure in the API's error shape
// (OpenAI's for paths of neither chat API): OpenAI
// {"error":{"message","type","param","code"}}, Anthropic
// {"type":"error","error":{"type","message"}}.
func writeError(w http.ResponseWriter, api chat.API, f failure, msg string) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if f == failMemoryBudget {
		h.Set("Retry-After", strconv.Itoa(retryAfter))
	}
	switch f {
	case failUnauthorized:
		h.Set("WWW-Authenticate", `Bearer realm="toolsieve"`)
	case failBadMethod:
		h.Set("Allow", allowedMethods)
	}
	if f == failBodyTooLarge || f == failMemoryBudget {
		// The body was not read to its end: this connection cannot carry
		// another request.
		h.Set("Connection", "close")
	}
	w.WriteHeader(failures[f].status)
	w.Write(appendErrorJSON(nil, api, f, msg))
}

// appendErrorJSON appends the error object of api for a failure.
func appendErrorJSON(dst []byte, api chat.API, f failure, msg string) []byte {
	fl := &failures[f]
	if api == chat.APIAnthropic {
		dst = append(dst, `{"type":"error","error":{"type":"`...)
		dst = append(dst, fl.anthropic...)
		dst = append(dst, `","message":`...)
		dst = jsonspan.AppendQuoted(dst, msg)
		return append(dst, "}}"...)
	}
	dst = append(dst, `{"error":{"message":`...)
	dst = jsonspan.AppendQuoted(dst, msg)
	dst = append(dst, `,"type":"`...)
	dst = append(dst, fl.openai...)
	dst = append(dst, `","param":null,"code":`...)
	if fl.name == "" {
		dst = append(dst, "null"...)
	} else {
		dst = jsonspan.AppendQuoted(dst, fl.name)
	}
	return append(dst, "}}"...)
}

// appendErrorEvent appends the SSE event that ends a stream on a failure:
// OpenAI chat, a data event holding an error object (no [DONE] after it);
// Anthropic, an error event; Responses, its error event
// (`{"type":"error","code":..,"message":..,"param":null}`).
func appendErrorEvent(dst []byte, api chat.API, f failure, msg string) []byte {
	switch api {
	case chat.APIAnthropic:
		return sse.AppendEvent(dst, "error", appendErrorJSON(nil, api, f, msg))
	case chat.APIResponses:
		d := []byte(`{"type":"error","code":`)
		if name := failures[f].name; name == "" {
			d = append(d, "null"...)
		} else {
			d = jsonspan.AppendQuoted(d, name)
		}
		d = append(d, `,"message":`...)
		d = jsonspan.AppendQuoted(d, msg)
		d = append(d, `,"param":null}`...)
		return sse.AppendEvent(dst, "error", d)
	}
	return sse.AppendEvent(dst, "", appendErrorJSON(nil, api, f, msg))
}

// errorAPI is the API whose error shape a path's errors take: Anthropic
// for its paths (…/messages and below, such as …/messages/count_tokens),
// OpenAI's otherwise.
func errorAPI(path string) chat.API {
	if api, ok := chat.APIForPath(path); ok {
		return api
	}
	if strings.Contains(path, "/messages/") {
		return chat.APIAnthropic
	}
	return chat.APIOpenAI
}

// publicCause describes err for a client: what failed (a refused or reset
// connection, a timeout, a name that did not resolve, a TLS handshake),
// never an address (the upstream's, the proxy's or the client's IP and
// port, the upstream's host name). The log has the whole cause.
func publicCause(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var dns *net.DNSError
	var op *net.OpError
	var cv *tls.CertificateVerificationError
	var rh tls.RecordHeaderError
	switch {
	case errors.As(err, &dns):
		return "the upstream's name did not resolve"
	case errors.As(err, &cv), errors.As(err, &rh):
		return "the TLS handshake with the upstream failed"
	case errors.As(err, &op):
		msg := op.Op
		if op.Err != nil {
			inner := op.Err
			var se *os.SyscallError
			if errors.As(inner, &se) {
				inner = se.Err
			}
			msg += ": " + scrubAddresses(inner.Error())
		}
		return msg
	}
	return scrubAddresses(err.Error())
}

// addressPattern matches what may be an address in an error message: an
// IPv4 or (bracketed or bare) IPv6 address with an optional port, a host
// name with a port.
var addressPattern = regexp.MustCompile(`\[[0-9A-Za-z:.%]+\](:\d+)?|\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b|(?:[0-9A-Fa-f]{1,4})?(?:::?[0-9A-Fa-f]{1,4}){2,7}(?:%\w+)?|::1\b|\b[A-Za-z0-9][A-Za-z0-9.-]*:\d{1,5}\b`)

// scrubAddresses replaces what may be an address in msg.
func scrubAddresses(msg string) string {
	return addressPattern.ReplaceAllString(msg, "[address]")
}
