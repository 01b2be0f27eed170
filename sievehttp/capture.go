package sievehttp

// Capture: with Proxy.CaptureDir set, each chat exchange is saved as it
// happens, so that an answer that went wrong can be replayed offline
// (toolsieve rewrite --policy) and turned into a test:
//
//	ID.request.json   the request body as sent upstream (history cleaned)
//	ID.upstream       the upstream's answer body, as received (the first
//	                  attempt; retries in ID.upstream.2, ID.upstream.3, ...)
//	ID.response       the body the client received
//	ID.meta.json      method, path, API, model, model label, upstream,
//	                  status, the request headers without credentials
//
// Files are created 0600 in a directory made 0700: they hold prompts. A
// file that cannot be written ends that exchange's capture with a warning;
// the exchange itself goes on.

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// captureSeq numbers the captures of the process, after their time.
var captureSeq atomic.Uint64

// capture is the files of one exchange.
type capture struct {
	dir, id string
	log     *slog.Logger
	mu      sync.Mutex
	files   []*os.File
	upN     int
	broken  bool
	meta    captureMeta
}

// captureMeta is ID.meta.json.
type captureMeta struct {
	Time     string            `json:"time"`
	Method   string            `json:"method"`
	Path     string            `json:"path"`
	API      string            `json:"api"`
	Model    string            `json:"model,omitempty"`
	Label    string            `json:"model_label"`
	Upstream string            `json:"upstream"`
	Status   int               `json:"status"`
	Attempts int               `json:"attempts"`
	Header   map[string]string `json:"request_headers"`
}

// newCapture starts the capture of a chat exchange: its request body and
// the request's headers, credentials left out. nil when p captures
// nothing or the directory cannot be made.
func (p *Proxy) newCapture(r *http.Request, x *chatExchange) *capture {
	if p.CaptureDir == "" || x == nil {
		return nil
	}
	now := time.Now().UTC()
	c := &capture{dir: p.CaptureDir, log: p.logger(),
		id: fmt.Sprintf("%s-%06d", now.Format("20060102T150405.000Z"), captureSeq.Add(1))}
	c.meta = captureMeta{Time: now.Format(time.RFC3339Nano), Method: r.Method, Path: r.URL.Path,
		API: x.api.String(), Model: x.model, Label: x.label, Header: map[string]string{}}
	for k, v := range r.Header {
		if !credentialHeader(k) {
			c.meta.Header[k] = strings.Join(v, ", ")
		}
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		c.fail(err)
		return nil
	}
	if f := c.create(".request.json"); f != nil {
		if _, err := f.Write(x.body); err != nil {
			c.fail(err)
		}
	}
	return c
}

// credentialHeader reports a header that may carry a secret.
func credentialHeader(name string) bool {
	n := strings.ToLower(name)
	for _, w := range [...]string{"auth", "key", "token", "secret", "cookie", "signature"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// create opens ID+suffix for writing; nil once the capture failed.
func (c *capture) create(suffix string) *os.File {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(c.dir, c.id+suffix), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		c.broken = true
		c.log.Warn("capture stopped", "id", c.id, "error", err.Error())
		return nil
	}
	c.files = append(c.files, f)
	return f
}

func (c *capture) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.broken {
		c.broken = true
		c.log.Warn("capture stopped", "id", c.id, "error", err.Error())
	}
}

// roundTrip wraps the upstream round trip: each answer's body is copied
// to ID.upstream (ID.upstream.N for the Nth attempt) as it is read.
func (c *capture) roundTrip(next func(*http.Request) (*http.Response, error)) func(*http.Request) (*http.Response, error) {
	if c == nil {
		return next
	}
	return func(req *http.Request) (*http.Response, error) {
		resp, err := next(req)
		if err != nil {
			return resp, err
		}
		c.mu.Lock()
		c.upN++
		n := c.upN
		c.mu.Unlock()
		suffix := ".upstream"
		if n > 1 {
			suffix = fmt.Sprintf(".upstream.%d", n)
		}
		if f := c.create(suffix); f != nil {
			resp.Body = &captureTee{ReadCloser: resp.Body, w: f, c: c}
		}
		return resp, nil
	}
}

// response copies the body the client receives to ID.response.
func (c *capture) response(resp *http.Response) {
	if c == nil {
		return
	}
	if f := c.create(".response"); f != nil {
		resp.Body = &captureTee{ReadCloser: resp.Body, w: f, c: c}
	}
}

// finish writes ID.meta.json and closes the files.
func (c *capture) finish(status int, upstream string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.meta.Status, c.meta.Upstream, c.meta.Attempts = status, upstream, c.upN
	c.mu.Unlock()
	if f := c.create(".meta.json"); f != nil {
		enc := json.NewEncoder(f)
		enc.SetIndent("", "  ")
		if err := enc.Encode(&c.meta); err != nil {
			c.fail(err)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range c.files {
		if err := f.Close(); err != nil && !c.broken {
			c.broken = true
			c.log.Warn("capture stopped", "id", c.id, "error", err.Error())
		}
	}
	c.files = nil
}

// captureTee copies what is read from a body to w; a failed write stops the
// copy (and the capture), never the read.
type captureTee struct {
	io.ReadCloser
	w    io.Writer
	c    *capture
	dead bool
}

func (t *captureTee) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	if n > 0 && !t.dead {
		if _, werr := t.w.Write(p[:n]); werr != nil {
			t.dead = true
			t.c.fail(werr)
		}
	}
	return n, err
}
