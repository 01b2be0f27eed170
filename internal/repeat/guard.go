// Package repeat is the repetition guard: it watches a stream as a
// sequence of units and reports when the stream's tail is one unit
// repeated, whatever the unit is. A runaway loop of a model is such a tail
// (openers re-opened, a call written again and again, a closer or a
// chat-template turn repeated, a line or a phrase repeated), so one guard
// stops loops of any shape without a list of shapes.
//
// The units are symbols: each marker token the lexer reads, and each piece
// of text. A piece ends at a newline, at a marker, or, in a long line, once
// it holds cutMax bytes (before the next character: a cut never splits
// one). A symbol is kept as a fingerprint: a marker's bytes hashed with
// digit runs folded to one digit; a piece's length, first and last eight
// bytes (digits folded in a piece that follows a marker on its line, so that
// counters compare equal: `<|im_start|>assistant57`, 58, ...).
// Whitespace-only pieces are not symbols.
//
// The guard keeps the last ringSize symbols and, for the latest, a
// candidate period: the distance to the last earlier symbol with the same
// fingerprint. A run counts the symbols that equal the one a period before;
// run+period symbols that do are (run+period)/period repetitions of a unit
// of period symbols. When a symbol breaks the run, the candidate becomes the
// distance to that symbol's last occurrence. A piece's fingerprint is weak
// (two lines that differ only in their middle match), so once a run has
// four repetitions its pieces are also hashed in full, and the guard fires
// only when the last three repetitions match in full too.
//
// A phrase repeated within one long line is found apart from the symbols:
// the last winSize bytes before a cut are kept, and at the cut checked for a
// period (the distance back to the previous occurrence of their last bytes,
// verified by comparing the window with itself shifted).
//
// The guard fires when the tail repeats a unit holding markup
// Limits.Markup times; a unit of whole lines Limits.Lines times, over at
// least Limits.Span bytes, its line holding lineVariety distinct non-space
// bytes (a line of one repeated character is padding or test data, not a
// model repeating itself); or, within a line, a phrase of at least
// inlineLetters distinct letters (a long line of numbers is data) over a
// whole window, or over two windows in a row. Units longer than Limits.Unit
// bytes do not count.
//
// Text costs a compare per chunk inside a piece, and a few operations per
// piece; only long lines (their last winSize bytes before each cut) and
// runs are copied or hashed byte by byte. The guard is linear in its input
// and its memory is fixed.
package repeat

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Limits are the guard's thresholds. Zero fields take the defaults.
type Limits struct {
	// Markup: repetitions in a row of a unit that holds a marker
	// (default 8: the guard fires at the 8th).
	Markup int
	// Lines: repetitions in a row of a unit of whole lines of text
	// (default 48).
	Lines int
	// Span: the bytes a repetition of lines must cover (default 256).
	Span int
	// Unit: the longest unit, in bytes (default 4096).
	Unit int
}

// Defaults, chosen from data (docs/contract.md, "Runaway"). In the Go
// source tree (101 MB of .go, .md, .txt and .json) the longest run of one
// repeated line with several distinct characters is 32 lines; loops
// reported in the field repeat a line 60 to thousands of times.
const (
	DefaultMarkup = 8
	DefaultLines  = 48
	DefaultSpan   = 256
	DefaultUnit   = 4096
)

func (l *Limits) withDefaults() {
	for _, f := range []struct {
		v *int
		d int
	}{{&l.Markup, DefaultMarkup}, {&l.Lines, DefaultLines}, {&l.Span, DefaultSpan}, {&l.Unit, DefaultUnit}} {
		if *f.v <= 0 {
			*f.v = f.d
		}
	}
}

