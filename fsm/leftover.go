package fsm

import (
	"bytes"

	"github.com/toolsieve/toolsieve/internal/swar"
	"github.com/toolsieve/toolsieve/lexer"
)

// Wrappers of no dialect around a recovered call. Models put their calls
// in a wrapper they made up, or one a harness taught them, on lines of
// its own: a code fence (```json, ```tool_call), a tag (<use_kimi>), a
// bracket token ([TOOL_REQUEST] ... [END_TOOL_REQUEST]). No dialect owns
// it, so the machine gives it to the text, and the user is shown
// "```json" and "```" around nothing. The wrapper is markup when a call
// was recovered right inside it:
//
//   - the lead: a line at a line start that holds only a fence opener
//     (backticks and a one-word info string), a bare tag opener (<name>,
//     no attributes) or a bracket token ([NAME], upper case), followed by
//     only whitespace up to a call. It is held (at most maxLead bytes)
//     and, when a call comes next, goes into the call's raw bytes; the
//     call carries the stray_marker repair. Anything else next (text, an
//     event that is no call, the end) lets it go on as text.
//   - its closer: after that call, whitespace and the lead's closer (the
//     same backticks; </name>; [END_NAME] or [/NAME]) are discarded as
//     the wrapper's markup (block_markup). Anything else lets them go on
//     as text.
//
// It never eats a marker in prose (the lead must be alone on its line and
// a call must follow it) or in code (markup in code makes no call). It
// costs text one look for line ends while not idle (plain text passes
// by on the short path).

// maxLead bounds the bytes a lead, with the whitespace after it, holds, and
// the bytes held after a call for its wrapper's closer.
const maxLead = 160

// leftSink sits between the loop hold and the sink given to New.
type leftSink struct {
	Sink
	held    []byte // a lead, whole or in part, and whitespace after it
	start   bool   // the next text byte starts a line
	started bool   // a call started (CallStart) while held
	closer  []byte // the closer the last call's lead calls for; nil: none
	tail    []byte // text held after that call: whitespace and part of closer
	// m is the machine: a fence line is a lead only when the call came
	// from the body of the fence it opened (not after a closing one).
	m      *Machine
	called bool // a call was reported (cutmarker.go)
	// blank: since the last call (or the start of the answer, before
	// any), only whitespace and discarded markup went by (turnend.go,
	// fencecall.go).
	blank bool
}

func newLeftSink(out Sink, m *Machine) *leftSink {
	return &leftSink{Sink: out, start: true, m: m, blank: true}
}

// busy reports whether the sink holds text or waits for a closer: the
// short path for plain text is then closed.
func (s *leftSink) busy() bool { return len(s.held) > 0 || s.closer != nil }

func (s *leftSink) heldLen() int { return len(s.held) + len(s.tail) }

func (s *leftSink) Text(b []byte) {
	if len(b) > 0 && s.closer == nil && len(s.held) == 0 && !(s.start && leadByte(b[0])) &&
		inLine(b) { // the short way: text inside a line, no lead
		s.start = false
		if s.blank {
			s.blank = isBlank(b)
		}
		s.Sink.Text(b)
		return
	}
	for len(b) > 0 {
		switch {
		case s.closer != nil:
			b = b[s.after(b):]
		case len(s.held) > 0 || s.start && leadByte(b[0]):
			b = b[s.lead(b):]
		default:
			n := s.plain(b)
			if s.blank { // inline: the short way for text
				s.blank = isBlank(b[:n])
			}
			s.Sink.Text(b[:n])
			b = b[n:]
		}
	}
}

// inLine reports whether b is short (a stream's delta) and holds no
// newline; it is looked at in line, four to eight bytes as one word.
func inLine(b []byte) bool {
	if len(b) >= 4 && len(b) <= 8 {
		return swar.ZeroBytes(swar.Short(b)^('\n'*swar.Ones)) == 0
	}
	if len(b) > 16 {
		return false
	}
	for _, c := range b {
		if c == '\n' {
			return false
		}
	}
	return true
}

// text passes b on as text.
func (s *leftSink) text(b []byte) {
	s.blank = s.blank && isBlank(b)
	s.Sink.Text(b)
}

// plain returns how many bytes of b are text that holds no lead: up to
// the first line start in it that may begin one.
func (s *leftSink) plain(b []byte) int {
	j := 0
	for {
		i := bytes.IndexByte(b[j:], '\n')
		if i < 0 {
			s.start = false
			return len(b)
		}
		j += i + 1
		if j == len(b) || leadByte(b[j]) {
			s.start = true
			return j
		}
	}
}

