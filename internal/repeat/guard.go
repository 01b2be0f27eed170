// Package repeat is the repetition guard: it watches a stream as a
// sequence of units and reports when the stream's tail is one unit
// repeated, whatever the unit is. A runaway loop of a model is such a tail
// (openers re-opened, a call written again and again, a closer or a
// chat-template turn repeated, a phrase repeated in an argument), so one
// guard stops loops of any shape without a list of shapes.
//
// The units are symbols: each marker token the lexer reads, and each piece
// of text. A piece ends at a line end (a newline, or `\n` escaped as in a
// JSON string, where files are written in one long line), at a marker, or,
// in a long line, at
// the first space after cutMin bytes (at cutMax bytes without one), so the
// cuts fall where the content says and a phrase repeated in one long line
// is cut alike in every repetition. A symbol is kept as a fingerprint:
// a marker's bytes hashed with digit runs folded to one digit, a piece's
// length, first and last bytes (digits folded in a piece that follows a
// marker, so that counters compare equal: `<|im_start|>assistant57`, 58, ...).
// Whitespace-only pieces are not symbols. A piece's fingerprint is weak
// (two lines that differ only in their middle match), so while a run is
// under way pieces are also hashed in full, and the guard fires only when
// the last half of the repetitions it needs match in full too.
//
// The guard keeps the last ringSize symbols and, for the latest symbol, a
// candidate period: the distance to the last earlier symbol with the same
// fingerprint. A run counts the symbols that equal the one a period
// before; run+period symbols that do are (run+period)/period repetitions of
// a unit of period symbols. When a symbol breaks the run, the candidate
// becomes the distance to that symbol's last occurrence. Each symbol costs
// a few loads and stores; text costs a length update per chunk and a few
// operations per piece, so the guard is linear in the input and its memory
// is fixed.
//
// It fires when the tail repeats a unit holding markup Limits.Markup
// times; a unit of whole lines of text Limits.Lines times; a unit of text
// within one long line Limits.Inline times (its pieces are long, so few
// repetitions cover much text); the repetitions of text covering at least
// Limits.Span bytes and their pieces holding a few distinct bytes (a line of
// one repeated character is padding or test data, not a model repeating
// itself). Units longer than Limits.Unit bytes do not count.
package repeat

import (
	"bytes"
	"encoding/binary"
)

// Limits are the guard's thresholds. Zero fields take the defaults.
type Limits struct {
	// Markup: repetitions in a row of a unit that holds a marker
	// (default 8: the guard fires at the 8th).
	Markup int
	// Lines: repetitions in a row of a unit of whole lines of text
	// (default 48).
	Lines int
	// Inline: repetitions in a row of a unit of text within one long line
	// (default 8; its pieces are 64 bytes or more).
	Inline int
	// Span: the bytes a repetition of text must cover (default 256).
	Span int
	// Unit: the longest unit, in bytes (default 4096).
	Unit int
}

// Defaults, chosen from data (docs/contract.md, "Runaway"). In the Go
// source tree (101 MB of .go, .md, .txt and .json) the longest run of one
// repeated line with several distinct characters is 32 lines, and no long
// line is periodic; loops reported in the field repeat a line 60 to
// thousands of times, and a phrase within a line hundreds of times.
const (
	DefaultMarkup = 8
	DefaultLines  = 48
	DefaultInline = 8
	DefaultSpan   = 256
	DefaultUnit   = 4096
)

func (l *Limits) withDefaults() {
	for _, f := range []struct {
		v *int
		d int
	}{{&l.Markup, DefaultMarkup}, {&l.Lines, DefaultLines}, {&l.Inline, DefaultInline}, {&l.Span, DefaultSpan}, {&l.Unit, DefaultUnit}} {
		if *f.v <= 0 {
			*f.v = f.d
		}
	}
}

const (
	ringSize  = 128 // symbols kept: the longest unit, in symbols
	tableSize = 256 // last occurrences, by fingerprint
	headLen   = 8   // a piece's first bytes kept for its fingerprint
	cutMin    = 64  // a long line is cut at the first space after this many bytes
	cutMax    = 256
	utf8Max   = 4 // bytes of the longest UTF-8 character
	// A repeated line needs lineVariety distinct non-space bytes (a line
	// of one or a few characters repeated is a separator or test data); a
	// phrase repeated within a line needs inlineLetters distinct letters
	// (non-ASCII bytes count: CJK text), as a model repeating itself
	// writes words, and a long line of numbers or codes is data.
	lineVariety   = 4
	inlineLetters = 3
)

