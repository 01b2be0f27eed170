package sievehttp

// Request bodies: read once and held (for the model, the declared tools,
// history cleaning and retries), within a size limit and the memory budget.

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
)

// maxRequestBytes caps the request body the Go wrappers (Transport,
// Middleware) hold to find the declared tools; a larger body is forwarded
// whole, as it comes, and its tools are not read.
const maxRequestBytes = 64 << 20

// bodyLimits say how a request body is held.
type bodyLimits struct {
	max    int64 // the largest body held (0: maxRequestBytes)
	refuse bool  // a larger body is refused (body_too_large) instead of forwarded as it comes
	hold   *hold // where the bytes held are reserved; nil: nowhere
}

// holdBody reads req's body and returns a request that sends the same
// bytes, with the body (nil when there is none, or when it is larger than
// the limit and forwarded as it comes, once). Errors: a body that cannot
// be read, or an *ExchangeError: body_too_large, memory_budget.
func holdBody(req *http.Request, lim bodyLimits) (out *http.Request, body []byte, err error) {
	if req.Body == nil || req.Body == http.NoBody {
		return req, nil, nil
	}
	limit := lim.max
	if limit <= 0 {
		limit = maxRequestBytes
	}
	tooLarge := &ExchangeError{f: failBodyTooLarge, bound: strconv.FormatInt(limit, 10) + " bytes"}
	if lim.refuse && req.ContentLength > limit {
		req.Body.Close()
		return nil, nil, tooLarge
	}
	h := lim.hold
	if h == nil {
		h = &hold{}
	}
	body, over, err := readHeld(req.Body, limit, req.ContentLength, h)
	if err != nil || over && lim.refuse {
		req.Body.Close()
		h.free()
		if err == nil {
			err = tooLarge
		}
		return nil, nil, err
	}
	out = req.Clone(req.Context())
	if over {
		h.free()
		out.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), req.Body), req.Body}
		out.GetBody = nil
		return out, nil, nil
	}
	req.Body.Close()
	setBody(out, body)
	return out, body, nil
}

// readHeld reads r to its end, at most limit bytes: over reports more
// (then b holds the first limit+1). hint is the expected size (-1: not
// known). The capacity of b is reserved in h before it is allocated; when
// the budget cannot give it, the error is memory_budget.
func readHeld(r io.Reader, limit, hint int64, h *hold) (b []byte, over bool, err error) {
	size := int64(512)
	if hint >= 0 {
		size = hint + 1 // one more byte, to see the end
	}
	for {
		if len(b) == cap(b) {
			c := min(limit+1, max(size, 2*int64(cap(b))))
			if !h.grow(c - int64(cap(b))) {
				return nil, false, &ExchangeError{f: failMemoryBudget}
			}
			nb := make([]byte, len(b), c)
			copy(nb, b)
			b = nb
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		switch {
		case int64(len(b)) > limit:
			return b, true, nil
		case err == io.EOF:
			return b, false, nil
		case err != nil:
			return nil, false, err
		}
	}
}

// setBody makes req send body.
func setBody(req *http.Request, body []byte) {
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	req.ContentLength = int64(len(body))
}