// lead adds to the held lead the bytes of b that may still belong to it,
// and returns how many it took; at the first that may not, it lets the
// held bytes go on as text (a lead that began in b: with the rest of b).
func (s *leftSink) lead(b []byte) int {
	old := len(s.held)
	s.held = append(s.held, b...) // most often all of b may belong to it: one look
	k := min(leadFit(s.held), maxLead)
	if k == len(s.held) {
		return len(b)
	}
	s.held = s.held[:k] // k >= old: the held bytes may belong to it
	if old == 0 {
		s.held, s.start = s.held[:0], false
		return 0
	}
	s.release()
	return k - old
}

// release lets the held lead go on as text.
func (s *leftSink) release() {
	if len(s.held) == 0 {
		return
	}
	s.start = s.held[len(s.held)-1] == '\n'
	s.text(s.held)
	s.held, s.started = s.held[:0], false
}

// after takes text after a call whose lead calls for a closer: whitespace,
// then the closer, discarded; at the first byte that does not fit, the
// held bytes go on as text. It returns how many bytes of b it took.
func (s *leftSink) after(b []byte) int {
	fresh := len(s.tail) == 0
	for i, c := range b {
		s.tail = append(s.tail, c)
		// Held bytes stay within maxLead (whitespace and a closer take no
		// more): a fixed hold-back, and the look below is bounded.
		ws := bytes.TrimLeft(s.tail, " \t\r\n")
		if len(ws) == 0 && len(s.tail) <= maxLead {
			continue
		}
		altPrefix, alt := altCloser(s.closer, ws)
		if bytes.Equal(ws, s.closer) || alt {
			s.Sink.Discard(s.tail, DiscardBlockMarkup)
			s.tail, s.closer, s.start = s.tail[:0], nil, false
			return i + 1
		}
		if len(s.tail) <= maxLead && (bytes.HasPrefix(s.closer, ws) || altPrefix) {
			continue
		}
		s.tail = s.tail[:len(s.tail)-1]
		if fresh { // no closer here: b goes on whole
			s.tail, s.closer = s.tail[:0], nil
			return 0
		}
		s.endWait()
		return i
	}
	return len(b)
}

// endWait stops waiting for a closer: what was held after the call goes
// on as text.
func (s *leftSink) endWait() {
	if len(s.tail) > 0 {
		s.start = s.tail[len(s.tail)-1] == '\n'
		s.text(s.tail)
	}
	s.tail, s.closer = s.tail[:0], nil
}

// takes reports whether the held bytes are a whole lead for the call that
// comes now: a fence line only for a call read from the fence's body.
func (s *leftSink) takes() bool {
	whole := wholeLead(s.held) || s.m.fenceLineLead(s.held) // fenceline.go
	return whole && len(s.held) > 0 && (s.held[0] == '`') == (s.m.code == codeFence)
}

// nextCall reports whether a call that comes now is inside the wrapper
// whose closer is awaited (only whitespace since the last call): the
// whitespace goes on as text and the closer is still awaited. Otherwise
// waiting ends.
func (s *leftSink) nextCall() bool {
	if s.closer == nil || !isBlank(s.tail) {
		s.endWait()
		return false
	}
	if len(s.tail) > 0 {
		s.text(s.tail)
		s.tail = s.tail[:0]
	}
	return true
}

// flush lets everything held go on, before an event that is no call.
func (s *leftSink) flush() {
	s.endWait()
	s.release()
}

func (s *leftSink) CallStart(name []byte) {
	s.nextCall()
	if s.takes() {
		s.started = true // the call it leads has started: it waits for its end
	} else {
		s.release()
	}
	s.Sink.CallStart(name)
}

func (s *leftSink) Call(c *Call) {
	if s.nextCall() {
		s.called, s.blank = true, true
		s.Sink.Call(c) // another call inside the same wrapper
		return
	}
	if s.takes() && (s.m.opt.Declared == nil || s.m.opt.Declared(c.Name)) { // an undeclared call goes back to the text, its lead with it
		raw := append(append(make([]byte, 0, len(s.held)+len(c.Raw)), s.held...), c.Raw...)
		c.Raw, c.Offset, c.Stable = raw, c.Offset-int64(len(s.held)), false
		c.Repairs |= RStrayMarker
		s.closer = closerOf(s.held)
		s.held, s.started = s.held[:0], false
	} else {
		s.release()
		s.closer = labelCloser(c) // label.go
	}
	s.start, s.called, s.blank = false, true, true
	s.Sink.Call(c)
}

func (s *leftSink) Reasoning(text, raw []byte) {
	s.flush()
	s.blank = false
	s.Sink.Reasoning(text, raw)
}

// Discard: markup discarded after the call (its own block's closer) keeps
// the wrapper's closer awaited.
func (s *leftSink) Discard(raw []byte, reason Reason) {
	if !s.nextCall() {
		s.release()
	}
	s.start = false
	s.Sink.Discard(raw, reason)
}

func (s *leftSink) Runaway(raw []byte, reason Reason) {
	s.flush()
	s.Sink.Runaway(raw, reason)
}

