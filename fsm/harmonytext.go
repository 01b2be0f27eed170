package fsm

import (
	"bytes"

	"github.com/toolsieve/toolsieve/internal/swar"
)

// A harmony model whose special tokens were stripped (or never sampled)
// writes its call header as plain words before the arguments:
//
//	assistant to=functions.exec_command commentary json
//	{"cmd": "date"}
//
// the channel word often garbled (`մեկնաբանություն 付款json`). With
// declared tools, a bare JSON object right after such a header is a call
// of the recipient: the text just before the object (the prose watch of
// bareargs.go) must hold `to=functions.NAME`, NAME a declared tool, then
// at most maxHeaderWords words on its line, the last of them ending in
// `json` (the header's content type, `<|constrain|>json`), and at most
// that line's end before the object; not in code. Prose that explains the
// format (`to=functions.NAME then {..}`) names no content type. The call is harmony's, and carries
// missing_opener (its <|start|>, <|channel|> and <|message|> tokens were
// absent); the header, from its `=functions.` on, is its markup
// (headerSink below).

const (
	recipientPrefix = "to=functions."
	// holdPrefix is where a header sink starts to hold: the word `to` before
	// it has gone on as text (holding every chunk that ends in `t` or `to`
	// would cost prose dearly), so only `=functions.NAME ...` becomes the
	// call's markup.
	holdPrefix     = "=functions."
	maxHeaderWords = 4 // a channel (garbled into two words at most), the content type
)

// recipient returns the declared tool that a harmony header at the end of
// the held text names, or nil.
func (t *textTail) recipient(declared func([]byte) bool) []byte {
	b := t.buf[max(t.start, t.end-maxTail):t.end]
	i := bytes.LastIndex(b, []byte(recipientPrefix))
	if i < 0 {
		return nil
	}
	rest := b[i+len(recipientPrefix):]
	n := 0
	for n < len(rest) && (isIdentByte(rest[n]) || rest[n] == '-' || n > 0 && rest[n] == '.') {
		n++
	}
	name, header := rest[:n], rest[n:]
	if n == 0 || len(header) > 0 && header[0] != ' ' && header[0] != '\t' && header[0] != '\n' && header[0] != '\r' {
		return nil // `to=functions.a+b`: no recipient
	}
	if nl := bytes.IndexByte(header, '\n'); nl >= 0 {
		if !isBlank(header[nl:]) {
			return nil // a line of other text between the header and the object
		}
		header = header[:nl]
	}
	words := bytes.Fields(header)
	if len(words) == 0 || len(words) > maxHeaderWords || !bytes.HasSuffix(bytes.ToLower(words[len(words)-1]), []byte("json")) {
		return nil
	}
	if !declared(name) {
		return nil
	}
	return name
}

// harmonyRecipient names a call of bare arguments by the recipient of the
// plain-text harmony header before it, and reports whether it did.
func (m *Machine) harmonyRecipient() bool {
	name := m.tail.recipient(m.declared)
	if name == nil || m.call.unread || m.code != codeNone {
		return false
	}
	if a := bytes.TrimSpace(m.call.args); len(a) == 0 || a[0] != '{' {
		return false
	}
	if s, ok := lookup(harmonyDialect); ok && m.ix.on&specSet(s) != 0 {
		m.call.spec = s
	} else {
		return false // harmony is off: its headers are not read
	}
	m.call.name = m.keepName(name)
	m.call.repairs |= RMissingOpener
	return true
}

// The header's words must not reach the text when the object after them
// is its call: a header sink between the prose watch and the machine's
// output holds text from `=functions.` on while it may still be such a
// header (header words on its line, that line's end, whitespace; at most
// maxTail bytes), and a prefix of `to=functions.` that ends the text so
// far. The call named by the header takes the held bytes into its raw
// markup; anything else (more text, other events, the end of input) lets
// them go on as text, in order. It is on where the prose watch is and
// harmony is on.

// headerSink holds a possible plain-text harmony header.
type headerSink struct {
	Sink
	held    []byte // held text: a prefix of holdPrefix, or a header from it on
	full    bool   // held starts with the whole holdPrefix
	nl      bool   // the header's line ended
	scratch []byte
}

// watchHeaders puts a header sink under the prose watch when a plain-text
// harmony header can name a call.
func (m *Machine) watchHeaders() {
	ts, ok := m.sink.(tailSink)
	if h, _ := lookup(harmonyDialect); !ok || !m.ix.on.has(int(h.id)) {
		return
	}
	m.hdrSink = &headerSink{Sink: ts.Sink}
	ts.Sink = m.hdrSink
	m.sink = ts
}