// Guard is the repetition guard. Create it with New.
type Guard struct {
	lim Limits

	// The text piece in progress.
	n         int           // its bytes so far
	head      [headLen]byte // its first bytes
	afterMark bool          // it follows a marker on its line: digits fold
	escaped   bool          // the byte before is a backslash that escapes the next
	total     int64         // bytes seen
	// strong: a run is under way, so pieces are hashed in full; full is
	// the hash of the piece in progress, valid when fullOK (hashed from its
	// first byte).
	strong, fullOK bool
	full           uint64

	// Symbols: fingerprints, cumulative bytes at their ends and cumulative
	// markup symbols up to them, by index mod ringSize.
	count  uint32
	fp     [ringSize]uint64
	end    [ringSize]int64
	marks  [ringSize]uint32
	lines  [ringSize]uint32        // cumulative text symbols that ended a line
	sfp    [ringSize]uint64        // a symbol's full hash (0: unknown; a marker's is its fingerprint)
	srun   uint32                  // symbols in a row whose full hash equals the one a period before
	heads  [ringSize][headLen]byte // a text symbol's first bytes (folded as in its fingerprint); a marker's: none
	hlen   [ringSize]uint8         // how many; 0 for a marker
	last   [tableSize]uint32       // index+1 of the last symbol whose fingerprint falls here
	period uint32
	run    uint32
	// piece: the fingerprint sample of the latest text symbol (for
	// variety).
	piece [2 * headLen]byte
	pn    int

	fired   bool
	firedAt int64 // input offset just after the symbol that fired
}

// New returns a guard with limits lim (zero fields: defaults).
func New(lim Limits) *Guard {
	lim.withDefaults()
	return &Guard{lim: lim, firedAt: -1}
}

// Fired reports whether the guard fired, and the input offset (counted
// from the first byte the guard saw) just after the symbol that did.
func (g *Guard) Fired() (bool, int64) { return g.fired, g.firedAt }

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
	p := g.period
	return !g.fired && p > 0 && g.run > 0 && g.unitMarks() > 0 && g.unitBytes() <= int64(g.lim.Unit)
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
	return g.end[(g.count-1-g.run)%ringSize] <= off
}

// mayContinue reports whether the text piece in progress begins like the
// symbol that continues the run.
func (g *Guard) mayContinue() bool {
	next := (g.count - g.period) % ringSize
	n := min(g.n, headLen)
	if isBlank(g.head[:n]) {
		return true // it may be whitespace, which is no symbol
	}
	if int(g.hlen[next]) < n {
		return false // a marker, or a shorter piece
	}
	for i, c := range g.head[:n] {
		if g.afterMark && '0' <= c && c <= '9' {
			c = '0'
		}
		if c != g.heads[next][i] {
			return false
		}
	}
	return true
}

// Run reports the current run's symbol count: it changes when a symbol
// breaks the run (the held calls of a run that broke are no loop).
func (g *Guard) Run() uint32 { return g.run }

// Text observes content bytes. prev holds the eight bytes before p (the
// last in its low byte). It returns len(p), or, when the guard fired at a
// symbol that ends inside p, the number of p's bytes up to that point.
func (g *Guard) Text(p []byte, prev uint64) int {
	if g.n >= headLen && g.n+len(p) < cutMin && !g.escaped && !g.strong && !mayEndLine(p) {
		g.n += len(p)
		g.total += int64(len(p))
		return len(p)
	}
	return g.text(p, prev)
}

// TextInLine is Text for p the caller knows holds no newline and no
// backslash.
func (g *Guard) TextInLine(p []byte, prev uint64) int {
	if g.n >= headLen && g.n+len(p) < cutMin && !g.escaped && !g.strong {
		g.n += len(p)
		g.total += int64(len(p))
		return len(p)
	}
	return g.text(p, prev)
}

// mayEndLine reports whether p holds a newline or a backslash; short
// slices are checked inline, longer ones with IndexByte.
func mayEndLine(p []byte) bool {
	if len(p) > 8 {
		return bytes.IndexByte(p, '\n') >= 0 || bytes.IndexByte(p, '\\') >= 0
	}
	for _, c := range p {
		if c == '\n' || c == '\\' {
			return true
		}
	}
	return false
}

// lineEnd returns the length of b up to and including its first line end
// (a newline, or a backslash escape `\n`; esc: b[0] is escaped) and
// found; or len(b), and escEnd: whether b ends with a backslash that
// escapes the next byte.
func lineEnd(b []byte, esc bool) (k int, found, escEnd bool) {
	lim := len(b)
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		lim = i + 1
	}
	j := 0
	if esc {
		if b[0] == 'n' {
			return 1, true, false
		}
		j = 1
	}
	for j < lim {
		i := bytes.IndexByte(b[j:lim], '\\')
		if i < 0 {
			break
		}
		j += i + 1
		if j == len(b) {
			return len(b), false, true
		}
		if b[j] == 'n' {
			return j + 1, true, false
		}
		j++ // the escaped byte
	}
	return lim, lim < len(b) || b[lim-1] == '\n', false
}