const (
	ringSize  = 128  // symbols kept: the longest unit, in symbols
	tableSize = 256  // last occurrences, by fingerprint
	headLen   = 8    // a piece's first bytes kept, while a run is under way
	utf8Max   = 4    // bytes of the longest UTF-8 character
	cutMax    = 4096 // a long line is cut in pieces of this many bytes
	winSize   = 512  // the bytes before a cut checked for a period
	minPiece  = 32   // a piece ends at a newline once it holds this many bytes
	maxPeriod = 256  // the longest phrase looked for within a line
	// A window repeating a phrase that fits inlineRepeats times in it is a
	// loop; a longer phrase must repeat over two windows in a row.
	inlineRepeats = 8
	// A repeated line needs lineVariety distinct non-space bytes; a phrase
	// repeated within a line needs inlineLetters distinct letters
	// (non-ASCII bytes count: CJK text), as a model repeating itself writes
	// words, and a long line of numbers or codes is data.
	lineVariety   = 4
	inlineLetters = 3
	strongAfter   = 2 // repetitions of a run before its pieces are hashed in full
	strongReps    = 3 // repetitions a run must match in full to fire
)

// symbol is one unit of the stream, as the ring keeps it.
type symbol struct {
	fp    uint64 // its fingerprint
	full  uint64 // a piece hashed in full (0: not), a marker's fingerprint
	end   int64  // the offset after it
	marks uint32 // markup symbols up to it, from the start
	lines uint32 // line ends up to it, from the start
	head  uint64 // a piece's first bytes (as in its fingerprint); 0 for a marker
	tail  uint64 // its last bytes, likewise
	hlen  uint8  // how many first bytes (0: none kept)
	tlen  uint8  // how many last bytes (up to eight)
	mark  bool   // a marker
}

// Guard is the repetition guard. Create it with New.
type Guard struct {
	lim Limits

	// The text piece in progress.
	n         int    // its bytes so far
	room      int    // Text only counts bytes while n stays below it
	start     int64  // the offset of its first byte: every byte before it is in a symbol, or blank
	head      uint64 // its first bytes, when capture (the first in the high byte)
	capture   bool   // its first bytes are kept
	afterMark bool   // it follows a marker on its line: digits fold
	nl        uint32 // the newlines it holds
	strong    bool   // a run is long: pieces are hashed in full
	fullOK    bool   // the piece was hashed in full from its first byte
	full      uint64
	win       [winSize + 4]byte // the last bytes of a long piece, before its cut
	wn        int
	winP      int // the period the window before this one had (0: none)

	count       uint32
	ring        [ringSize]symbol
	last        [tableSize]uint32 // index+1 of the last symbol whose fingerprint falls here
	period, run uint32
	srun        uint32 // symbols in a row whose full hash equals the one a period before
	lineEnds    uint32 // pieces, blank or not, that ended a line

	fired   bool
	firedAt int64
}

// New returns a guard with limits lim (zero fields: defaults).
func New(lim Limits) *Guard {
	lim.withDefaults()
	return &Guard{lim: lim, firedAt: -1, full: fnvOffset}
}

// Fired reports whether the guard fired, and the input offset (counted
// from the first byte the guard saw) just after the unit that did.
func (g *Guard) Fired() (bool, int64) { return g.fired, g.firedAt }

// Text observes content bytes. prev holds the eight bytes before p (the
// last in its low byte). It returns len(p), or, when the guard fired at a
// unit that ends inside p, the number of p's bytes up to that point.
func (g *Guard) Text(p []byte, prev uint64) int {
	if n := g.n + len(p); n < g.room && !hasNewline(p) {
		g.n = n
		return len(p)
	}
	return g.text(p, prev)
}

// TextInLine is Text for p the caller knows holds no newline.
func (g *Guard) TextInLine(p []byte, prev uint64) int {
	if n := g.n + len(p); n < g.room {
		g.n = n
		return len(p)
	}
	return g.text(p, prev)
}

// TextLines is Text for p the caller knows may hold a newline.
func (g *Guard) TextLines(p []byte, prev uint64) int { return g.text(p, prev) }

// hasNewline reports whether p holds a newline; short slices are checked
// inline, longer ones with IndexByte.
func hasNewline(p []byte) bool {
	if len(p) > 8 {
		return bytes.IndexByte(p, '\n') >= 0
	}
	for _, c := range p {
		if c == '\n' {
			return true
		}
	}
	return false
}

