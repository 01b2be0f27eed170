// Package repeat is the repetition guard: it watches a stream and reports
// when the stream's tail is one unit repeated, whatever the unit is. A
// runaway loop of a model is such a tail (openers re-opened, a call written
// again and again, a closer or a chat-template turn repeated, a line or a
// phrase repeated), so one guard stops loops of any shape without a list of
// shapes. It finds two kinds of unit.
//
// Units of markup. The stream is a sequence of symbols: each marker token
// the lexer reads, and each piece of text between two markers (cut after
// cutMax bytes, before the next character: a cut never splits one). A
// symbol is kept as a fingerprint: a marker's bytes hashed with digit runs
// folded to one digit; a piece's length and last eight bytes, with digits
// folded in a piece right after a marker, so that counters compare equal
// (`call_id="call_300"`, 301, ...; `<|im_start|>assistant57`, 58, ...).
// Whitespace-only pieces are not symbols. The guard keeps the last
// ringSize symbols and, for the latest, a candidate period: the distance to
// the last earlier symbol with the same fingerprint. A run counts the
// symbols that equal the one a period before; run+period symbols that do are
// (run+period)/period repetitions of a unit of period symbols. When a symbol
// breaks the run, the candidate becomes the distance to that symbol's last
// occurrence. A piece's fingerprint is weak, so pieces right after markup
// (arguments) and pieces of a run under way are also hashed in full, and a
// unit holding markup fires at its Limits.Markup-th repetition only when the
// last strongReps repetitions match in full too.
//
// Units of text. Between two markers of markup the bytes are a stretch; it
// is cut after firstCut bytes, then at doubling distances up to every
// cutMax bytes, and at each cut the winSize bytes before it are checked for
// a period (the nearest earlier occurrence of their last bytes whose
// repeating tail is longest). The unit's repetitions are counted over that
// tail and, while each window repeats the unit the one before ended with,
// across cuts. How many repetitions and bytes fire depends on what the unit
// holds (loopOfText: lines, a phrase of letters, one CJK character, one or
// two letters, none); list elements and one byte repeated are data.
//
// Lines of text (lines.go) are looked for only once a cheap signal woke
// them (an anchor at a cut that came again, or a window repeating lines).
// Text costs a compare per chunk, and a copy and a look for the period and
// the anchor per cut; only pieces right after markup, runs under way and
// woken lines are read byte by byte. The guard is linear in its input and
// its memory is fixed.
package repeat

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/toolsieve/toolsieve/internal/swar"
)

// Limits are the guard's thresholds. Zero fields take the defaults.
type Limits struct {
	// Markup: repetitions in a row of a unit that holds a marker
	// (default 8: the guard fires at the 8th).
	Markup int
	// Lines: repetitions in a row of a unit of lines of text (default 48).
	Lines int
	// Unit: the longest unit of markup, in bytes (default 4096).
	Unit int
}

// Defaults, chosen from data (docs/contract.md, "Runaway"). In the Go
// source tree (101 MB of .go, .md, .txt and .json) the longest run of one
// repeated line with several distinct characters is 32 lines; loops
// reported in the field repeat a line 60 to thousands of times.
const (
	DefaultMarkup = 8
	DefaultLines  = 48
	DefaultUnit   = 4096
)

func (l *Limits) withDefaults() {
	for _, f := range []struct {
		v *int
		d int
	}{{&l.Markup, DefaultMarkup}, {&l.Lines, DefaultLines}, {&l.Unit, DefaultUnit}} {
		if *f.v <= 0 {
			*f.v = f.d
		}
	}
}

