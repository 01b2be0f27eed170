package repeat

import (
	"bytes"
	"encoding/binary"
)

// Lines of text repeated: a model writing the same line, or the same few
// lines, again and again. Each line that is not blank is kept as a
// fingerprint (its length and last four bytes) in a ring of the last
// lineRing lines; a run counts the lines that equal the one a period
// before (a unit of up to lineRing lines). Once a run has strongAfter
// repetitions, lines are also hashed in full and their first bytes kept,
// and the guard fires when the unit repeated Limits.Lines lines in a row
// over at least minLineSpan bytes, the last strongReps repetitions matching
// in full, its line holding lineVariety distinct non-space bytes. Lines
// are watched only once a cheap signal woke them (anchor, wake); awake,
// each line costs a few operations, and only lines of a run under way are
// read byte by byte.

const (
	lineRing    = 8   // the longest unit, in lines
	minLineSpan = 256 // the bytes a run of lines must cover
	anchorRing  = 8   // anchors kept
	wakeSpan    = 16 << 10
)

// lineRun is the state of the lines seen so far.
type lineRun struct {
	start   int64 // the offset where the line in progress began
	off     int64 // where lines stopped being watched (InText)
	count   uint32
	fp      [lineRing]uint64
	full    [lineRing]uint64 // 0: not hashed
	size    [lineRing]int64  // bytes, with the blank lines after
	period  uint32
	run     uint32
	srun    uint32 // lines in a row whose full hash equals the one a period before
	strong  bool   // the line in progress is hashed in full from its start
	awake   bool   // lines are looked for (an anchor came again)
	until   int64  // they are, up to this offset at least
	anchors [anchorRing]uint64
	na      uint32
	hash    uint64
	head    uint64 // its first bytes, when strong
	hn      int
}

// InText says whether the bytes from now on are text (not markup, not an
// argument's value): only lines of text are watched, so that a file written
// into a call with many equal lines is no loop, and the bytes of values cost
// no look for line ends.
func (g *Guard) InText(on bool) {
	g.inText = on
	g.watchLines(on && g.lines.awake)
}

// watchLines starts or stops looking for line ends.
func (g *Guard) watchLines(on bool) {
	if on == g.inLines {
		return
	}
	pos := g.start + int64(g.n)
	if !on {
		g.lines.off = pos
	} else if pos != g.lines.off { // bytes went by unwatched: a line begins here
		g.lines.start = pos
		g.lines.strong, g.lines.hash, g.lines.head, g.lines.hn = false, fnvOffset, 0, 0
	}
	g.inLines = on
}

// anchor is the cheap signal that wakes the lines: at each cut of a
// stretch of text, the 16 bytes before the window's first line end (with
// 16 bytes before it in the window) are kept
// (as a fingerprint, the last anchorRing of them); when they equal one
// kept, a line came again, and lines are watched from the window on for
// wakeSpan bytes at least, and as long as a run goes on. The window's
// lines are counted first, so that a loop is found about as soon as if
// lines had been watched all along.
func (g *Guard) anchor(w []byte) bool {
	l := &g.lines
	if !g.inText || l.awake || len(w) < 32 {
		return false
	}
	last := bytes.IndexByte(w[16:], '\n') + 16 // the window's first line end with 16 bytes before it
	if last < 16 {
		return false
	}
	fp := mix(binary.LittleEndian.Uint64(w[last-16:]), binary.LittleEndian.Uint64(w[last-8:])) | 1
	for _, a := range l.anchors {
		if a == fp {
			return g.wake(w)
		}
	}
	l.anchors[l.na%anchorRing] = fp
	l.na++
	return false
}

// wake starts watching lines at the end of window w (the cut, g.start+g.n),
// counting the window's whole lines first, and reports whether the guard
// fired.
func (g *Guard) wake(w []byte) bool {
	l := &g.lines
	pos := g.start + int64(g.n)
	l.awake, l.until = true, pos+wakeSpan
	base := pos - int64(len(w)) // w[0]'s offset
	first := bytes.IndexByte(w, '\n')
	if first < 0 {
		g.watchLines(true)
		return false
	}
	start := first + 1
	if base == 0 { // the stream's start is a line's
		start = 0
	}
	for start < len(w) {
		j := bytes.IndexByte(w[start:], '\n')
		if j < 0 {
			break
		}
		line := w[start : start+j+1]
		l.start = base + int64(start)
		l.strong, l.hash, l.head, l.hn = true, fnvOffset, 0, 0
		g.lineBytes(line)
		if g.lineEnd(l.start+int64(len(line)), shiftIn(0, line)) {
			g.firedAt = pos
			return true
		}
		start += j + 1
	}
	// the line in progress began in the window
	strong := l.strong
	l.start = base + int64(start)
	l.hash, l.head, l.hn = fnvOffset, 0, 0
	if strong {
		g.lineBytes(w[start:])
	}
	g.inLines = true
	return false
}

