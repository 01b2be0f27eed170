package chat

// Reading a model's content out of a body: plain text, or a streamed chat
// response (SSE) of any of the APIs, and the parser's events over it.

import (
	"bytes"
	"io"
	"iter"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/sse"
)

// Input says what a body holds.
type Input uint8

// Input kinds.
const (
	// InputAuto is SSE when the body starts like an event stream (see
	// LooksLikeSSE), else text.
	InputAuto Input = iota
	// InputText is the model's content itself.
	InputText
	// InputSSE is a streamed chat response.
	InputSSE
)

// LooksLikeSSE reports whether prefix starts like an event stream: after an
// optional byte order mark and whitespace, a "data:", "event:", "id:",
// "retry:" or comment (":") line. sure is false when prefix is too short
// to tell (more input may change the answer).
func LooksLikeSSE(prefix []byte) (isSSE, sure bool) {
	const bom = "\xEF\xBB\xBF"
	p := prefix
	switch {
	case bytes.HasPrefix(p, []byte(bom)):
		p = p[len(bom):]
	case len(p) > 0 && len(p) < len(bom) && string(p) == bom[:len(p)]:
		return false, false // part of a byte order mark
	}
	p = bytes.TrimLeft(p, " \t\r\n")
	if len(p) == 0 {
		return false, false
	}
	if p[0] == ':' {
		return true, true
	}
	for _, f := range []string{"data:", "event:", "id:", "retry:"} {
		n := min(len(p), len(f))
		if string(p[:n]) == f[:n] {
			if n == len(f) {
				return true, true
			}
			return false, false
		}
	}
	return false, true
}

// ContentReader reads the content a model wrote out of a body: the body
// itself for text, or for an SSE chat response the text deltas (OpenAI
// choice 0's delta.content; Anthropic text_delta) with reasoning deltas and
// undecodable frames reported as events. Native tool calls in the stream
// are not content and are skipped.
type ContentReader struct {
	r   io.Reader
	in  Input
	api API
	buf []byte
	// sniff holds the first bytes while InputAuto decides.
	sniff   []byte
	dec     sse.Decoder
	pending []sse.Event
	next    int
	content []byte
	events  []toolsieve.Event
	err     error
	eof     bool
	frames  int // SSE message events decoded
}

// NewContentReader returns a reader of r's content; api may be APIAuto.
func NewContentReader(r io.Reader, in Input, api API) *ContentReader {
	return &ContentReader{r: r, in: in, api: api, buf: make([]byte, 32<<10)}
}

// Next returns the next piece of content and the events found before it
// (reasoning from a separate channel, errors). Both are valid until the next
// call. At the end of the input it returns io.EOF; any other error is a read
// error. A piece and events may come with an error; use them first.
func (c *ContentReader) Next() (content []byte, events []toolsieve.Event, err error) {
	for {
		if c.in == InputAuto {
			if err := c.decide(); err != nil {
				return nil, nil, err
			}
			continue
		}
		if c.in == InputText {
			if len(c.sniff) > 0 {
				s := c.sniff
				c.sniff = nil
				return s, nil, nil
			}
			if c.eof {
				return nil, nil, c.final()
			}
			n, err := c.r.Read(c.buf)
			if err != nil {
				c.eof, c.err = true, err
			}
			if n > 0 || err != nil {
				if err == io.EOF {
					err = nil
					if n == 0 {
						err = io.EOF
					}
				}
				return c.buf[:n], nil, err
			}
			continue
		}
		// SSE: hand out the decoded events one at a time.
		for c.next < len(c.pending) {
			ev := &c.pending[c.next]
			c.next++
			content, events := c.extract(ev)
			if len(content) > 0 || len(events) > 0 {
				return content, events, nil
			}
		}
		if c.eof {
			return nil, nil, c.final()
		}
		c.pending, c.next = c.pending[:0], 0
		var p []byte
		if len(c.sniff) > 0 {
			p, c.sniff = c.sniff, nil
		} else {
			n, err := c.r.Read(c.buf)
			p = c.buf[:n]
			if err != nil {
				c.eof, c.err = true, err
			}
		}
		evs, _ := c.dec.Feed(p)
		if c.eof {
			more, _ := c.dec.Close()
			evs = append(evs, more...)
		}
		for i := range evs {
			if evs[i].IsMessage() {
				c.frames++
			}
		}
		c.pending = evs
	}
}

