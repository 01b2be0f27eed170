// Package lexer turns a stream of content bytes into tokens: runs of text,
// tags (`<invoke name="x">`, `</parameter>`, `<function=f>`, with DSML and
// namespace prefixes, and Kimi K3's tags written with tokens,
// `<|open|>call tool="f"<|sep|>`), special tokens (`<｜tool▁call▁begin｜>`,
// `<|channel|>`, `[TOOL_CALLS]`) and backtick runs.
//
// It is push-mode and resumable: Feed gives it the next chunk, Next returns
// tokens until the chunk is used up. A marker cut by a chunk boundary is held
// back (at most DefaultMaxTag bytes, see EnterBlock) and finished with the next chunk, so the tokens
// do not depend on how the input was cut. Text runs are found with a byte
// table and returned as slices of the chunk, without copying. A text token
// never ends inside a UTF-8 sequence unless the input ends there.
//
// The lexer knows the shape of markers, not their meaning: every tag-shaped
// run is a Tag token, classified by the marker table (markers.go); the fsm
// package decides what it means in context and may take any token back as
// text through its Raw bytes.
//
// Every byte the lexer returns, as text (Next, Skip) or as a marker, it also
// hands to the repetition guard set by Watch (internal/repeat), in input
// order and exactly once; a short path that takes bytes without tokens tells
// it through Skip, or Advance after the guard's Count.
package lexer

import (
	"bytes"
	"encoding/binary"
	"unicode"
	"unicode/utf8"

	"github.com/toolsieve/toolsieve/internal/repeat"
	"github.com/toolsieve/toolsieve/internal/swar"
	"golang.org/x/text/width"
)

// Kind is the kind of a token.
type Kind uint8

// Token kinds.
const (
	Text      Kind = iota // content bytes
	Tag                   // <name attrs>, </name>, <name/>, <name=value>
	Special               // <|name|>, <｜name｜>, [NAME]
	Backticks             // a run of backticks (code spans and fences)
)

func (k Kind) String() string {
	switch k {
	case Text:
		return "text"
	case Tag:
		return "tag"
	case Special:
		return "special"
	case Backticks:
		return "backticks"
	}
	return "kind?"
}

// Flags describe how a marker was written.
type Flags uint32

// Token flags.
const (
	Closing      Flags = 1 << iota // </name>, a slash after a DSML prefix, or [/NAME]
	SelfClosing                    // <name/>, or </name/>
	Unclosed                       // the tag ended without its '>'
	barVariant                     // doubled or unusual bars, or spaces around them
	quoteVariant                   // an attribute in single, curly, escaped or no quotes
	spaceVariant                   // whitespace inside the marker where canonical markup has none
	NameVariant                    // an alias of the marker's name, or unusual case
	ASCIIBar                       // the bars were '|'
	wideBar                        // the bars were '｜' (U+FF5C)
	DSML                           // the tag carries the DSML prefix
	bracketToken                   // a [NAME] token
	LineStart                      // the token starts a line (after up to three spaces)
	LateSlash                      // a closer's slash after the DSML prefix: <｜DSML｜/parameter>
	Overflow                       // text given back because a marker candidate outgrew its bound
	HalfBar                        // <|name> or <name|>: one bar, on the inside of the opener or closer (Gemma); a Tag
	XTML                           // a tag written with tokens: <|open|>NAME attrs<|sep|>, <|close|>NAME<|sep|> (Kimi K3)
	// Sentinel: the tag is written after a sentinel token that names its
	// namespace, `<]minimax[>[<invoke ..>` (MiniMax-M3; NS is the name).
	Sentinel
	// Suffixed: the tag's name is followed by a colon and a suffix, held
	// in NS (`opensource` of Hunyuan's `<tool_calls:opensource>`).
	Suffixed
)

// Variant is the set of flags that mean a marker was not written canonically.
const Variant = barVariant | quoteVariant | spaceVariant | NameVariant

// Attr is one attribute of a tag, with its value unquoted (escapes kept).
type Attr struct {
	Key, Val []byte
}

