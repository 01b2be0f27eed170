package main

// rewrite --policy: a capture replayed as the proxy would have answered it.
// The capture is served, in-process, as the upstream's answer to a chat
// request for the model it names, through sievehttp.Transport with the
// policy: the same code as the proxy decides the settings and rewrites.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/sievehttp"
	"github.com/toolsieve/toolsieve/sse"
)

// maxModelSniff bounds the bytes of a stream read to find its model.
const maxModelSniff = 64 << 10

// captureInfo is what a capture says about itself.
type captureInfo struct {
	api   chat.API // APIAuto when it says nothing
	model string   // "" when it names none
	doc   bool     // a whole JSON document, not a stream
}

// sniffCapture finds the API and model of the capture whose body h starts:
// a whole document is read (it is held anyway to be rewritten); a stream
// up to its first event that names them, at most maxModelSniff bytes, so
// that a live stream is not held back. api, when not APIAuto, is kept.
func sniffCapture(h *head, api chat.API) (captureInfo, error) {
	c := captureInfo{api: api}
	if sniffBody(h) == kindJSON {
		c.doc = true
		body, err := h.all(maxDocBytes)
		if errors.Is(err, errDocTooLarge) {
			return c, nil // no model read: the policy's default
		}
		if err != nil {
			return c, err
		}
		if d, ok := chat.ReadDocument(body); ok {
			c.model = d.Model
			if c.api == chat.APIAuto {
				c.api = d.API
			}
		}
		return c, nil
	}
	var dec sse.Decoder
	fed := 0
	for {
		evs, _ := dec.Feed(h.buf[fed:])
		fed = len(h.buf)
		for i := range evs {
			if a, m, ok := eventModel(&evs[i]); ok {
				if c.api == chat.APIAuto {
					c.api = a
				}
				c.model = m
				return c, nil
			}
		}
		if len(h.buf) >= maxModelSniff || !h.fill() {
			return c, nil
		}
	}
}

// eventModel reads the API and model from a stream event that names them:
// an OpenAI chunk ("model" beside "choices"), Anthropic's message_start
// (the message it starts), or a Responses event that carries the response
// (response.created).
func eventModel(ev *sse.Event) (api chat.API, model string, ok bool) {
	if !ev.IsMessage() || !jsonspan.Valid(ev.Data) {
		return api, "", false
	}
	data := ev.Data
	if d, ok := chat.ReadDocument(data); ok {
		return d.API, d.Model, true
	}
	ms, _ := jsonspan.Members(data, 0, nil)
	for _, key := range [...]string{"message", "response"} {
		if mm, has := jsonspan.Lookup(data, ms, key); has {
			if d, ok := chat.ReadDocument(data[mm.Start:mm.End]); ok {
				return d.API, d.Model, true
			}
		}
	}
	return api, "", false
}

// describeReplay says which settings the replay applies.
func describeReplay(c captureInfo, s *sievehttp.Settings) string {
	var b strings.Builder
	if c.model != "" {
		fmt.Fprintf(&b, "replaying under the policy for model %s: ", c.model)
	} else {
		b.WriteString("replaying under the policy's default (the capture names no model): ")
	}
	dialects := "all"
	if s.Dialects != nil {
		dialects = strings.Join(s.Dialects, ",")
	}
	fmt.Fprintf(&b, "mode %s, dialects %s", s.Mode(), dialects)
	if len(s.From) > 0 {
		fmt.Fprintf(&b, " (decided by %s)", strings.Join(s.From, ", "))
	}
	if s.Retries > 0 {
		fmt.Fprintf(&b, "; retries (%d) are not replayed", s.Retries)
	}
	return b.String()
}

// replay serves body as the upstream's answer to a chat request for
// c.model under pol, and returns the response the proxy would give. The
// request asks for no retries (a replay has no upstream to ask again).
func replay(body io.Reader, c captureInfo, opt toolsieve.Options, pol *sievehttp.Policy, notify func(*toolsieve.Event)) (*http.Response, error) {
	path, ctype := "/v1/chat/completions", "text/event-stream"
	switch c.api {
	case chat.APIAnthropic:
		path = "/v1/messages"
	case chat.APIResponses:
		path = "/v1/responses"
	}
	if c.doc {
		ctype = "application/json"
	}
	reqBody, _ := json.Marshal(map[string]string{"model": c.model})
	req, err := http.NewRequest(http.MethodPost, "http://capture.invalid"+path, strings.NewReader(string(reqBody)))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(sievehttp.HeaderRetries, "0")
	upstream := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{
			StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: http.Header{"Content-Type": {ctype}}, Body: io.NopCloser(body), ContentLength: -1, Request: r,
		}, nil
	})
	tr := &sievehttp.Transport{Base: upstream, Options: opt, Policy: pol,
		Notify: func(_ *http.Request, e *toolsieve.Event) { notify(e) }}
	return tr.RoundTrip(req)
}

// refusedCount reads X-Toolsieve-Refused from a replayed response: a
// header for a document, a trailer for a stream (set once it was read).
func refusedCount(resp *http.Response) int {
	v := resp.Header.Get(sievehttp.HeaderRefused)
	if v == "" && resp.Trailer != nil {
		v = resp.Trailer.Get(sievehttp.HeaderRefused)
	}
	var n int
	fmt.Sscan(v, &n)
	return n
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