// Frames returns how many SSE message events (blocks with data) were
// decoded so far: 0 after the end of an input read as SSE means it was not
// an event stream. It is 0 for text.
func (c *ContentReader) Frames() int { return c.frames }

func (c *ContentReader) final() error {
	if c.err == nil || c.err == io.EOF {
		return io.EOF
	}
	return c.err
}

// decide reads until the input kind is known.
func (c *ContentReader) decide() error {
	for {
		if isSSE, sure := LooksLikeSSE(c.sniff); sure {
			c.in = InputText
			if isSSE {
				c.in = InputSSE
			}
			return nil
		}
		if c.eof || len(c.sniff) >= 512 {
			break
		}
		n, err := c.r.Read(c.buf)
		c.sniff = append(c.sniff, c.buf[:n]...)
		if err != nil {
			c.eof, c.err = true, err
		}
	}
	c.in = InputText
	return nil
}

// extract takes the content and side events out of one SSE event.
func (c *ContentReader) extract(ev *sse.Event) ([]byte, []toolsieve.Event) {
	c.content, c.events = c.content[:0], c.events[:0]
	if ev.Err != nil {
		c.events = append(c.events, toolsieve.Event{Type: toolsieve.Error, Message: ev.Err.Error(), Offset: ev.Err.Offset})
		return nil, c.events
	}
	if !ev.IsMessage() || string(bytes.TrimSpace(ev.Data)) == "[DONE]" {
		return nil, nil
	}
	data := ev.Data
	if !jsonspan.Valid(data) {
		c.events = append(c.events, toolsieve.Event{Type: toolsieve.Error, Message: "malformed JSON in a stream event", Offset: ev.Offset})
		return nil, c.events
	}
	if c.api == APIAuto {
		c.api = detectEventAPI(ev.Type, data)
	}
	ms, ok := jsonspan.Members(data, 0, nil)
	if !ok {
		return nil, nil
	}
	if m, has := jsonspan.Lookup(data, ms, "error"); has && !jsonspan.IsNull(data, m) {
		msg := "upstream error: " + string(data[m.Start:m.End])
		c.events = append(c.events, toolsieve.Event{Type: toolsieve.Error, Message: msg, Offset: ev.Offset})
		return nil, c.events
	}
	if cd := c.api.codec(); cd != nil {
		cd.content(c, data, ms)
	}
	return c.content, c.events
}

// Events parses the content of r (text, or an SSE chat response of either
// API: see ContentReader) and yields the parser's events in order. An
// event is valid until the next iteration (use Event.Clone to keep it). A
// read error is yielded last, with a zero Event.
func Events(r io.Reader, opt toolsieve.Options) iter.Seq2[toolsieve.Event, error] {
	return func(yield func(toolsieve.Event, error) bool) {
		cr := NewContentReader(r, InputAuto, APIAuto)
		p := toolsieve.NewParser(opt)
		for {
			content, evs, err := cr.Next()
			for _, e := range evs {
				if !yield(e, nil) {
					return
				}
			}
			if len(content) > 0 {
				for _, e := range p.Feed(content) {
					if !yield(e, nil) {
						return
					}
				}
			}
			if err != nil {
				for _, e := range p.Close() {
					if !yield(e, nil) {
						return
					}
				}
				if err != io.EOF {
					yield(toolsieve.Event{}, err)
				}
				return
			}
		}
	}
}