// Token is one lexical unit. Its byte slices alias the input chunk or the
// lexer's buffers: they are valid until the next call to Next or Feed.
type Token struct {
	Kind   Kind
	Marker Marker // for Tag and Special tokens
	Flags  Flags
	Raw    []byte // the exact input bytes
	Name   []byte // the name as written, without prefix (Tag, Special)
	// NS: the namespace prefix (`antml` of `antml:invoke`, `ifm` of
	// `<ifm|tool_call>`), `DSML` or `GCML`, or with Suffixed the suffix.
	NS     []byte
	Value  []byte // VALUE of <name=VALUE>
	Attrs  []Attr
	Count  int   // length of a backtick run
	Offset int64 // input offset of Raw[0]
}

// Has reports whether all of f are set.
func (t *Token) Has(f Flags) bool { return t.Flags&f == f }

// Attr returns the value of the first attribute named key (ASCII case-insensitive).
func (t *Token) Attr(key string) ([]byte, bool) {
	for _, a := range t.Attrs {
		if equalFoldASCII(a.Key, key) {
			return a.Val, true
		}
	}
	return nil, false
}

// DefaultMaxTag bounds the bytes of one marker outside blocks: the longest
// hold-back. Names, namespaces and attributes of real markers fit easily.
const DefaultMaxTag = 1024

// Lexer is a push-mode tokenizer. The zero value is ready to use.
type Lexer struct {
	// maxTagBytes bounds a marker's bytes (0 means DefaultMaxTag). A
	// candidate that grows past it is given back as text.
	maxTagBytes int

	src    []byte // current chunk
	pos    int
	offset int64 // input offset of src[pos]

	// The marker candidate in progress: its bytes so far and recognizer state.
	hold    []byte
	holdOff int64
	rec     recognizer
	active  bool
	// rescan: the pending bytes are those of a `<|sep|>` that was not one,
	// after an XTML tag: they start the next marker candidate, not text.
	rescan bool
	// block relaxes quoted attribute values (see EnterBlock).
	block bool
	// slow turns the prefilter off (Prefilter).
	slow    bool
	pending []byte // bytes of a cut tag's tail waiting to be returned as text

	partial []byte // an incomplete UTF-8 sequence at the end of the last chunk

	// The last bytes returned, to tell whether a marker starts a line and
	// for the repetition guard: the last one in the low byte; ntail counts
	// them up to 4.
	tail  uint32
	ntail uint8

	// guard sees every byte returned, as text or as a marker (Watch).
	guard *repeat.Guard
	// nlAt: the index in src of the next newline from the text run in
	// progress on (len(src): none; -1: not looked for yet).
	nlAt int

	attrs []Attr
	key   []byte // scratch for the normalised lookup key
	tok   Token
}

// Feed sets the next chunk of input. The lexer reads from it until Next
// reports that it needs more; the chunk must not change until then.
func (l *Lexer) Feed(p []byte) {
	l.src = p
	l.pos = 0
	l.nlAt = -1 // not looked for yet
}

// Offset is the input offset of the next unread byte.
func (l *Lexer) Offset() int64 { return l.offset }

// Idle reports whether nothing is held back: Plain may take a chunk.
func (l *Lexer) Idle() bool { return !l.active && len(l.partial) == 0 && len(l.pending) == 0 }

// Holding reports how many bytes are held back.
func (l *Lexer) Holding() int {
	n := len(l.partial) + len(l.pending)
	if l.active {
		n += len(l.hold)
	}
	return n
}

func (l *Lexer) maxTag() int {
	if l.maxTagBytes > 0 {
		return l.maxTagBytes
	}
	return DefaultMaxTag
}

// triggers marks the bytes that may start a marker.
var triggers = [256]bool{'<': true, '[': true, '`': true}

// nextTrigger returns the index of the first trigger in p at or after i,
// or len(p): eight bytes at a time, then a table look-up per byte.
func nextTrigger(p []byte, i int) int {
	for ; i+8 <= len(p); i += 8 {
		w := binary.LittleEndian.Uint64(p[i:])
		a, b, c := w^('<'*swar.Ones), w^('['*swar.Ones), w^('`'*swar.Ones)
		if ((a-swar.Ones)&^a|(b-swar.Ones)&^b|(c-swar.Ones)&^c)&swar.Highs != 0 { // swar.ZeroBytes of each, one mask: a byte of w is a trigger
			break
		}
	}
	for i < len(p) && !triggers[p[i]] {
		i++
	}
	return i
}