// text is Text's long way: p is cut into pieces.
func (g *Guard) text(p []byte, prev uint64) int {
	if g.fired {
		return len(p)
	}
	done := 0
	for done < len(p) {
		rest := p[done:]
		k, ends, cut := g.scan(rest)
		seg := rest[:k]
		if g.capture && g.n < headLen {
			for _, c := range seg[:min(k, headLen-g.n)] {
				g.head = g.head<<8 | uint64(c)
			}
		}
		if g.fullOK {
			g.full = hashBytes(g.full, seg, g.afterMark)
		}
		if g.n+k > cutMax-winSize {
			g.wn += copy(g.win[g.wn:], seg[max(cutMax-winSize-g.n, 0):])
		}
		g.n += k
		done += k
		prev = shiftIn(prev, seg)
		if ends && g.endPiece(prev, cut) {
			return done
		}
	}
	g.setRoom()
	return len(p)
}

// scan returns how many bytes of rest belong to the piece in progress,
// whether they end it, and whether by a cut. A piece ends at the first
// newline once it holds minPiece bytes (shorter lines join the next: a
// unit of short lines costs one symbol, not one each), or is cut at cutMax
// bytes, before the next character.
func (g *Guard) scan(rest []byte) (k int, ends, cut bool) {
	toCut := max(cutMax-g.n, 0) // a piece may go past cutMax while no character starts
	look := rest
	if len(look) > toCut+utf8Max {
		look = look[:toCut+utf8Max]
	}
	from := 0
	if short := minPiece - 1 - g.n; short > 0 && !g.afterMark { // newlines before minPiece join lines (not in markup)
		from = min(short, len(look))
		g.nl += uint32(bytes.Count(look[:from], newline))
	}
	if i := indexNewline(look[from:]); i >= 0 {
		g.nl++
		return from + i + 1, true, false
	}
	if toCut <= len(rest) {
		if k, cut := cutBefore(rest, toCut, len(rest)); cut {
			return k, true, true
		}
	}
	return len(rest), false, false
}

var newline = []byte{'\n'}

// indexNewline is bytes.IndexByte for '\n', with short slices searched
// inline.
func indexNewline(b []byte) int {
	if len(b) > 16 {
		return bytes.IndexByte(b, '\n')
	}
	for i, c := range b {
		if c == '\n' {
			return i
		}
	}
	return -1
}

// cutBefore returns where a long piece is cut: before the first byte from
// b[from] on that starts a character, or k (no cut) when none does.
func cutBefore(b []byte, from, k int) (int, bool) {
	for i := from; i < k; i++ {
		if c := b[i]; c < 0x80 || c >= 0xC0 {
			return i, true
		}
	}
	return k, false
}

// startPiece begins the next text piece, as the one before ends. While a
// run of markup is under way its first bytes are kept, to tell early
// whether it continues the run (mayContinue); while a run is long, it is
// hashed in full.
func (g *Guard) startPiece() {
	g.head, g.wn = 0, 0
	g.capture = g.strong || g.running()
	// A piece right after markup (a call's arguments) is hashed in full
	// too, so that calls that differ are never taken for repeats.
	g.fullOK, g.full = g.capture || g.afterMark, fnvOffset
}

// setRoom sets how many bytes of the piece in progress Text may only
// count: none while its first bytes are kept or it is hashed in full;
// else up to where its window begins.
func (g *Guard) setRoom() {
	switch {
	case g.fired:
		g.room = math.MaxInt
	case g.capture && g.n < headLen || g.fullOK:
		g.room = 0
	default:
		g.room = cutMax - winSize
	}
}

// shiftIn returns the eight bytes before and b, the last eight of them.
func shiftIn(prev uint64, b []byte) uint64 {
	if len(b) >= 8 {
		return binary.BigEndian.Uint64(b[len(b)-8:])
	}
	for _, c := range b {
		prev = prev<<8 | uint64(c)
	}
	return prev
}