// text is Text's long way: p is cut into pieces.
func (g *Guard) text(p []byte, prev uint64) int {
	if g.fired {
		g.total += int64(len(p))
		return len(p)
	}
	done := 0
	for done < len(p) {
		rest := p[done:]
		// this piece's bytes in rest: up to its line end, or a cut
		// a piece is cut at cutMax bytes, before the next character: no
		// need to look further for its line end
		look := rest[:min(len(rest), max(cutMax-g.n, 0)+utf8Max)]
		k, line, escEnd := lineEnd(look, g.escaped)
		g.escaped = escEnd
		ends := line
		if g.n+k >= cutMin {
			if c, cut := g.cutAt(rest, k); cut {
				k, ends, line, g.escaped = c, true, false, false
			}
		}
		seg := rest[:k]
		if g.n == 0 {
			g.full, g.fullOK = fnvOffset, g.strong
		}
		if g.fullOK {
			g.full = hashFolded(g.full, seg, g.afterMark)
		}
		if g.n < headLen {
			copy(g.head[g.n:], seg)
		}
		g.n += k
		g.total += int64(k)
		done += k
		prev = shiftIn(prev, seg)
		if ends && g.endPiece(prev, line) {
			return done
		}
	}
	return len(p)
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

// cutAt returns where a piece that may reach cutMin within rest[:k] is
// cut: after the first space at piece position cutMin or later, or once it
// holds cutMax bytes, before the next byte that starts a character (a cut
// never splits one); cut is false when neither comes before k.
func (g *Guard) cutAt(rest []byte, k int) (int, bool) {
	i := max(cutMin-g.n, 0)
	for ; i < k && g.n+i < cutMax; i++ {
		if rest[i] == ' ' {
			return i + 1, true
		}
	}
	for ; i < k; i++ {
		if rest[i] < 0x80 || rest[i] >= 0xC0 {
			return i, true
		}
	}
	return k, false
}

// Marker observes a marker token's bytes; markup says whether it is a
// marker of tool-call markup (not an HTML tag, a backtick run or a
// bracketed word), prev holds the eight bytes before it. It ends the text
// piece before it. It reports whether the guard fired at this marker.
func (g *Guard) Marker(raw []byte, markup bool, prev uint64) bool {
	if g.fired {
		g.total += int64(len(raw))
		return false
	}
	if g.n > 0 {
		g.symbolOfPiece(prev, false) // the guard decides after the marker: a loop ended by a marker is no loop of text
	}
	g.total += int64(len(raw))
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
	g.push(h, h|1, markup, false)
	g.hlen[(g.count-1)%ringSize] = 0
	g.afterMark = markup
	return g.check()
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
	markupBit = 1 << 63
)

// endPiece ends the text piece whose last eight bytes (at most) are tail,
// at a line end or not, and reports whether the guard fired.
func (g *Guard) endPiece(tail uint64, line bool) bool {
	if !g.symbolOfPiece(tail, line) {
		return false
	}
	return g.check()
}

// symbolOfPiece pushes the piece in progress, which ended a line or not,
// as a symbol, unless it is only whitespace; it reports whether it pushed
// one.
func (g *Guard) symbolOfPiece(tail uint64, line bool) bool {
	n := g.n
	g.n = 0
	fold := g.afterMark
	g.afterMark = false
	h := min(n, headLen)
	head := g.head[:h]
	if n <= headLen && isBlank(head) {
		return false
	}
	if n < 8 {
		tail &= 1<<(8*uint(n)) - 1
	}
	var t [8]byte
	binary.BigEndian.PutUint64(t[:], tail)
	pn := copy(g.piece[:], head)
	pn += copy(g.piece[pn:], t[8-min(n, 8):])
	g.pn = pn
	if fold {
		for i := range g.piece[:pn] {
			if c := g.piece[i]; '0' <= c && c <= '9' {
				g.piece[i] = '0'
			}
		}
	}
	x := uint64(n)*0x9E3779B97F4A7C15 ^ 0x5bd1e995
	var hw [8]byte
	copy(hw[:], g.piece[:h])
	x = mix(x, binary.LittleEndian.Uint64(hw[:]))
	var tw [8]byte
	copy(tw[:], g.piece[h:pn])
	x = mix(x, binary.LittleEndian.Uint64(tw[:]))
	if fold {
		x = mix(x, 1)
	}
	var full uint64
	if g.fullOK {
		full = g.full | 1
	}
	g.push(x&^markupBit, full, false, line)
	i := (g.count - 1) % ringSize
	g.hlen[i] = uint8(copy(g.heads[i][:], g.piece[:h]))
	return true
}

// hashFolded adds b to FNV-1a hash h, digits folded when fold.
func hashFolded(h uint64, b []byte, fold bool) uint64 {
	for _, c := range b {
		if fold && '0' <= c && c <= '9' {
			c = '0'
		}
		h = (h ^ uint64(c)) * fnvPrime
	}
	return h
}

func mix(h, v uint64) uint64 {
	h ^= v
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// push adds a symbol (its fingerprint, its full hash or 0) and updates
// the run; line: it is a text piece that ended a line.
func (g *Guard) push(fp, full uint64, markup, line bool) {
	i := g.count
	slot := &g.last[fp%tableSize]
	p := g.period
	var before uint64 // the full hash a period before
	if p > 0 && i >= p {
		before = g.sfp[(i-p)%ringSize]
	}
	if p > 0 && i >= p && g.fp[(i-p)%ringSize] == fp && (full == 0 || before == 0 || full == before) {
		g.run++
		if full != 0 && full == before {
			g.srun++
		} else {
			g.srun = 0
		}
	} else {
		g.period, g.run, g.srun = 0, 0, 0
		if j := *slot; j > 0 && i-(j-1) <= ringSize-1 && g.fp[(j-1)%ringSize] == fp {
			g.period, g.run = i-(j-1), 1
		}
	}
	*slot = i + 1
	var marks, lines uint32
	if i > 0 {
		marks, lines = g.marks[(i-1)%ringSize], g.lines[(i-1)%ringSize]
	}
	if line {
		lines++
	}
	g.lines[i%ringSize] = lines
	g.fp[i%ringSize] = fp
	g.sfp[i%ringSize] = full
	g.strong = g.period > 0
	g.end[i%ringSize] = g.total
	if markup {
		marks++
	}
	g.marks[i%ringSize] = marks
	g.count = i + 1
}

// unitBytes is the byte length of the current unit (period symbols).
func (g *Guard) unitBytes() int64 {
	i := g.count - 1
	p := g.period
	if p == 0 || i < p {
		return 0
	}
	return g.end[i%ringSize] - g.end[(i-p)%ringSize]
}

// unitMarks is the number of markup symbols in the current unit.
func (g *Guard) unitMarks() uint32 {
	i := g.count - 1
	p := g.period
	if p == 0 || i < p {
		return 0
	}
	return g.marks[i%ringSize] - g.marks[(i-p)%ringSize]
}

// check decides after a symbol whether the tail is a loop.
func (g *Guard) check() bool {
	p := g.period
	if p == 0 || g.run < p {
		return false
	}
	reps := (g.run + p) / p
	if g.srun < p*(reps/2) {
		return false // not matched in full for long enough
	}
	unit := g.unitBytes()
	if unit > int64(g.lim.Unit) || unit <= 0 {
		return false
	}
	switch {
	case g.unitMarks() > 0:
		if reps < uint32(g.lim.Markup) {
			return false
		}
	case g.unitLines() > 0:
		if reps < uint32(g.lim.Lines) || int64(reps)*unit < int64(g.lim.Span) || g.variety(false) < lineVariety {
			return false
		}
	default:
		if reps < uint32(g.lim.Inline) || int64(reps)*unit < int64(g.lim.Span) || g.variety(true) < inlineLetters {
			return false
		}
	}
	g.fired, g.firedAt = true, g.total
	return true
}

// variety counts the distinct non-space bytes of the latest piece's
// sample, or only its letters (non-ASCII bytes count as letters); escapes
// (`\n`, `\t` in JSON-escaped text) are spaces.
func (g *Guard) variety(letters bool) int {
	var seen [256]bool
	n := 0
	esc := false
	for _, c := range g.piece[:g.pn] {
		if esc || c == '\\' {
			esc = !esc && c == '\\'
			continue
		}
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || seen[c] ||
			letters && c < 0x80 && !('a' <= c|0x20 && c|0x20 <= 'z') {
			continue
		}
		seen[c] = true
		n++
	}
	return n
}

// unitLines is the number of line-ending pieces in the current unit.
func (g *Guard) unitLines() uint32 {
	i := g.count - 1
	p := g.period
	if p == 0 || i < p {
		return 0
	}
	return g.lines[i%ringSize] - g.lines[(i-p)%ringSize]
}