const (
	ringSize  = 128 // symbols kept: the longest unit, in symbols
	tableSize = 256 // last occurrences, by fingerprint
	headLen   = 8   // a piece's first bytes kept, while a run is under way
	utf8Max   = 4   // bytes of the longest UTF-8 character
	tagMax    = 64  // a tag (not markup) past a cut still leaves the window whole up to this many bytes
	// A piece, and a stretch's window, end every cutMax bytes. Each end
	// costs a look for a period and a symbol (about 1,000 instructions):
	// at every 2 KiB, prose cost 11% more with the guard than without;
	// a loop of text is a runaway only over many KiB anyway.
	cutMax    = 8192
	firstCut  = 256 // a stretch's first cut; the next ones double up to cutMax
	winSize   = 512 // the bytes before a cut checked for a period
	maxPeriod = 256 // the longest unit of text looked for
	// A window repeating a phrase inlineRepeats times is a loop.
	inlineRepeats = 8
	// A repeated line needs lineVariety distinct non-space bytes; a phrase
	// repeated within a line needs inlineLetters distinct letters
	// (a CJK character counts its bytes: it is a word), as a model
	// repeating itself writes words, and a long line of numbers is data.
	lineVariety   = 4
	inlineLetters = 3
	strongAfter   = 2 // repetitions of a run before its pieces are hashed in full
	strongReps    = 3 // repetitions a unit of markup must match in full to fire
)

// symbol is one unit of the stream, as the ring keeps it.
type symbol struct {
	fp    uint64 // its fingerprint
	full  uint64 // a piece hashed in full (0: not); a marker's fingerprint
	end   int64  // the offset after it
	head  uint64 // a piece's first bytes, when kept
	marks uint32 // markup symbols up to it, from the start
	hlen  uint8  // how many (0: none kept)
	mark  bool   // a marker
}

// Guard is the repetition guard. Create it with New.
type Guard struct {
	lim Limits

	// The text piece in progress: n bytes from offset start.
	n         int
	room      int // Count only counts bytes while n stays below it
	winRoom   int // Text keeps and counts bytes while n stays below it (0: not)
	hashRoom  int // Text hashes, keeps and counts bytes while n stays below it (0: not)
	wbase     int // where byte n of the piece goes in win is wbase+n, while winRoom or hashRoom > 0
	start     int64
	head      uint64 // its first bytes, when capture (the first in the high byte)
	capture   bool   // its first bytes are kept
	afterMark bool   // it follows a marker of markup: digits fold, it is hashed in full
	fullOK    bool   // it is hashed in full from its first byte
	full      uint64
	strong    bool // a run of a unit holding markup is long: pieces are hashed in full

	// The stretch in progress: bytes since the last marker of markup.
	stretch int64                  // the offset where it began, or was last cut
	total   int64                  // its bytes before the last cut
	cutAt   int                    // the next cut, counted from stretch
	win     [winSize + tagMax]byte // its bytes from position winFrom() to the cut
	wunit   [maxPeriod]byte        // the unit the last window ended with
	unitP   int                    // its length (0: the last window was not periodic)
	span    int64                  // the bytes up to the last cut that repeat unit

	count  uint32
	ring   [ringSize]symbol
	last   [tableSize]uint32 // index+1 of the last symbol whose fingerprint falls here
	period uint32
	run    uint32
	srun   uint32 // symbols in a row whose full hash equals the one a period before

	lines   lineRun // the lines of text (lines.go)
	inLines bool    // lines are watched (in text, and awake)
	inText  bool    // InText

	fired     bool
	off       bool // Off: nothing is watched
	firedAt   int64
	firedFrom int64 // where the repetitions that fired began, or earlier
}

// New returns a guard with limits lim (zero fields: defaults).
func New(lim Limits) *Guard {
	lim.withDefaults()
	g := &Guard{lim: lim, firedAt: -1, full: fnvOffset, cutAt: firstCut}
	g.setRoom()
	return g
}

// Off returns a guard that watches nothing and never fires.
func Off() *Guard { return &Guard{off: true, room: math.MaxInt, firedAt: -1} }

// Fired reports whether the guard fired, and the input offset (counted
// from the first byte the guard saw) just after the unit that did.
func (g *Guard) Fired() (bool, int64) { return g.fired, g.firedAt }