// Marker observes a marker token's bytes; markup says whether it is a
// marker of tool-call markup (not an HTML tag, a backtick run or a
// bracketed word), prev holds the eight bytes before it. It ends the text
// piece before it. It reports whether the guard fired at this marker.
func (g *Guard) Marker(raw []byte, markup bool, prev uint64) bool {
	if g.fired {
		return false
	}
	if g.n > 0 {
		g.symbolOfPiece(prev) // the guard decides after the marker: a loop ended by a marker is no loop of text
	}
	h := uint64(fnvOffset)
	prevDigit := false
	for _, c := range raw {
		if '0' <= c && c <= '9' {
			if prevDigit {
				continue
			}
			c, prevDigit = '0', true
		} else {
			prevDigit = false
		}
		h = (h ^ uint64(c)) * fnvPrime
	}
	if markup {
		h ^= markupBit
	} else {
		h &^= markupBit
	}
	g.start += int64(len(raw))
	n := uint8(min(len(raw), 8))
	g.push(symbol{fp: h, full: h | 1, end: g.start, head: shiftIn(0, raw[:n]), tail: shiftIn(prev, raw), hlen: n, tlen: n, mark: true}, markup)
	g.afterMark = markup
	g.winP = 0
	fired := g.check()
	g.startPiece()
	g.setRoom()
	return fired
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
	markupBit = 1 << 63
)

// hashBytes adds b to FNV-1a hash h, digits folded when fold.
func hashBytes(h uint64, b []byte, fold bool) uint64 {
	for _, c := range b {
		if fold && '0' <= c && c <= '9' {
			c = '0'
		}
		h = (h ^ uint64(c)) * fnvPrime
	}
	return h
}

// endPiece ends the text piece whose last eight bytes (at most) are tail,
// at a line end or at a cut, and reports whether the guard fired. The
// piece is a symbol unless it is only whitespace; its fingerprint is its
// length and last eight bytes.
func (g *Guard) endPiece(tail uint64, cut bool) bool {
	n, lines := g.n, g.nl
	g.lineEnds += lines // blank lines too: a unit of markers on lines of their own is a unit of lines
	g.start += int64(n)
	g.n, g.nl = 0, 0
	if lines > 0 {
		g.winP = 0
	}
	fired := cut && g.periodic()
	if g.pushPiece(tail, n) && !fired {
		fired = g.check()
	}
	g.startPiece()
	return fired
}

// pushPiece pushes the piece of n bytes ending at g.start, unless it is
// only whitespace, and reports whether it did.
func (g *Guard) pushPiece(tail uint64, n int) bool {
	if n < 8 {
		tail &= 1<<(8*uint(n)) - 1
		if isBlank(tail, n) {
			return false // the next piece still follows the marker before
		}
	}
	fold := g.afterMark
	g.afterMark = false
	head := g.head
	x := uint64(n)*0x9E3779B97F4A7C15 ^ 0x5bd1e995
	if fold {
		head, tail = foldDigits(head), foldDigits(tail)
		x++
	}
	var full uint64
	if g.fullOK {
		full = g.full | 1
	}
	var h uint8
	if g.capture {
		h = uint8(min(n, headLen))
	}
	g.push(symbol{fp: mix(x, tail) &^ markupBit, full: full, end: g.start, head: head, tail: tail, hlen: h, tlen: uint8(min(n, 8))}, false)
	return true
}

// symbolOfPiece pushes the piece in progress, ended by a marker, as a
// symbol; prev holds its last bytes.
func (g *Guard) symbolOfPiece(prev uint64) {
	n := g.n
	g.lineEnds += g.nl
	g.start += int64(n)
	g.n, g.nl = 0, 0
	g.pushPiece(prev, n)
}

// isBlank reports whether the n bytes of v are whitespace.
func isBlank(v uint64, n int) bool {
	for range n {
		switch byte(v) {
		case ' ', '\t', '\n', '\r':
		default:
			return false
		}
		v >>= 8
	}
	return true
}

