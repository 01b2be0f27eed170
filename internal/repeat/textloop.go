package repeat

import (
	"bytes"
	"encoding/binary"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Units of text: the window before each cut of a stretch is searched for
// its shortest period, and the thresholds below decide, by what the unit
// holds (lines, a phrase, letters, a list element), whether that many
// repetitions over that span are a loop or merely data.

// periodic checks the window before a cut of the stretch (g.start+g.n),
// sn bytes after the last cut: a unit of text repeated enough fires the
// guard. The repeated span is the window's periodic tail, and, when the
// whole window repeats the unit the window at the last cut ended with,
// the span that window had plus the bytes between the two cuts (a loop
// goes on across cuts; the bytes between are not compared).
func (g *Guard) periodic(sn int) bool {
	from := g.winFrom()
	end, wl := sn-from, g.cutAt-from // the window: the wl bytes before the cut
	prevP, prevSpan := g.unitP, g.span
	g.unitP, g.span = 0, 0
	if end > len(g.win) || end < wl {
		return false // a marker too long took the window's place
	}
	w := g.win[end-wl : end]
	p, tail := period(w)
	if p == 0 {
		return false
	}
	unit := w[len(w)-p:]
	span := int64(tail)
	if tail == len(w) && prevP == p && rotated(unit, g.wunit[:p], sn%p) {
		span = prevSpan + int64(sn)
	}
	copy(g.wunit[:], unit)
	g.unitP, g.span = p, span
	lines := bytes.IndexByte(w[max(len(w)-p-1, 0):], '\n') >= 0
	if lines && g.inText && !g.lines.awake && g.wake(w) { // the window repeats lines: watch them
		return true
	}
	if !loopOfText(w[max(len(w)-p-1, 0):], unit, span/int64(p), span, g.lim.Lines) {
		return false
	}
	at := g.start + int64(g.n)
	return g.fire(at-span, at) // the span ends at the cut
}

// Thresholds of units of text, by what the unit holds, set from the Go
// source tree (101 MB of .go, .md, .txt and .json: the largest repetition
// of each kind in it is in brackets) and the loops of the field corpus.
// A unit of lines with lineVariety distinct bytes fires at Limits.Lines
// repetitions over minLineSpan bytes (32 lines in the tree); one of fewer
// (a row of a diagram, `  |    |`) at lineRepeats over lineSpan bytes
// (49), unless its lines are one character repeated (`☺☺☺`, 2,000 times). A phrase of inlineLetters letters fires at inlineRepeats over
// phraseSpan bytes (`blah`, 53 times over 212 bytes); one character of a
// script written without spaces (`像`), which is a word, at wordRepeats
// (none). A unit of one or two letters (`ny`, ` b`, `-th`) fires at
// fewRepeats (102, `\x00` escapes) and one of none (`  412`) at
// plainRepeats over plainSpan (128); but such a unit with a separator
// (`, ml`, ` 255,`: 640 and 921 times) is an element of a list, data. One
// byte repeated is padding or test data (`a`, 309 times), never a loop.
const (
	phraseSpan   = 512
	wordRepeats  = 64
	fewRepeats   = 256
	fewSpan      = 512
	plainRepeats = 512
	plainSpan    = 2048
	lineRepeats  = 256 // a line of few distinct bytes
	lineSpan     = 4096
)

// loopOfText reports whether unit, repeated reps times over span bytes,
// is a loop; around is the unit with the byte before it.
func loopOfText(around, unit []byte, reps, span int64, lines int) bool {
	var buf [maxPeriod]byte
	unit = wholeEscapes(unit, &buf)
	if bytes.IndexByte(around, '\n') >= 0 || bytes.Contains(around, []byte(`\n`)) { // a unit of lines
		v := distinct(unit, true)
		return v >= lineVariety && reps >= int64(lines) && span >= minLineSpan ||
			v > 0 && reps >= lineRepeats && span >= lineSpan && !oneRune(unit)
	}
	l := letters(unit)
	switch {
	case len(unit) < 2: // one byte repeated: padding, or test data
		return false
	case l >= inlineLetters && reps >= inlineRepeats && span >= phraseSpan:
		return true
	case l >= inlineLetters && unit[0] >= utf8.RuneSelf:
		r, size := utf8.DecodeRune(unit)
		return size == len(unit) && unicode.IsLetter(r) && reps >= wordRepeats
	case l >= inlineLetters || bytes.ContainsAny(unit, ",;"):
		return false
	case l > 0:
		return reps >= fewRepeats && span >= fewSpan
	default:
		return distinct(unit, true) > 0 && reps >= plainRepeats && span >= plainSpan
	}
}

// wholeEscapes returns unit with its escapes whole: the window's unit is
// a rotation of the repeated one, and may begin inside an escape (`n☺☺\`
// for `☺☺\n`, written in a JSON string); an odd run of backslashes at its
// end escapes its first byte. Such a unit is rotated by one byte (into
// buf), so that the escape is not read as a letter of its own.
func wholeEscapes(unit []byte, buf *[maxPeriod]byte) []byte {
	n := 0
	for n < len(unit) && unit[len(unit)-1-n] == '\\' {
		n++
	}
	if n%2 == 0 || n == len(unit) || len(unit) > len(buf) {
		return unit
	}
	buf[0] = '\\'
	copy(buf[1:], unit[:len(unit)-1])
	return buf[:len(unit)]
}

// oneRune reports whether the unit's lines are one character repeated
// (line ends, escaped or not, aside): padding, or test data.
func oneRune(unit []byte) bool {
	var first rune = -1
	for len(unit) > 0 {
		r, size := utf8.DecodeRune(unit)
		switch {
		case r == '\\' && len(unit) > 1 && (unit[1] == 'n' || unit[1] == 'r'):
			size = 2
		case r == '\n' || r == '\r':
		case first < 0:
			first = r
		case r != first:
			return false
		}
		unit = unit[size:]
	}
	return true
}

// rotated reports whether unit is prev rotated by r: the same loop, cut r
// bytes further on.
func rotated(unit, prev []byte, r int) bool {
	p := len(prev)
	return bytes.Equal(unit[:p-r], prev[r:]) && bytes.Equal(unit[p-r:], prev[:r])
}

// period returns the period of window w and the length of w's tail that
// repeats with it, when that tail holds the unit twice at least; else 0,
// 0. Candidates are the distances p back (at most maxPeriod) to earlier
// occurrences of w's last eight bytes, found by the least common of them
// (nearest, a word at a time); the nearest is taken unless its tail is short (a
// window that ends in a run of spaces inside a longer unit), then the
// nearest of those with the longest tail.
func period(w []byte) (p, tail int) {
	if len(w) < 16 {
		return 0, 0
	}
	end := len(w) - 8 // the needle: w[end:]
	last := binary.LittleEndian.Uint64(w[end:])
	k1, k2 := rarest(last)
	lo := max(end-maxPeriod, 0)
	s := nearest(w, lo, end, k1, k2, last)
	if s < 0 {
		return 0, 0
	}
	near := end - s
	if p, tail = near, periodTail(w, near); tail < len(w)/2 {
		c1, c2 := byte(last>>(8*k1)), byte(last>>(8*k2))
		for s := lo; s < end-near; s++ { // the farther candidates
			i := bytes.IndexByte(w[s+k1:end-near+k1], c1)
			if i < 0 {
				break
			}
			if s += i; w[s+k2] == c2 && binary.LittleEndian.Uint64(w[s:]) == last {
				if q := end - s; periodTail(w, q) >= tail {
					p, tail = q, periodTail(w, q)
				}
			}
		}
	}
	if tail < 2*p {
		return 0, 0
	}
	return p, tail
}

// nearest returns the greatest s in [lo, hi) where w's eight bytes equal
// last, or -1 (hi+8 <= len(w)). Candidates are the s whose byte s+k1 is
// last's byte k1 (its least common), found by IndexByte, and byte s+k2 its
// byte k2 (the next least common); only they are compared whole.
func nearest(w []byte, lo, hi, k1, k2 int, last uint64) int {
	c1, c2 := byte(last>>(8*k1)), byte(last>>(8*k2))
	near := -1
	for s := lo; s < hi; s++ {
		i := bytes.IndexByte(w[s+k1:hi+k1], c1)
		if i < 0 {
			break
		}
		if s += i; w[s+k2] == c2 && binary.LittleEndian.Uint64(w[s:]) == last {
			near = s
		}
	}
	return near
}

// rarest returns the position of the least common of needle's eight
// bytes (the first of those least common) and another four bytes away:
// the least of their ranks, each with its position in its low bits (no
// branch on a rank: which byte is rarest is no pattern to predict).
func rarest(needle uint64) (k1, k2 int) {
	r := uint(common[byte(needle)]) << 3
	for i := 1; i < 8; i++ {
		r = min(r, uint(common[byte(needle>>(8*i))])<<3|uint(i))
	}
	k1 = int(r & 7)
	return k1, k1 ^ 4
}

// common ranks bytes by how often they come in text, so that the byte
// period looks for has few false hits: whitespace, then lowercase letters
// by their frequency in English, then punctuation and capitals; digits,
// symbols and bytes of other scripts are rarer.
var common = func() (r [256]uint8) {
	for i, group := range []string{"zqjx", "kv", "bpyg", "fwmuc", "dlrh", "sni", "oat", "e"} {
		for _, c := range []byte(group) {
			r[c] = uint8(8 + 2*i)
		}
	}
	for _, c := range []byte(",.") {
		r[c] = 10
	}
	for c := byte('A'); c <= 'Z'; c++ {
		r[c] = 6
	}
	for _, c := range []byte(" \t\n") {
		r[c] = 30
	}
	return r
}()

// periodTail returns the length of w's tail that repeats with period p
// (w's last eight bytes do).
func periodTail(w []byte, p int) int {
	j := len(w) - 1 - 8
	for j >= p && w[j] == w[j-p] {
		j--
	}
	if j < p {
		return len(w)
	}
	return len(w) - (j - p + 1)
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
// its UTF-8 length (a CJK character is a word). A symbol, a broken
// sequence, a number (a word that starts with a digit: 255, 0xff, 3e8) and
// a JSON escape (`\n`, `\u003e`, or what is left of one where b begins)
// count nothing.
func letters(b []byte) int {
	var seen [128]bool
	var wide []rune
	n := 0
	for len(b) > 0 {
		c := b[0]
		skip := 0
		switch {
		case c == '\\' && len(b) > 1 && b[1] == 'u':
			skip = 6
		case c == '\\':
			skip = 2
		case (c == 'u' || c == 'U') && len(b) >= 5 && isHex(b[1]) && isHex(b[2]) && isHex(b[3]) && isHex(b[4]):
			skip = 5
		case '0' <= c && c <= '9':
			skip = 1
			for skip < len(b) && (isHex(b[skip]) || b[skip]|0x20 == 'x') {
				skip++
			}
		}
		if skip > 0 {
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

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f' }