// WatchesLines reports whether lines are watched: a caller of Count must
// then know its bytes hold no newline.
func (g *Guard) WatchesLines() bool { return g.inLines }

// lineBytes adds seg, more of the line in progress, to its full hash.
func (g *Guard) lineBytes(seg []byte) {
	l := &g.lines
	l.hash = hashBytes(l.hash, seg, false)
	for _, c := range seg[:min(len(seg), headLen-l.hn)] {
		l.head = l.head<<8 | uint64(c)
	}
	l.hn = min(l.hn+len(seg), headLen)
}

// lineEnd ends the line in progress, whose last four bytes (at most) are
// tail, at offset end, and reports whether the guard fired.
func (g *Guard) lineEnd(end int64, tail32 uint32) bool {
	l := &g.lines
	n := end - l.start
	l.start = end
	strong, hash, head, hn := l.strong, l.hash, l.head, l.hn
	l.strong, l.hash, l.head, l.hn = false, fnvOffset, 0, 0
	tail := uint64(tail32)
	if n < 4 {
		tail &= 1<<(8*uint(n)) - 1
	}
	if n <= 4 && isBlank(tail, int(n)) || strong && n <= headLen && isBlank(head, int(n)) {
		if l.count > 0 {
			l.size[(l.count-1)%lineRing] += n // a blank line belongs to the line before
		}
		l.strong = strong
		return false
	}
	var full uint64
	if strong {
		full = hash | 1
	}
	fp := mix(uint64(n)*0x9E3779B97F4A7C15^0x5bd1e995, tail)
	i := l.count
	p := l.period
	if p > 0 && i >= p && l.fp[(i-p)%lineRing] == fp && (full == 0 || l.full[(i-p)%lineRing] == 0 || full == l.full[(i-p)%lineRing]) {
		l.run++
		if full != 0 && full == l.full[(i-p)%lineRing] {
			l.srun++
		} else {
			l.srun = 0
		}
	} else {
		l.period, l.run, l.srun = 0, 0, 0
		f := &l.fp // the cheap signal first: no line kept has this fingerprint
		if f[0] == fp || f[1] == fp || f[2] == fp || f[3] == fp || f[4] == fp || f[5] == fp || f[6] == fp || f[7] == fp {
			for q := uint32(1); q <= min(i, lineRing); q++ {
				if l.fp[(i-q)%lineRing] == fp {
					l.period, l.run = q, 1
					break
				}
			}
		}
	}
	l.fp[i%lineRing], l.full[i%lineRing], l.size[i%lineRing] = fp, full, n
	l.count = i + 1
	p = l.period
	if l.run > 0 {
		l.until = max(l.until, end+wakeSpan)
	} else if end > l.until { // no run for long: back to the anchors
		l.awake = false
		g.watchLines(false)
	}
	l.strong = p > 0 && l.run >= p*(strongAfter-1)
	if p == 0 || l.run+p < uint32(g.lim.Lines) || l.srun < p*strongReps {
		return false
	}
	var unit int64
	for q := range p {
		unit += l.size[(i-q)%lineRing]
	}
	if int64((l.run+p)/p)*unit < minLineSpan || unit > int64(g.lim.Unit) {
		return false
	}
	var b [16]byte
	for k := range 8 {
		b[k], b[8+k] = byte(head>>(8*(7-k))), byte(tail>>(8*(7-k)))
	}
	if distinct(append(b[8-min(hn, 8):8:8], b[16-min(int(n), 4):]...), false) < lineVariety {
		return false
	}
	reps := int64((l.run + 2*p - 1) / p) // whole units, the one in part rounded up: never after the start
	return g.fire(end-reps*unit, end)
}