// foldDigits turns every digit byte of v into '0'.
func foldDigits(v uint64) uint64 {
	var out uint64
	for i := range 8 {
		c := byte(v >> (8 * i))
		if '0' <= c && c <= '9' {
			c = '0'
		}
		out |= uint64(c) << (8 * i)
	}
	return out
}

func mix(h, v uint64) uint64 {
	h ^= v
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// push adds a symbol and updates the run.
func (g *Guard) push(s symbol, markup bool) {
	i := g.count
	slot := &g.last[s.fp%tableSize]
	p := g.period
	var before uint64 // the full hash a period before
	if p > 0 && i >= p {
		before = g.ring[(i-p)%ringSize].full
	}
	if p > 0 && i >= p && g.ring[(i-p)%ringSize].fp == s.fp && (s.full == 0 || before == 0 || s.full == before) {
		g.run++
		if s.full != 0 && s.full == before {
			g.srun++
		} else {
			g.srun = 0
		}
	} else {
		g.period, g.run, g.srun = 0, 0, 0
		if j := *slot; j > 0 && i-(j-1) <= ringSize-1 && g.ring[(j-1)%ringSize].fp == s.fp {
			g.period, g.run = i-(j-1), 1
		}
	}
	*slot = i + 1
	if i > 0 {
		s.marks = g.ring[(i-1)%ringSize].marks
	}
	if markup {
		s.marks++
	}
	s.lines = g.lineEnds
	g.ring[i%ringSize] = s
	g.count = i + 1
	g.strong = g.period > 0 && g.run >= g.period*(strongAfter-1)
}

// unit returns the current unit's bytes, markup symbols and line-ending
// pieces.
func (g *Guard) unit() (bytes int64, marks, lines uint32) {
	i := g.count - 1
	p := g.period
	if p == 0 || i < p {
		return 0, 0, 0
	}
	a, b := &g.ring[(i-p)%ringSize], &g.ring[i%ringSize]
	return b.end - a.end, b.marks - a.marks, b.lines - a.lines
}

// check decides after a symbol whether the tail is a loop.
func (g *Guard) check() bool {
	p := g.period
	if p == 0 || g.run < p {
		return false
	}
	reps := (g.run + p) / p
	if g.srun < p*strongReps {
		return false // not matched in full for long enough
	}
	size, marks, lines := g.unit()
	if size > int64(g.lim.Unit) || size <= 0 {
		return false
	}
	switch {
	case marks > 0:
		if reps < uint32(g.lim.Markup) {
			return false
		}
	case lines > 0: // a piece may hold several short lines
		if reps*lines < uint32(g.lim.Lines) || int64(reps)*size < int64(g.lim.Span) || g.variety() < lineVariety {
			return false
		}
	default:
		return false // pieces cut from one line: periodic finds those
	}
	return g.fire(g.ring[(g.count-1)%ringSize].end)
}

func (g *Guard) fire(at int64) bool {
	g.fired, g.firedAt = true, at
	g.setRoom()
	return true
}

// periodic checks the window of a piece cut from a long line: a phrase
// repeated over all of it, short enough to fit inlineRepeats times, or
// repeated over this window and the one before, fires the guard.
func (g *Guard) periodic() bool {
	w := g.win[:g.wn]
	p := 0
	if len(w) >= winSize {
		const needle = 8
		if j := bytes.LastIndex(w[:len(w)-1], w[len(w)-needle:]); j >= 0 {
			p = len(w) - needle - j
		}
		if p == 0 || p > maxPeriod || !bytes.Equal(w[p:], w[:len(w)-p]) || letters(w[len(w)-p:]) < inlineLetters {
			p = 0
		}
	}
	prev := g.winP
	g.winP = p
	if p == 0 {
		return false
	}
	// A unit that holds an escaped line end (`\n`, a file in a JSON
	// string) is a unit of lines: it must repeat over two windows, and its
	// line hold a few distinct bytes.
	if bytes.Contains(w[len(w)-p-1:], []byte(`\n`)) {
		if p != prev || distinct(w[len(w)-p:], true) < lineVariety {
			return false
		}
	} else if p*inlineRepeats > len(w) && p != prev {
		return false
	}
	return g.fire(g.start + int64(g.n))
}

// distinct counts the distinct bytes of b that are not whitespace (nor,
// with escapes, a backslash escape: `\n`, `\t`).
func distinct(b []byte, escapes bool) int {
	var seen [256]bool
	n := 0
	esc := false
	for _, c := range b {
		if escapes && (esc || c == '\\') {
			esc = !esc && c == '\\'
			continue
		}
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || seen[c] {
			continue
		}
		seen[c] = true
		n++
	}
	return n
}

// letters counts the distinct letters of b; a letter outside ASCII counts
// its UTF-8 length (a CJK character is a word), a symbol, a broken
// sequence or a backslash escape (`\n`, `\u003e`: JSON) nothing.
func letters(b []byte) int {
	var seen [128]bool
	var wide []rune
	n := 0
	for len(b) > 0 {
		c := b[0]
		if c == '\\' && len(b) > 1 {
			skip := 2
			if b[1] == 'u' {
				skip = 6
			}
			b = b[min(skip, len(b)):]
			continue
		}
		if c < utf8.RuneSelf {
			if !seen[c] && 'a' <= c|0x20 && c|0x20 <= 'z' {
				seen[c] = true
				n++
			}
			b = b[1:]
			continue
		}
		r, size := utf8.DecodeRune(b)
		if r != utf8.RuneError && unicode.IsLetter(r) && !slices.Contains(wide, r) {
			wide = append(wide, r)
			n += size
		}
		b = b[size:]
	}
	return n
}

// variety counts the distinct non-space bytes of the latest symbol's
// first and last bytes.
func (g *Guard) variety() int {
	s := &g.ring[(g.count-1)%ringSize]
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], s.head)
	binary.BigEndian.PutUint64(b[8:], s.tail)
	return distinct(append(b[8-s.hlen:8:8], b[16-s.tlen:]...), false)
}

