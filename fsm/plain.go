package fsm

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"

	"github.com/toolsieve/toolsieve/internal/swar"
	"github.com/toolsieve/toolsieve/lexer"
)

// The short path for prose. Most chunks of a stream are text that cannot
// be markup: WritePlain passes them on with a table scan and a few stores.
// Whether the state allows it is kept in one flag, m.plain, set after
// every Write from the states that take the long way (idle), so that the
// short path tests one field instead of each of them.

// plainStop marks the bytes that keep a chunk off the short path: marker
// triggers, '{' (text openers) and '>' (tags without '<'); newlines, '>'
// and '*' (symbol openers' first bytes, probeline.go) are looked at.
var plainStop = func() (t [256]bool) {
	t = lexer.Triggers()
	t['{'], t['\n'], t['>'], t['*'] = true, true, true, true
	return t
}()

// markerStart marks the bytes that may start a marker (the lexer's
// triggers): a chunk without them is one text token.
var markerStart = lexer.Triggers()

// idle reports whether the state lets plain text through WritePlain: the
// text level, outside code, with nothing held (a word line, a label, a
// call that may belong to a loop, a marker's start) and no stray closers
// in a row.
// Its first tests are made in line: in code or a call they fail.
func (m *Machine) idle() bool {
	return m.lv == lvText && m.code == codeNone && m.idleText()
}

// idleText is idle at the text level outside code.
func (m *Machine) idleText() bool {
	return m.wl == wlNone && !m.labelHeld() && !m.fresh &&
		m.strays == 0 && m.openers == 0 && !m.loop.busy() && !m.left.busy() && m.thinking() == nil && m.lex.Idle()
}

// WritePlain consumes p when it is plain text that changes no state, and
// reports ok: the caller then reports as text itself, without the sink,
// held (bytes an earlier WritePlain held back, valid until the next Write)
// and then p[:n]. p[n:] is the prefix of an opener's word (`func` of
// `functools[`) or a line's first word that p's end cuts (lineword.go): it
// is held back unwritten, as if it had not arrived, until a chunk shows
// what it is; Write and Close write it first.
// Otherwise WritePlain consumes nothing and the caller uses Write.
func (m *Machine) WritePlain(p []byte) (held []byte, n int, ok bool) {
	if m.fresh && len(p) > 0 && !mayNameLine(p) {
		m.fresh = false // the output's first line is no name line (probeline.go)
	}
	if !m.plain || len(p) == 0 || !shortPaths {
		return nil, 0, false
	}
	if m.ix.sentinel && p[len(p)-1] == ']' { // it may begin a sentinel (childtags.go)
		return nil, 0, false
	}
	n = len(p)
	// A chunk of four to seven bytes (a token's worth, the most common) is
	// tested in line as one word: the calls of the scans cost more.
	w, short := uint64(0), n >= 4 && n < 8
	if short {
		w = swar.Short(p)
	}
	if s := m.hdrSink; s != nil && (len(s.held) > 0 || (!short || swar.ZeroBytes(w^('='*swar.Ones)) != 0) && s.mayHold(p)) {
		return nil, 0, false // a plain-text harmony header (harmonytext.go; a short chunk without '=' is let through here, eqFree tests the others)
	}
	stop := !short || mayStop(w) // for a short chunk: it holds a stop byte
	atLine := false
	if stop || m.atLine {
		switch {
		case m.word.lineWord(): // a line's first word is held (lineword.go): m.atLine is set
			return m.afterLineWord(p)
		case stop:
			if stop, atLine, ok = m.plainStops(p); !ok {
				return m.holdLineWord(p)
			}
			if !stop && m.atLine && m.lineHeld(p) { // a long chunk without stop bytes
				return m.holdLineWord(p)
			}
		case m.lineHeld(p): // a line may be a word line (see wordLine) or a call
			return m.holdLineWord(p)
		}
	}
	if p[n-1] >= utf8.RuneSelf { // p's end must not be inside a UTF-8 sequence
		return nil, 0, false
	}
	if m.ix.leads && (m.word.holding() > 0 || pt.mayEndWord(p)) {
		return m.writeWord(p, atLine)
	}
	g := m.lex.Guard()
	g.InText(true)
	if (!stop || !g.WatchesLines()) && g.Pass(p) { // skipPlain, written out: the lexer is idle (m.plain); no newline looked for
		m.lex.Advance(p)
	} else if k := m.lex.Skip(p); m.guardFired() {
		return nil, m.stopPlain(p, k), true
	}
	m.prev = p[n-1]
	m.atLine = atLine
	m.left.start = atLine // the leftovers sink sees no plain text (leftover.go)
	m.left.blank = m.left.blank && isBlank(p)
	if m.tail != nil && !m.tail.writeToken(p) {
		m.tail.writeAny(p)
	}
	return nil, n, true
}