// LoopStart returns, once the guard fired, the input offset where the
// repeated tail that fired began: its first unit. It is never later than
// that (when the start fell out of what the guard keeps, it is 0): bytes
// before it are not part of the loop.
func (g *Guard) LoopStart() int64 { return g.firedFrom }

// Count is Text for n bytes the caller knows hold no newline (when
// WatchesLines), when that needs nothing but a count; it reports false,
// counting nothing, when the caller must call Text instead.
func (g *Guard) Count(n int) bool {
	if m := g.n + n; m < g.room {
		g.n = m
		return true
	}
	return false
}

// Pass is Count for bytes p the caller knows hold no newline (when
// WatchesLines): it also keeps bytes that fall in the window before a cut.
// It reports false, taking nothing, when the caller must call Text instead.
func (g *Guard) Pass(p []byte) bool {
	m := g.n + len(p)
	if m < g.room {
		g.n = m
		return true
	}
	if m < g.winRoom { // up to the window, or in it, before a cut: keep and count
		at := g.wbase + g.n
		if at < 0 {
			p, at = p[min(-at, len(p)):], 0
		}
		copy(g.win[at:], p)
		g.n = m
		return true
	}
	return false
}

// Text observes content bytes. prev holds the four bytes before p (the
// last in its low byte). It returns len(p), or, when the guard fired at a
// unit that ends inside p, the number of p's bytes up to that point.
func (g *Guard) Text(p []byte, prev uint32) int {
	if g.inLines && (len(p) > 64 || hasNewline(p)) { // text looks for line ends itself
		return g.text(p, prev)
	}
	if g.Pass(p) || g.hashed(p) {
		return len(p)
	}
	return g.text(p, prev)
}

// hashed is Pass for a piece hashed in full (the arguments after markup):
// the bytes before its cut are hashed, kept when they fall in the window,
// and counted, as text would. It reports false, taking nothing, when text
// must take p (at the cut, or when the piece needs more than its hash).
func (g *Guard) hashed(p []byte) bool {
	m := g.n + len(p)
	if m >= g.hashRoom {
		return false
	}
	g.full = hashBytes(g.full, p, g.afterMark)
	if at := g.wbase + g.n; at+len(p) > 0 {
		if at < 0 {
			p, at = p[-at:], 0
		}
		copy(g.win[at:], p)
	}
	g.n = m
	return true
}

// hasNewline reports whether p holds a newline; short slices are checked
// inline, as two words (overlapping) or two halves of one: a newline is a
// zero byte after an xor.
func hasNewline(p []byte) bool {
	const nl = '\n' * swar.Ones
	switch n := len(p); {
	case n > 16:
		return bytes.IndexByte(p, '\n') >= 0
	case n >= 8:
		return swar.ZeroBytes(swar.Load64(p, 0)^nl)|swar.ZeroBytes(swar.Load64(p, n-8)^nl) != 0
	case n >= 4:
		return swar.ZeroBytes(swar.Short(p)^nl) != 0
	}
	for _, c := range p {
		if c == '\n' {
			return true
		}
	}
	return false
}