// Repeating reports whether the stream's tail repeats an earlier stretch
// of a unit that holds markup (a run is under way), and the text piece in
// progress, if any, may still continue it: calls held as part of the run
// wait on, text and all.
func (g *Guard) Repeating() bool {
	if !g.running() {
		return false
	}
	return g.n == 0 || g.mayContinue()
}

// running reports whether a run of a unit holding markup is under way.
func (g *Guard) running() bool {
	if g.fired || g.period == 0 || g.run == 0 {
		return false
	}
	size, marks, _ := g.unit()
	return marks > 0 && size <= int64(g.lim.Unit)
}

// Repeats reports whether the bytes from input offset off on, to the
// latest symbol, repeat the unit before them: a call whose markup began
// at off and ended with that symbol is the same (counters folded) as one
// before it, and may be part of a loop.
func (g *Guard) Repeats(off int64) bool {
	if !g.running() {
		return false
	}
	if g.run >= ringSize-1 {
		return true // the run began before the symbols kept
	}
	return g.ring[(g.count-1-g.run)%ringSize].end <= off
}

// mayContinue reports whether the text piece in progress begins like the
// symbol that continues the run.
func (g *Guard) mayContinue() bool {
	next := &g.ring[(g.count-g.period)%ringSize]
	n := min(g.n, headLen)
	if isBlank(g.head, n) {
		return true // it may be whitespace, which is no symbol
	}
	switch {
	case next.mark:
		return false // text where a marker comes
	case next.hlen == 0:
		return true // its first bytes were not kept: its end tells
	case int(next.hlen) < n:
		return false // a shorter piece
	}
	head := g.head
	if g.afterMark {
		head = foldDigits(head)
	}
	return head == next.head>>(8*uint(int(next.hlen)-n))
}