// writePlain is WritePlain for write, the long way's first step: the
// parser asked WritePlain already (Feed), so a machine that is neither
// idle nor at the output's start (in code, in a call) is told in line.
func (m *Machine) writePlain(p []byte) (held []byte, n int, ok bool) {
	if m.plain || m.fresh {
		held, n, ok = m.WritePlain(p)
	}
	return
}

// plainStops looks at the bytes of plainStop in p (plainLines): it
// reports whether p holds one, and plainLines' verdict.
func (m *Machine) plainStops(p []byte) (stop, atLine, ok bool) {
	first := nextStop(p, 0)
	if first == len(p) {
		return false, false, true
	}
	atLine, ok = m.plainLines(p, first)
	return true, atLine, ok
}

// skipPlain passes text b, after which a line starts if atLine. It
// returns the bytes of b that are text: all of them, or those before the
// loop when the guard fired in b (stopPlain).
func (m *Machine) skipPlain(b []byte, atLine bool) int {
	m.watchLines()
	k := m.lex.Skip(b) // the lexer is idle (m.plain)
	if m.guardFired() {
		return m.stopPlain(b, k)
	}
	m.prev = b[len(b)-1]
	m.atLine = atLine
	m.left.start = atLine
	m.left.blank = m.left.blank && isBlank(b)
	if m.tail != nil {
		m.tail.write(b) // the text bare arguments may follow (bareargs.go)
	}
	return k
}

// stopPlain stops the machine where the guard fired, at b[k], in plain
// text a short path passes on: b[:k] is text, the runaway is due next
// (discardStopped), and what follows is discarded. It returns k.
func (m *Machine) stopPlain(b []byte, k int) int {
	if len(b) > 0 && k > 0 {
		m.prev = b[k-1]
	}
	m.lv, m.plain, m.due = lvStopped, false, true
	m.scratch = m.scratch[:0] // from now on it holds bytes to discard
	if m.word != nil {
		m.word.n = 0 // the bytes it held come after the loop started
	}
	return k
}

// writeWord is WritePlain for plain text p that may end in a prefix of an
// opener's word, or that follows one held back: the bytes held and p, less
// the prefix that ends them, are passed.
func (m *Machine) writeWord(p []byte, atLine bool) (held []byte, n int, ok bool) {
	w := m.word
	if w.holding() > 0 {
		if m.atLine {
			return nil, 0, false // the held word starts a line: the long way
		}
		held = w.text()
		w.n = 0
	}
	n = len(p)
	if k := m.wordPrefix(held, p); k > 0 {
		if k > n {
			m.holdWord(held, p) // the held word goes on
			return nil, 0, true
		}
		n -= k
		m.holdWord(nil, p[n:])
	}
	if held != nil {
		if k := m.skipPlain(held, false); m.lv == lvStopped {
			m.scratch = append(m.scratch, held[k:]...) // held bytes after the loop started
			return held[:k], 0, true
		}
	}
	if n > 0 {
		if k := m.skipPlain(p[:n], atLine); m.lv == lvStopped {
			return held, k, true
		}
	}
	return held, n, true
}

// wordPrefix returns the length of the run of word bytes that ends held
// and then p when it is a prefix of an opener's word (leadTail), or 0.
func (m *Machine) wordPrefix(held, p []byte) int {
	var w [2*maxWord + 1]byte
	b := p
	if len(p) > maxWord {
		b = p[len(p)-maxWord-1:] // a longer run is no prefix: where it starts does not matter
	} else if held != nil {
		b = append(append(w[:0], held...), p...) // m.prev is the byte before held
	}
	if j := m.leadTail(b, pt.all); j >= 0 {
		return len(b) - j
	}
	return 0
}

// wordHold holds the prefix of an opener's word that ended a plain chunk,
// in one of two buffers in turn: bytes released by a Write stay valid
// until the next one, which may hold new bytes.
type wordHold struct {
	buf  [2][maxWord]byte
	cur  int  // the buffer in use
	n    int  // its bytes held (0: none)
	line bool // they are a line's first word (lineword.go)
	join [2 * maxWord]byte
}

// maxWord is the longest word of a text opener (probe.go checks it).
const maxWord = 16

func (w *wordHold) holding() int {
	if w == nil {
		return 0
	}
	return w.n
}

// text returns the bytes held.
func (w *wordHold) text() []byte { return w.buf[w.cur][:w.n] }

// holdWord holds a and then b, the prefix of an opener's word, in the
// buffer not in use.
func (m *Machine) holdWord(a, b []byte) {
	if m.word == nil {
		m.word = new(wordHold)
	}
	w := m.word
	w.cur ^= 1
	w.line = false
	w.n = copy(w.buf[w.cur][copy(w.buf[w.cur][:], a):], b) + len(a)
}

