package main

// What an input is: a capture may start with HTTP response headers (curl -i
// writes them), then holds an SSE stream, a whole JSON chat body, or the
// model's text itself. The start of the input is read and kept while this
// is decided, so nothing read is lost.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/textproto"
	"strings"

	"github.com/toolsieve/toolsieve/chat"
)

// inputKind is what an input holds.
type inputKind uint8

const (
	kindAuto inputKind = iota // decided from the input
	kindText                  // the model's content itself
	kindSSE                   // a streamed chat response
	kindJSON                  // a whole chat response or request
)

// inputKindNames are the --input values, by kind.
var inputKindNames = [...]string{kindAuto: "auto", kindText: "text", kindSSE: "sse", kindJSON: "json"}

func parseInputKind(s string) (inputKind, bool) {
	for k, n := range inputKindNames {
		if s == n {
			return inputKind(k), true
		}
	}
	return kindAuto, false
}

// Bounds of what is held while an input is looked at.
const (
	maxHeaderBytes = 64 << 10 // HTTP response headers at the start of a capture
	maxSniffBytes  = 512      // the start of a body, to tell SSE from text
	maxDocBytes    = 64 << 20 // a whole JSON document
)

// errDocTooLarge is returned for a JSON document over maxDocBytes.
var errDocTooLarge = fmt.Errorf("JSON document larger than %d MiB", maxDocBytes>>20)

// head reads the start of an input and keeps it until it is consumed.
type head struct {
	r   io.Reader
	buf []byte // read and not consumed
	err error  // what ended the input (io.EOF at its end), once it ended
	tmp []byte
}

func newHead(r io.Reader) *head { return &head{r: r, tmp: make([]byte, 32<<10)} }

// fill reads once more into buf; it returns false once the input has ended.
func (h *head) fill() bool {
	for h.err == nil {
		n, err := h.r.Read(h.tmp)
		h.buf = append(h.buf, h.tmp[:n]...)
		if err != nil {
			h.err = err
		}
		if n > 0 {
			return true
		}
	}
	return false
}

// rest returns what was not consumed followed by the rest of the input; a
// read error that ended the input comes after the bytes read before it.
func (h *head) rest() io.Reader {
	tail := h.r
	if h.err != nil {
		tail = errReader{h.err}
	}
	return io.MultiReader(bytes.NewReader(h.buf), tail)
}

// all reads the input to its end, at most max bytes; err is a read error.
func (h *head) all(max int) ([]byte, error) {
	for len(h.buf) <= max && h.fill() {
	}
	switch {
	case h.err != nil && h.err != io.EOF:
		return nil, h.err
	case len(h.buf) > max:
		return nil, errDocTooLarge
	}
	return h.buf, nil
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// httpHead is what the HTTP response headers at the start of a capture say.
type httpHead struct {
	n           int    // their bytes
	contentType string // the media type of the last block's Content-Type
}

// skipHTTPHeaders consumes the HTTP response header blocks a capture starts
// with ("HTTP/1.1 200 OK" and header lines up to a blank line; several when
// an interim response or a proxy's CONNECT answer came first). An input
// that does not start with "HTTP/", or whose headers do not end within
// maxHeaderBytes, is left as it is.
func skipHTTPHeaders(h *head) (hh httpHead) {
	for {
		for len(h.buf) < len("HTTP/") && h.fill() {
		}
		if !bytes.HasPrefix(h.buf, []byte("HTTP/")) {
			return hh
		}
		end := -1
		for {
			if end = headerEnd(h.buf); end >= 0 || len(h.buf) > maxHeaderBytes || !h.fill() {
				break
			}
		}
		if end < 0 || end > maxHeaderBytes {
			return hh
		}
		tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(h.buf[:end])))
		tp.ReadLine() // the status line
		if mh, err := tp.ReadMIMEHeader(); err == nil || errors.Is(err, io.EOF) {
			mt, _, _ := mime.ParseMediaType(mh.Get("Content-Type"))
			hh.contentType = mt
		}
		hh.n += end
		h.buf = h.buf[end:]
	}
}

// headerEnd returns the offset just past the blank line that ends a header
// block at the start of b, or -1.
func headerEnd(b []byte) int {
	crlf := bytes.Index(b, []byte("\r\n\r\n"))
	lf := bytes.Index(b, []byte("\n\n"))
	switch {
	case crlf >= 0 && (lf < 0 || crlf < lf):
		return crlf + 4
	case lf >= 0:
		return lf + 2
	}
	return -1
}

// sniffBody tells, from the start of a body, whether it is an SSE stream,
// a JSON document (it starts with "{") or text; it reads as much as it
// needs, at most maxSniffBytes.
func sniffBody(h *head) inputKind {
	for {
		b := bytes.TrimPrefix(h.buf, []byte("\xEF\xBB\xBF"))
		if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 && t[0] == '{' {
			return kindJSON
		}
		isSSE, sure := chat.LooksLikeSSE(h.buf)
		if sure {
			if isSSE {
				return kindSSE
			}
			return kindText
		}
		if len(h.buf) >= maxSniffBytes || !h.fill() {
			return kindText
		}
	}
}

// kindOfMediaType is the kind a Content-Type declares, or kindAuto.
func kindOfMediaType(mt string) inputKind {
	switch {
	case mt == "text/event-stream":
		return kindSSE
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return kindJSON
	}
	return kindAuto
}
