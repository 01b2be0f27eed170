package fsm

import (
	"bytes"
	"unicode/utf8"

	"github.com/toolsieve/toolsieve/lexer"
)

// The short path for prose. Most chunks of a stream are text that cannot
// be markup: WritePlain passes them on with a table scan and a few stores.
// Whether the state allows it is kept in one flag, m.plain, set after
// every Write from the states that take the long way (idle), so that the
// short path tests one field instead of each of them.

// plainStop marks the bytes that keep a chunk off the fast path: marker
// triggers, '{' (text openers) and '>' (tags without '<'); newlines are
// looked at.
var plainStop = func() (t [256]bool) {
	t = lexer.Triggers()
	t['{'], t['\n'], t['>'] = true, true, true
	return t
}()

// markerStart marks the bytes that may start a marker (the lexer's
// triggers): a chunk without them is one text token.
var markerStart = lexer.Triggers()

// idle reports whether the state lets plain text through WritePlain: the
// text level, outside code, with nothing held (a word line, a label, a
// call that may belong to a loop, a marker's start) and no stray closers
// in a row.
func (m *Machine) idle() bool {
	return m.lv == lvText && m.code == codeNone && m.wl == wlNone && !m.labelHeld() &&
		m.strays == 0 && !m.loop.busy() && m.lex.Idle()
}

// WritePlain consumes p and reports true when p is plain text that changes
// no state: the caller then reports p as text itself, without the sink.
// Otherwise it consumes nothing and the caller uses Write.
func (m *Machine) WritePlain(p []byte) bool { return m.plain && m.writePlain(p) }

func (m *Machine) writePlain(p []byte) bool {
	if len(p) == 0 {
		return false
	}
	stop := false
	for _, c := range p {
		if plainStop[c] {
			stop = true
			break
		}
	}
	atLine := false
	if stop {
		var ok bool
		if atLine, ok = m.plainLines(p); !ok {
			return false
		}
	} else if m.atLine && heldLead[p[0]] { // a line may be a word line (see wordLine)
		return false
	}
	// p's end must not be inside a UTF-8 sequence, nor a prefix of a word
	// opener's word (`func` of `functools[`), which is held back.
	last := p[len(p)-1]
	if last >= utf8.RuneSelf || m.ix.leads && pt.mayEndWord(p) && m.leadTail(p, pt.all) >= 0 {
		return false
	}
	m.lex.Skip(p) // the lexer is idle (m.plain)
	m.atLine = atLine
	m.prev = last
	if m.tail != nil {
		m.tail.write(p) // the text bare arguments may follow (bareargs.go)
	}
	return true
}

// plainLines is WritePlain for a chunk that holds a byte of plainStop:
// newlines are looked at, anything else takes the long way (ok false).
// atLine reports whether the byte after p starts a line.
func (m *Machine) plainLines(p []byte) (atLine, ok bool) {
	nl := -1
	for i, c := range p {
		if plainStop[c] {
			if c != '\n' && (c != '>' || m.bareOn()) { // '>' may end a tag written without '<' (bare.go)
				return false, false
			}
			if c == '\n' {
				nl = i
			}
		}
	}
	// A line may be a word line (see wordLine): those chunks take the long way.
	switch {
	case nl < 0:
		return false, !m.atLine || !heldLead[p[0]]
	case nl == len(p)-1:
		start := bytes.LastIndexByte(p[:nl], '\n') + 1
		return true, (start == 0 && !m.atLine) || !isLowerWord(p[start:nl])
	default:
		return false, !heldLead[p[nl+1]]
	}
}

// valueStop marks the bytes that keep a chunk of a value off the short
// path: marker triggers and '>' (misspelt closers).
var valueStop = func() (t [256]bool) {
	t = markerStart
	t['>'] = true
	return t
}()

// writeValue takes chunk p whole when it is more of an argument's value,
// and reports whether it did. A chunk that holds nothing that may be
// markup is added at once; one that holds triggers or '>' goes through
// valuefast.go. The state does not change but where a token may mean
// something (then m.plain is set again).
func (m *Machine) writeValue(p []byte) bool {
	if m.pend.active || len(m.buf)+m.lex.Holding()+len(p) > m.opt.MaxCall { // the cap is not hit here
		return false
	}
	switch {
	case len(p) > 0 && p[len(p)-1] < utf8.RuneSelf && m.lex.Idle() && !hasAny(p, &valueStop):
		m.lex.Skip(p) // lexer.Plain, inlined
		if n := len(m.buf); n+len(p) <= cap(m.buf) {
			m.buf = m.buf[:n+len(p)] // add, inlined where there is room
			copy(m.buf[n:], p)
		} else {
			m.add(p)
		}
		m.prev = p[len(p)-1]
	case !m.lex.Idle():
		m.writeValueTokens(p)
	default:
		m.writeValueRun(p)
	}
	return true
}