// flushWord writes the bytes held by WritePlain the long way, before any
// other input: they go on as the word they began.
func (m *Machine) flushWord() {
	if m.word.holding() == 0 {
		return
	}
	h := m.word.text()
	m.word.n = 0
	m.plain = false // not back to WritePlain
	m.write(h)
}

// Word-at-a-time scanning for the bytes of plainStop (internal/swar):
// eight bytes are tested at once for a zero byte in each of four masks,
// one per pair of stop bytes that differ in one bit ('\n' '*', '[' '{',
// '<' '>', '`').

// mayStop reports whether one of the eight bytes of w is in plainStop.
func mayStop(w uint64) bool {
	a := w &^ (0x20 * swar.Ones) // '*' as '\n', '{' as '['
	b := w &^ (0x02 * swar.Ones) // '>' as '<'
	return swar.ZeroBytes(a^('\n'*swar.Ones))|swar.ZeroBytes(a^('['*swar.Ones))|swar.ZeroBytes(b^('<'*swar.Ones))|swar.ZeroBytes(w^('`'*swar.Ones)) != 0
}

// nextStop returns the index of the first byte of plainStop in p at or
// after i, or len(p).
func nextStop(p []byte, i int) int {
	for ; i+8 <= len(p); i += 8 {
		if mayStop(binary.LittleEndian.Uint64(p[i:])) {
			break
		}
	}
	for ; i < len(p); i++ {
		if plainStop[p[i]] {
			return i
		}
	}
	return len(p)
}

// plainLines is WritePlain for a chunk that holds a byte of plainStop,
// the first at p[first] (the next ones found by a stopScan): newlines are
// looked at, anything else takes the long way (ok false). atLine reports
// whether the byte after p starts a line.
func (m *Machine) plainLines(p []byte, first int) (atLine, ok bool) {
	if m.atLine && (m.ix.lineCalls && m.mayLineCall(p) || markLead[p[0]] && m.mayMarkLine(p)) {
		return false, false // its first line may be a call or a marker line (markline.go)
	}
	nl := -1
	var stops stopScan
	for i := first; i < len(p); i = stops.next(p, i+1) {
		c := p[i]
		switch {
		case c == '\n':
			nl = i
			if m.ix.lineCalls && i+1 < len(p) && m.mayLineCall(p[i+1:]) {
				return false, false // a line that may be a call
			}
			if i+1 < len(p) && markLead[p[i+1]] && m.mayMarkLine(p[i+1:]) {
				return false, false // a marker line without brackets (markline.go)
			}
		case c == '>' && m.bareOn(): // '>' may end a tag written without '<' (bare.go)
			return false, false
		case c == '>' || c == '*':
			if m.ix.symbolLead(c) { // a symbol opener's first byte (probeline.go)
				return false, false
			}
		default:
			return false, false
		}
	}
	// A line may be a word line (see wordLine): those chunks take the long way.
	switch {
	case nl < 0:
		return false, !m.atLine || !m.lineHeld(p)
	case nl == len(p)-1:
		start := bytes.LastIndexByte(p[:nl], '\n') + 1
		if start == nl && start > 0 { // an empty line: the word line before it is held too (wordLine)
			prev := bytes.LastIndexByte(p[:nl-1], '\n') + 1
			if (prev > 0 || m.atLine) && isLowerWord(p[prev:nl-1]) {
				return false, false
			}
		}
		return true, (start == 0 && !m.atLine) || !isLowerWord(p[start:nl])
	default:
		return false, !heldLead[p[nl+1]]
	}
}

// lineHeld reports whether the line that starts b may be held: a word
// line, a line without '<', a call on a line of its own, or a marker line
// without brackets (markline.go).
func (m *Machine) lineHeld(b []byte) bool {
	return heldLead[b[0]] || m.ix.lineCalls && m.mayLineCall(b) || markLead[b[0]] && m.mayMarkLine(b)
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
	if !shortPaths || m.pend.active || len(m.buf)+m.lex.Holding()+len(p) > m.opt.MaxCall || m.blk.eol && bytes.IndexByte(p, '\n') >= 0 { // the cap is not hit here; a line may be a marker (markline.go)
		return false
	}
	switch {
	case len(p) > 0 && p[len(p)-1] < utf8.RuneSelf && m.lex.Idle() && !hasAny(p, &valueStop):
		if !m.addRoom(p) { // the caller checked the cap
			m.add(p)
		}
		if !m.skipped(p) { // lexer.Plain, inlined
			return true
		}
		m.prev = p[len(p)-1]
	case !m.lex.Idle():
		m.writeTokens(p)
	default:
		m.writeValueRun(p)
	}
	return true
}