// text is Text's long way.
func (g *Guard) text(p []byte, prev uint32) int {
	if g.fired || g.off {
		return len(p)
	}
	done := 0
	for done < len(p) {
		rest := p[done:]
		// this piece's bytes in rest: up to its line's end, or the next
		// cut of the piece or of the stretch (at a character's start)
		sn := g.sn()
		toCut := max(min(cutMax-g.n, g.cutAt-sn), 0)
		k, line, cut := len(rest), false, false
		i := -1
		if g.inLines {
			i = bytes.IndexByte(rest[:min(len(rest), toCut+utf8Max)], '\n')
		}
		if i >= 0 && i < toCut {
			k, line = i+1, true
		} else if toCut < k {
			k, cut = cutBefore(rest, toCut, k)
		}
		if line && !g.lines.strong && !g.fullOK && !(g.capture && g.n < headLen) {
			// lines that need no hashing: all of them up to the cut, at once
			j, fired := g.quickLines(rest[:min(len(rest), toCut)], k, prev)
			if sn+j > g.winFrom() {
				g.keep(rest[:j], sn)
			}
			g.n += j
			done += j
			prev = shiftIn(prev, rest[:j])
			if fired {
				return done
			}
			continue
		}
		seg := rest[:k]
		if g.lines.strong {
			g.lineBytes(seg)
		}
		if g.capture && g.n < headLen {
			for _, c := range seg[:min(k, headLen-g.n)] {
				g.head = g.head<<8 | uint64(c)
			}
		}
		if g.fullOK {
			if g.n+k > cutMax { // a long value, not arguments: not worth hashing
				g.fullOK = false
			} else {
				g.full = hashBytes(g.full, seg, g.afterMark)
			}
		}
		if sn+k > g.winFrom() {
			g.keep(seg, sn)
		}
		g.n += k
		done += k
		prev = shiftIn(prev, seg)
		if line && g.lineEnd(g.start+int64(g.n), prev) || cut && g.cut(prev) {
			return done
		}
	}
	g.setRoom()
	return len(p)
}

// quickLines ends the lines of b, the first k bytes long (its end at
// g.start+g.n+k), while the next needs no hashing, and returns the bytes
// of b they took and whether the guard fired.
func (g *Guard) quickLines(b []byte, k int, prev uint32) (int, bool) {
	base := g.start + int64(g.n)
	l := &g.lines
	for {
		if end := base + int64(k); end-l.start == 1 && l.count > 0 { // a blank line: it belongs to the line before
			l.size[(l.count-1)%lineRing]++
			l.start = end
		} else if g.quickLine(b, k, end, prev) {
			return k, g.fired
		}
		i := bytes.IndexByte(b[k:], '\n')
		if i < 0 {
			return k, false
		}
		k += i + 1
	}
}

// quickLine ends a line at b[k], offset end, and reports whether the guard
// fired, the next line needs hashing or lines are no longer watched.
func (g *Guard) quickLine(b []byte, k int, end int64, prev uint32) bool {
	var tail uint32
	if k >= 4 {
		tail = binary.BigEndian.Uint32(b[k-4 : k])
	} else {
		tail = shiftIn(prev, b[:k])
	}
	return g.lineEnd(end, tail) || g.lines.strong || !g.inLines
}

// sn is the stretch's bytes since its start or last cut.
func (g *Guard) sn() int { return int(g.start + int64(g.n) - g.stretch) }

// winFrom is where the window before the next cut begins, counted like sn.
func (g *Guard) winFrom() int { return max(g.cutAt-winSize, 0) }

// newStretch begins a stretch at offset at: its cuts come at firstCut
// bytes, then doubling up to every cutMax bytes, so that a short stretch
// (a stream that ends soon) is checked too.
func (g *Guard) newStretch(at int64) {
	g.stretch, g.total, g.cutAt = at, 0, firstCut
	g.unitP, g.span = 0, 0
}

// keep copies the bytes of seg, which begins at stretch position sn, that
// fall in the window before the next cut of the stretch: win holds the
// stretch from position cutMax-winSize on (a cut comes before a character
// starts, so a few bytes past cutMax; bytes further on are not needed).
func (g *Guard) keep(seg []byte, sn int) {
	at := sn - g.winFrom()
	if at < 0 {
		seg = seg[min(-at, len(seg)):]
		at = 0
	}
	if at < len(g.win) {
		copy(g.win[at:], seg)
	}
}

// cut ends a piece or a stretch window (or both) that reached cutMax, and
// reports whether the guard fired.
func (g *Guard) cut(tail uint32) bool {
	fired := false
	if sn := g.sn(); sn >= g.cutAt {
		fired = g.cutStretch(sn)
	}
	if g.n >= cutMax {
		if g.pushPiece(tail) && !fired {
			fired = g.check()
		}
		g.startPiece()
	}
	return fired
}