// Error: a call that started after the lead is given back as text; its
// error comes first, right after its start, then the lead and its markup.
func (s *leftSink) Error(msg string, offset int64) {
	s.endWait()
	s.blank = false
	if !s.started {
		s.release()
	}
	s.Sink.Error(msg, offset)
	s.release()
}

func (s *leftSink) CallError(reason Reason, name []byte, msg string, offset int64) {
	s.endWait()
	s.blank = false
	if !s.started {
		s.release()
	}
	callError(s.Sink, reason, name, msg, offset)
	s.release()
}

// The arguments of a started call go to the sink given to New.

func (s *leftSink) Arg(name, value []byte, hint Hint) {
	if as, ok := s.Sink.(argSink); ok {
		as.Arg(name, value, hint)
	}
}

func (s *leftSink) ArgPrefix(name, prefix []byte, hint Hint) {
	if as, ok := s.Sink.(argSink); ok {
		as.ArgPrefix(name, prefix, hint)
	}
}

func (s *leftSink) JSONArg(key, value []byte) {
	if as, ok := s.Sink.(argSink); ok {
		as.JSONArg(key, value)
	}
}

func (s *leftSink) JSONArgPrefix(key, body []byte) {
	if as, ok := s.Sink.(argSink); ok {
		as.JSONArgPrefix(key, body)
	}
}

// leadByte reports whether a line that starts with c may be a lead.
func leadByte(c byte) bool { return c == '`' || c == '<' || c == '[' }

// wholeLead reports whether h is a whole lead: its line ended, and only
// whitespace followed.
func wholeLead(h []byte) bool {
	n, done := leadPrefix(h)
	return done && isBlank(h[n:])
}

// leadFit returns how many bytes at the start of h may still become a
// lead: every prefix of h up to it may, and none longer (a byte that
// cannot belong to a lead makes no longer text one), so one look finds
// where held text stops being one.
func leadFit(h []byte) int {
	n, done := leadPrefix(h)
	if done {
		for n < len(h) && isSpace(h[n]) {
			n++
		}
	}
	return n
}

// leadPrefix reads the lead's own line at the start of h: the bytes up
// to and with its line end and whether that came (done); when it did not
// and n < len(h), h[n] is the first byte that cannot belong to a lead.
func leadPrefix(h []byte) (n int, done bool) {
	if len(h) == 0 {
		return 0, false
	}
	i := 0
	switch h[0] {
	case '`':
		for i < len(h) && h[i] == '`' {
			i++
		}
		if i == len(h) || i < 3 || i > 16 {
			return i, false
		}
		for k := 0; i < len(h) && (isWordByte(h[i]) || isDigit(h[i])); i, k = i+1, k+1 {
			if k >= maxFenceInfo {
				return i, false
			}
		}
	case '<', '[':
		end := byte('>')
		if h[0] == '[' {
			end = ']'
		}
		i = 1
		for ; i < len(h) && h[i] != end; i++ {
			c := h[i]
			word := isWordByte(c) || isDigit(c) || c == '-' && h[0] == '<'
			if !word || i > lexer.MaxNameLen || i == 1 && !isLetter(c) || h[0] == '[' && c >= 'a' && c <= 'z' {
				return i, false
			}
		}
		if i == len(h) || i == 1 {
			return i, false
		}
		i++
	default:
		return 0, false
	}
	for ; i < len(h); i++ {
		switch h[i] {
		case ' ', '\t', '\r':
		case '\n':
			return i + 1, true
		default:
			return i, false
		}
	}
	return i, false
}

// closerOf returns the closer that whole lead h calls for.
func closerOf(h []byte) []byte {
	h = bytes.TrimRight(h, " \t\r\n")
	switch h[0] {
	case '`':
		n := 0
		for n < len(h) && h[n] == '`' {
			n++
		}
		return append([]byte(nil), h[:n]...)
	case '<':
		return append(append([]byte("</"), h[1:len(h)-1]...), '>')
	}
	return append(append([]byte("[END_"), h[1:len(h)-1]...), ']')
}

// altCloser reports whether b may be the start (prefix) of [/NAME], the
// other spelling of the closer [END_NAME], and whether it is all of it
// (whole); both are false for any other closer. It allocates nothing: it
// runs on every byte after such a call.
func altCloser(closer, b []byte) (prefix, whole bool) {
	name, ok := bytes.CutPrefix(closer, []byte("[END_"))
	if !ok || len(b) > len("[/")+len(name) {
		return false, false
	}
	for i, c := range b {
		want := byte('[')
		switch {
		case i == 1:
			want = '/'
		case i > 1:
			want = name[i-2]
		}
		if c != want {
			return false, false
		}
	}
	return true, len(b) == len("[/")+len(name)
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