// continues reports whether byte c may continue a held header.
func (s *headerSink) continues(c byte) bool {
	switch {
	case c == '{':
		return false // an object that was no call
	case s.nl:
		return c == ' ' || c == '\t' || c == '\r'
	case c == '\n':
		s.nl = true
	}
	return true
}

func (s *headerSink) Text(b []byte) {
	if len(s.held) == 0 && bytes.IndexByte(b, '=') < 0 {
		s.pass(b) // nothing held, and b holds no header's start: most text
		return
	}
	for len(b) > 0 {
		if s.full {
			i := 0
			for i < len(b) && s.continues(b[i]) {
				i++
			}
			s.held = append(s.held, b[:i]...)
			b = b[i:]
			if len(b) == 0 && len(s.held) <= maxTail {
				return
			}
			s.release()
			continue
		}
		x := b
		if len(s.held) > 0 { // a prefix held: read it again with b
			s.scratch = append(append(s.scratch[:0], s.held...), b...)
			x = s.scratch
			s.held = s.held[:0]
		}
		if i := bytes.Index(x, []byte(holdPrefix)); i >= 0 {
			s.pass(x[:i])
			s.held = append(s.held, holdPrefix...)
			s.full, s.nl = true, false
			b = x[i+len(holdPrefix):]
			continue
		}
		k := prefixTail(x)
		s.pass(x[:len(x)-k])
		s.held = append(s.held, x[len(x)-k:]...)
		return
	}
}

// pass passes text b on.
func (s *headerSink) pass(b []byte) {
	if len(b) > 0 {
		s.Sink.Text(b)
	}
}

// heldLen is the number of bytes held (s may be nil).
func (s *headerSink) heldLen() int {
	if s == nil {
		return 0
	}
	return len(s.held)
}

// mayHold reports whether text p might be held: text is held already, p
// holds holdPrefix, or ends in a prefix of it. Such text takes the long
// way, through the sink.
func (s *headerSink) mayHold(p []byte) bool {
	return len(s.held) > 0 || !eqFree(p) && mayHoldEq(p)
}

// eqFree reports whether p is short (a delta) and holds no '=', which
// both ways of holding need: four to eight bytes are tested as one word
// (internal/swar).
func eqFree(p []byte) bool {
	switch {
	case len(p) > 8:
		return false
	case len(p) >= 4:
		return swar.ZeroBytes(swar.Short(p)^('='*swar.Ones)) == 0
	}
	for _, c := range p {
		if c == '=' {
			return false
		}
	}
	return true
}

// mayHoldEq is mayHold for text p when nothing is held.
func mayHoldEq(p []byte) bool {
	i := bytes.IndexByte(p, '=')
	return i >= 0 && (prefixTail(p) > 0 || bytes.Contains(p[i:], []byte(holdPrefix)))
}

// prefixTail is the length of the longest proper prefix of holdPrefix that
// ends b.
func prefixTail(b []byte) int {
	from := max(0, len(b)-(len(holdPrefix)-1))
	i := bytes.LastIndexByte(b[from:], '=')
	if i < 0 {
		return 0
	}
	if k := len(b) - from - i; string(b[from+i:]) == holdPrefix[:k] {
		return k
	}
	return 0
}

// release passes the held bytes on as text.
func (s *headerSink) release() {
	s.pass(s.held)
	s.held, s.full, s.nl = s.held[:0], false, false
}

func (s *headerSink) Call(c *Call) {
	if s.full && c.Dialect == harmonyDialect && c.Repairs&RMissingOpener != 0 {
		raw := append(append(make([]byte, 0, len(s.held)+len(c.Raw)), s.held...), c.Raw...)
		c.Offset -= int64(len(s.held))
		c.Raw = raw
		s.held, s.full, s.nl = s.held[:0], false, false
	} else {
		s.release()
	}
	s.Sink.Call(c)
}

func (s *headerSink) Reasoning(text, raw []byte)   { s.release(); s.Sink.Reasoning(text, raw) }
func (s *headerSink) Discard(raw []byte, r Reason) { s.release(); s.Sink.Discard(raw, r) }
func (s *headerSink) Runaway(raw []byte, r Reason) { s.release(); s.Sink.Runaway(raw, r) }
func (s *headerSink) Error(msg string, off int64)  { s.release(); s.Sink.Error(msg, off) }

// releaseHeader lets a header still held at the end of input go on as text.
func (m *Machine) releaseHeader() {
	if m.hdrSink != nil {
		m.hdrSink.release()
	}
}