// Triggers returns the table of the bytes that may start a marker, for
// callers that scan for them (a copy: the lexer's own cannot change).
func Triggers() [256]bool { return triggers }

// Next returns the next token. ok is false when the chunk is used up and the
// lexer needs more input; with atEOF set, held-back bytes are resolved
// instead, and ok is false only when everything has been returned.
func (l *Lexer) Next(atEOF bool) (tok *Token, ok bool) {
	if l.rescan {
		return l.restart(atEOF)
	}
	if len(l.pending) > 0 {
		t := l.textToken(l.pending, l.offset-int64(len(l.pending)))
		l.pending = nil
		return t, true
	}
	if len(l.partial) > 0 {
		return l.finishPartial(atEOF)
	}
	if l.active {
		return l.continueMarker(atEOF)
	}
	if l.pos >= len(l.src) {
		return nil, false
	}
	start, i := l.pos, l.pos+1
	if triggers[l.src[start]] { // a trigger the prefilter rejects begins a run of text (prefilter.go)
		if i = l.rejected(start); i < 0 {
			l.startMarker()
			return l.continueMarker(atEOF)
		}
	}
	i = nextTrigger(l.src, i) // a run of text
	end := i
	if i == len(l.src) && !atEOF {
		end = CompleteUTF8(l.src[start:i]) + start
	}
	if end == start { // only an incomplete UTF-8 sequence: hold it
		l.partial = append(l.partial[:0], l.src[start:i]...)
		l.advance(i - start)
		return l.finishPartial(atEOF)
	}
	off := l.offset
	l.advance(end - start)
	if end < i {
		l.partial = append(l.partial[:0], l.src[end:i]...)
		l.advance(i - end)
	}
	return l.textRun(start, end, off), true
}

// textRun returns src[start:end] as a text token. The guard is told of it
// by a count where that is all it needs: the run holds no newline (they
// are looked for once a line, not once a token).
func (l *Lexer) textRun(start, end int, off int64) *Token {
	lines := l.guard != nil && l.guard.WatchesLines()
	if lines && l.nlAt < start {
		if i := bytes.IndexByte(l.src[start:], '\n'); i >= 0 {
			l.nlAt = start + i
		} else {
			l.nlAt = len(l.src)
		}
	}
	if l.guard == nil || (!lines || l.nlAt >= end) && l.guard.Count(end-start) {
		t := &l.tok
		if t.Kind != Text {
			*t = Token{}
		}
		t.Raw, t.Offset, t.Flags = l.src[start:end], off, 0
		l.remember(t.Raw)
		return t
	}
	return l.textToken(l.src[start:end], off)
}

func (l *Lexer) advance(n int) {
	l.pos += n
	l.offset += int64(n)
}

// Drain returns the bytes held back, in input order, and forgets them. It
// is for a caller that stops tokenizing (after a runaway).
func (l *Lexer) Drain() []byte {
	var b []byte
	switch {
	case len(l.pending) > 0:
		b, l.pending, l.rescan = l.pending, nil, false
	case len(l.partial) > 0:
		b, l.partial = l.partial, l.partial[len(l.partial):]
	case l.active:
		b, l.active = l.hold, false
	}
	return b
}

// Plain consumes p whole as one run of text when that needs no
// tokenizing: nothing is held back and p does not end inside a UTF-8
// sequence. The caller has checked that p holds no trigger byte. It reports
// whether it did; the caller then treats p as text.
func (l *Lexer) Plain(p []byte) bool {
	if !l.Idle() || len(p) == 0 || p[len(p)-1] >= utf8.RuneSelf {
		return false
	}
	l.Skip(p)
	return true
}

// Skip is Plain for a caller that has checked all of it: the lexer is
// Idle, p holds no trigger byte and does not end inside a UTF-8 sequence.
// It returns len(p), or, when the repetition guard fired inside p, the
// bytes up to that point: only those are consumed (see Fired).
func (l *Lexer) Skip(p []byte) int {
	n := len(p)
	if l.guard != nil {
		n = l.guard.Text(p, l.tail)
	}
	l.offset += int64(n)
	l.remember(p[:n])
	return n
}