// cutStretch checks the window before a cut of the stretch sn bytes after
// the last, starts the next window, and reports whether the guard fired.
func (g *Guard) cutStretch(sn int) bool {
	fired := g.periodic(sn)
	if from := g.winFrom(); !fired && !g.lines.awake && g.inText && sn-from <= len(g.win) && sn-from >= g.cutAt-from {
		fired = g.anchor(g.win[sn-g.cutAt : sn-from])
	}
	g.stretch = g.start + int64(g.n)
	g.total += int64(sn)
	g.cutAt = int(min(max(g.total, firstCut), cutMax))
	return fired
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

// startPiece begins the next text piece. While a run of markup is under
// way, and right after markup, its first bytes are kept, to tell early
// whether it continues the run (mayContinue): the text after a call is
// kept so that the text after the next call like it can be compared with
// it at once, and the call released when it differs, instead of waiting
// for the end of the piece. While a run is long, or right after markup (a
// call's arguments), it is hashed in full, so that calls that differ are
// never taken for repeats.
func (g *Guard) startPiece() {
	g.start += int64(g.n)
	g.n, g.head = 0, 0
	g.capture = g.strong || g.afterMark || g.running()
	g.fullOK, g.full = g.capture || g.afterMark, fnvOffset
}

// setRoom sets how many bytes of the piece in progress Count may take:
// none while its first bytes are kept or it is hashed in full; else up to
// where the stretch's window begins. Pass (or, for a piece hashed in
// full, hashed) takes bytes up to the cut, less a character's bytes.
func (g *Guard) setRoom() {
	g.winRoom, g.hashRoom = 0, 0
	switch {
	case g.fired || g.off:
		g.room = math.MaxInt
	case g.capture && g.n < headLen || g.lines.strong:
		g.room = 0
	default:
		sn := g.sn()
		toCut := min(g.n+g.cutAt-utf8Max-sn, cutMax-utf8Max)
		g.wbase = sn - g.winFrom() - g.n
		if g.fullOK {
			g.room, g.hashRoom = 0, toCut
		} else {
			g.room, g.winRoom = min(g.n+max(g.winFrom()-sn, 0), cutMax), toCut
		}
	}
}

// shiftIn returns the four bytes before and b, the last four of them.
func shiftIn(prev uint32, b []byte) uint32 {
	if len(b) >= 4 {
		return binary.BigEndian.Uint32(b[len(b)-4:])
	}
	for _, c := range b {
		prev = prev<<8 | uint32(c)
	}
	return prev
}

// Marker observes a marker token's bytes; markup says whether it is a
// marker of tool-call markup (not an HTML tag, a backtick run or a
// bracketed word), prev holds the four bytes before it. It ends the text
// piece before it (and, if markup, the stretch). It reports whether the
// guard fired at this marker.
func (g *Guard) Marker(raw []byte, markup bool, prev uint32) bool {
	if g.fired || g.off {
		return false
	}
	if g.n > 0 {
		g.pushPiece(prev) // the guard decides after the marker
	}
	g.start += int64(g.n)
	g.n = 0
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
		g.newStretch(g.start + int64(len(raw)))
	} else { // an HTML tag, a backtick run: the stretch goes on
		if g.inLines && g.lines.strong {
			g.lineBytes(raw) // a line's bytes
		}
		h &^= markupBit
		if sn := g.sn(); sn+len(raw) > g.winFrom() {
			g.keep(raw, sn)
		}
	}
	g.start += int64(len(raw))
	g.push(symbol{fp: h, full: h | 1, end: g.start, mark: true}, markup)
	g.afterMark = markup
	fired := g.check()
	if sn := g.sn(); !markup && !fired && sn >= g.cutAt { // tags alone reached a cut
		fired = g.cutStretch(sn)
	}
	g.startPiece()
	g.setRoom()
	return fired
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
	markupBit = 1 << 63
)

// hashBytes adds b to FNV-1a hash h, digits folded when fold (by a table:
// no branch on a byte, digits among letters are no pattern to predict).
func hashBytes(h uint64, b []byte, fold bool) uint64 {
	t := &asIs
	if fold {
		t = &digitsFolded
	}
	for ; len(b) >= 4; b = b[4:] {
		h = (h ^ uint64(t[b[0]])) * fnvPrime
		h = (h ^ uint64(t[b[1]])) * fnvPrime
		h = (h ^ uint64(t[b[2]])) * fnvPrime
		h = (h ^ uint64(t[b[3]])) * fnvPrime
	}
	for _, c := range b {
		h = (h ^ uint64(t[c])) * fnvPrime
	}
	return h
}

// asIs maps each byte to itself; digitsFolded maps digits to '0'.
var asIs, digitsFolded = func() (a, f [256]byte) {
	for c := range 256 {
		a[c], f[c] = byte(c), byte(c)
		if '0' <= c && c <= '9' {
			f[c] = '0'
		}
	}
	return a, f
}()

// pushPiece pushes the piece in progress, whose last four bytes (at most)
// are tail32, unless it is only whitespace, and reports whether it did. Its
// fingerprint is its length and last bytes.
func (g *Guard) pushPiece(tail32 uint32) bool {
	n := g.n
	tail := uint64(tail32)
	if n < 4 {
		tail &= 1<<(8*uint(n)) - 1
	}
	if n <= 4 && isBlank(tail, n) || n <= headLen && g.capture && isBlank(g.head, n) {
		return false // the next piece still follows the marker before
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
	g.push(symbol{fp: mix(x, tail) &^ markupBit, full: full, end: g.start + int64(n), head: head, hlen: h}, false)
	return true
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
	g.ring[i%ringSize] = s
	g.count = i + 1
	g.strong = g.period > 0 && g.run >= g.period*(strongAfter-1) && g.unitMarks()
}

// unitMarks reports whether the current unit holds markup: only such a
// unit fires as a loop of markup (check), so only its pieces are worth
// hashing in full (a file written into a call repeats tags and lines).
func (g *Guard) unitMarks() bool {
	_, marks := g.unit()
	return marks > 0
}

// unit returns the current unit's bytes and markup symbols.
func (g *Guard) unit() (size int64, marks uint32) {
	i := g.count - 1
	p := g.period
	if p == 0 || i < p {
		return 0, 0
	}
	a, b := &g.ring[(i-p)%ringSize], &g.ring[i%ringSize]
	return b.end - a.end, b.marks - a.marks
}

// check decides after a symbol whether the tail is a loop of markup.
func (g *Guard) check() bool {
	p := g.period
	if p == 0 || g.run < p*(uint32(g.lim.Markup)-1) || g.srun < p*strongReps {
		return false
	}
	size, marks := g.unit()
	if marks == 0 || size > int64(g.lim.Unit) || size <= 0 {
		return false
	}
	return g.fire(g.runStart(), g.ring[(g.count-1)%ringSize].end)
}

// runStart returns the offset where the run of symbols began: the end of
// the symbol before the first of its run+period symbols, or 0 when the
// ring no longer holds it.
func (g *Guard) runStart() int64 {
	i, back := int64(g.count)-1, int64(g.run)+int64(g.period)
	if back >= ringSize || i-back < 0 {
		return 0
	}
	return g.ring[(i-back)%ringSize].end
}

// fire records that the tail from offset from to offset at is a loop.
func (g *Guard) fire(from, at int64) bool {
	g.fired, g.firedAt, g.firedFrom = true, at, max(from, 0)
	g.setRoom()
	return true
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
	if g.fired || g.off || g.period == 0 || g.run == 0 {
		return false
	}
	size, marks := g.unit()
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
	if !g.capture || isBlank(g.head, n) {
		return true // its first bytes were not kept, or may be whitespace: its end tells
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