// Advance is Skip for a caller that has told the guard of p itself
// (Guard().Count: the short paths' common case, kept small to inline).
func (l *Lexer) Advance(p []byte) {
	l.offset += int64(len(p))
	l.remember(p)
}

// Watch makes g see every byte the lexer returns from now on: text, and
// markers as markers.
func (l *Lexer) Watch(g *repeat.Guard) { l.guard = g }

// Guard returns the guard set by Watch, or nil.
func (l *Lexer) Guard() *repeat.Guard { return l.guard }

// Fired reports whether the repetition guard fired, and the input offset
// just after the unit that made it fire: the bytes of the token or skipped
// run that hold that offset are the loop's from there on.
func (l *Lexer) Fired() (bool, int64) {
	if l.guard == nil {
		return false, -1
	}
	return l.guard.Fired()
}

// finishPartial completes a UTF-8 sequence cut by a chunk boundary.
func (l *Lexer) finishPartial(atEOF bool) (*Token, bool) {
	for !utf8.FullRune(l.partial) && l.pos < len(l.src) {
		c := l.src[l.pos]
		if c < 0x80 || c >= 0xC0 { // not a continuation byte: the sequence is invalid
			break
		}
		l.partial = append(l.partial, c)
		l.advance(1)
	}
	if !utf8.FullRune(l.partial) && l.pos >= len(l.src) && !atEOF {
		return nil, false
	}
	t := l.textToken(l.partial, l.offset-int64(len(l.partial)))
	l.partial = l.partial[len(l.partial):]
	return t, true
}

// completeUTF8 returns the length of the longest prefix of b that does not
// end inside a UTF-8 sequence that later bytes could complete.
func CompleteUTF8(b []byte) int {
	n := len(b)
	for i := n - 1; i >= 0 && i >= n-3; i-- {
		c := b[i]
		if c < 0x80 {
			return n
		}
		if c >= 0xC0 { // a lead byte: is its sequence complete?
			if utf8.FullRune(b[i:]) {
				return n
			}
			return i
		}
	}
	return n
}

func (l *Lexer) textToken(b []byte, off int64) *Token {
	t := &l.tok
	if t.Kind != Text {
		*t = Token{} // a text token holds no other field: reset only after a marker
	}
	t.Raw, t.Offset, t.Flags = b, off, 0
	if l.guard != nil {
		l.guard.Text(b, l.tail)
	}
	l.remember(b)
	return t
}

// remember keeps the last bytes returned, for LineStart and the guard.
func (l *Lexer) remember(b []byte) {
	if len(b) < 4 {
		l.rememberShort(b)
		return
	}
	l.tail, l.ntail = binary.BigEndian.Uint32(b[len(b)-4:]), 4
}

func (l *Lexer) rememberShort(b []byte) {
	for _, c := range b {
		l.tail = l.tail<<8 | uint32(c)
	}
	l.ntail = uint8(min(int(l.ntail)+len(b), 4))
}

// atLineStart reports whether the bytes before the next one are a line
// start followed by at most three spaces.
func (l *Lexer) atLineStart() bool {
	for i := range int(l.ntail) {
		switch byte(l.tail >> (8 * i)) {
		case ' ':
			if i == 3 {
				return false // a fourth space
			}
		case '\n', '\r':
			return true
		default:
			return false
		}
	}
	return true // fewer bytes seen, all spaces: the stream start
}

func (l *Lexer) startMarker() {
	l.active = true
	l.hold = l.hold[:0]
	l.holdOff = l.offset
	l.rec.reset(l.block)
	l.rec.lineStart = l.atLineStart()
}

// continueMarker feeds the recognizer until it decides or the chunk ends.
func (l *Lexer) continueMarker(atEOF bool) (*Token, bool) {
	maxTag := l.maxTag()
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		v := l.rec.step(c)
		switch v {
		case more:
			l.hold = append(l.hold, c)
			l.advance(1)
			if len(l.hold) > maxTag {
				t := l.giveBack()
				t.Flags |= Overflow
				return t, true
			}
			continue
		case doneWith:
			l.hold = append(l.hold, c)
			l.advance(1)
			return l.emitMarker(len(l.hold)), true
		case doneBefore:
			return l.emitMarker(l.rec.cut(len(l.hold))), true
		case failWith:
			l.hold = append(l.hold, c)
			l.advance(1)
			return l.giveBack(), true
		case fail:
			return l.giveBack(), true
		case split:
			t := l.emitMarker(l.rec.cut(len(l.hold)))
			l.rescan = len(l.pending) > 0
			return t, true
		}
	}
	if !atEOF {
		return nil, false
	}
	if l.rec.acceptAtEOF() {
		return l.emitMarker(l.rec.cut(len(l.hold))), true
	}
	return l.giveBack(), true
}

// restart begins the next marker candidate with the bytes of a `<|sep|>`
// that was not one (see split). They are a prefix of a special token, so
// the recognizer takes each of them and asks for more: the next byte, not
// yet consumed, decides.
func (l *Lexer) restart(atEOF bool) (*Token, bool) {
	n := copy(l.hold, l.pending) // pending is the tail of hold: the last token is gone
	l.pending, l.rescan = nil, false
	l.startMarker()
	l.holdOff = l.offset - int64(n)
	for _, c := range l.hold[:n] {
		l.rec.step(c)
	}
	l.hold = l.hold[:n]
	return l.continueMarker(atEOF)
}

// giveBack returns the held bytes as text: they did not make a marker.
func (l *Lexer) giveBack() *Token {
	l.active = false
	return l.textToken(l.hold, l.holdOff)
}

// emitMarker builds the token from hold[:n]; hold[n:] (whitespace) follows as text.
func (l *Lexer) emitMarker(n int) *Token {
	l.active = false
	raw := l.hold[:n]
	if n < len(l.hold) {
		l.pending = l.hold[n:]
	}
	r := &l.rec
	t := &l.tok
	*t = Token{Raw: raw, Offset: l.holdOff, Flags: r.flags, Count: r.ticks}
	if r.lineStart {
		t.Flags |= LineStart
	}
	switch r.kind {
	case Backticks:
		t.Kind = Backticks
		if l.guard != nil {
			l.guard.Marker(raw, false, l.tail)
		}
		l.remember(raw)
		return t
	case Special:
		t.Kind = Special
	default:
		t.Kind = Tag
	}
	t.Name = raw[r.name.a:r.name.b]
	if r.ns.b > r.ns.a {
		t.NS = raw[r.ns.a:r.ns.b]
	}
	if r.value.b > r.value.a {
		t.Value = trimQuotes(raw[r.value.a:r.value.b])
	}
	l.attrs = l.attrs[:0]
	for _, a := range r.attrs[:r.nattrs] {
		if a.key.b > n || a.val.b > n {
			break
		}
		l.attrs = append(l.attrs, Attr{Key: raw[a.key.a:a.key.b], Val: raw[a.val.a:a.val.b]})
	}
	t.Attrs = l.attrs
	t.Marker, t.Flags = l.classify(t)
	if t.Marker == Unknown && t.Kind == Tag && len(t.Value) > 0 && len(t.Attrs) == 0 {
		l.uncollapse(t)
	}
	if t.Marker == Unknown && t.Kind == Tag && len(t.NS) > 0 && t.Flags&(DSML|Sentinel|XTML|HalfBar) == 0 {
		l.unsuffix(t)
	}
	if l.guard != nil {
		l.guard.Marker(raw, t.Marker != Unknown || t.Kind == Special && t.Flags&bracketToken == 0, l.tail)
	}
	l.remember(raw)
	return t
}

// classify looks the token's name up in the marker table.
func (l *Lexer) classify(t *Token) (Marker, Flags) {
	f := t.Flags
	var changed bool
	l.key, changed = foldName(l.key[:0], t.Name, t.Kind == Special && f&bracketToken != 0)
	table := tagNames
	switch {
	case t.Kind == Special && f&Sentinel != 0:
		table = sentinelNames
	case f&HalfBar != 0:
		table = halfBarNames
	case f&XTML != 0:
		table = xtmlNames
	case t.Kind == Special:
		table = specialNames
	}
	if !mayBeName(l.key) {
		return Unknown, f
	}
	e, ok := table[string(l.key)]
	if !ok {
		return Unknown, f
	}
	if e.upper {
		changed = !upperOf(t.Name, e.m.String())
	}
	if e.alias || changed {
		f |= NameVariant
	}
	return e.m, f
}

// uncollapse reads a tag whose name swallowed the name of its attribute
// (`<functionname="f">`, `<paramname="k">`: MiniCPM5 drops the space) as
// the tag with that attribute, a variant spelling. Other tags are left as
// they are.
func (l *Lexer) uncollapse(t *Token) {
	n := len(t.Name) - len("name")
	if n <= 0 || !equalFoldASCII(t.Name[n:], "name") {
		return
	}
	full := t.Name
	t.Name = full[:n]
	mk, f := l.classify(t)
	if mk == Unknown {
		t.Name = full
		return
	}
	l.attrs = append(l.attrs[:0], Attr{Key: full[n:], Val: t.Value})
	t.Attrs, t.Value = l.attrs, nil
	t.Marker, t.Flags = mk, f|spaceVariant
}

// unsuffix reads a tag whose namespace is a marker's name as that marker
// with a suffix (`<tool_calls:opensource>`, `</arg_key:6124c78e>`: Hunyuan's
// tokens carry one per checkpoint). Other tags are left as they are.
func (l *Lexer) unsuffix(t *Token) {
	t.Name, t.NS = t.NS, t.Name
	mk, f := l.classify(t)
	if mk == Unknown {
		t.Name, t.NS = t.NS, t.Name
		return
	}
	t.Marker, t.Flags = mk, f|Suffixed
}

// upperOf reports whether name is canon (lower case ASCII) in upper case.
func upperOf(name []byte, canon string) bool {
	if len(name) != len(canon) {
		return false
	}
	for i, c := range name {
		d := canon[i]
		if 'a' <= d && d <= 'z' {
			d -= 'a' - 'A'
		}
		if c != d {
			return false
		}
	}
	return true
}

// foldName writes the lookup key for name: width-folded, `▁` and `-` as
// `_`, lower case (upper case for bracket tokens). changed reports a fold
// other than `▁`, which is DeepSeek's canonical spelling of `_`.
func foldName(dst, name []byte, upper bool) (key []byte, changed bool) {
	for i := 0; i < len(name); {
		c := name[i]
		if c < utf8.RuneSelf {
			d := c
			switch {
			case c == '-':
				d = '_'
			case upper && 'a' <= c && c <= 'z':
				d -= 'a' - 'A'
			case !upper && 'A' <= c && c <= 'Z':
				d += 'a' - 'A'
			}
			changed = changed || d != c
			dst = append(dst, d)
			i++
			continue
		}
		r, size := utf8.DecodeRune(name[i:])
		i += size
		if r == '▁' {
			dst = append(dst, '_')
			continue
		}
		if f := width.LookupRune(r).Narrow(); f != 0 && f < utf8.RuneSelf {
			changed = true
			r = f
			if upper {
				r = unicode.ToUpper(r)
			} else {
				r = unicode.ToLower(r)
			}
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst, changed
}

// trimQuotes drops one pair of ASCII quotes around v (<parameter="city">).
func trimQuotes(v []byte) []byte {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

func equalFoldASCII(a []byte, s string) bool {
	if len(a) != len(s) {
		return false
	}
	for i := range a {
		x, y := a[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// EnterBlock sets the mode for markup inside a call block whose arguments
// are attributes: quoted attribute values may hold '<' and newlines
// (`args="{...}"`), and a marker may grow to max bytes.
func (l *Lexer) EnterBlock(max int) {
	l.block = true
	l.maxTagBytes = max
}

// LeaveBlock returns to the mode for text and other markup.
func (l *Lexer) LeaveBlock() {
	l.block = false
	l.maxTagBytes = 0
}

// InBlock reports whether the lexer is in the mode EnterBlock sets.
func (l *Lexer) InBlock() bool { return l.block }
