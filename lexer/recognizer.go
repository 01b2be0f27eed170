package lexer

import (
	"unicode"
	"unicode/utf8"
)

// The recognizer is a resumable automaton over the bytes of one marker
// candidate. It decides, byte by byte, whether the candidate is still a
// possible marker (more), is complete (doneWith, doneBefore) or is not one
// (fail, failWith). It never looks at a byte twice, but for the few bytes
// of a `<|sep|>` that turned out not to be one after an XTML tag (split):
// those start the next candidate afresh.

type verdict uint8

const (
	more       verdict = iota // consume the byte, keep going
	doneWith                  // consume the byte: the marker ends with it
	doneBefore                // do not consume the byte: the marker ended before it
	failWith                  // consume the byte, then give everything back as text
	fail                      // do not consume the byte; give back what was held
	// split: do not consume the byte; the marker ended at cutAt, and the
	// bytes held after it (a prefix of a special token) start the next
	// candidate.
	split
)

type rstate uint8

const (
	stInit          rstate = iota
	stLT                   // after '<'
	stLTSlash              // after '</'
	stLTSpace              // spaces after '<', before a bar
	stBar                  // bars before a name: `<｜`
	stBarName              // name between bars
	stNameBar              // a bar after a tag name: <name|
	stBarNameSp            // spaces after that name
	stBarEnd               // bars after the name: `｜`
	stBarEndSp             // spaces before '>'
	stAfterDSML            // after `<｜DSML｜`
	stName                 // tag name
	stSlash                // '/' before '>'
	stEqValue              // VALUE of <name=VALUE>
	stAttrs                // between attributes
	stAttrName             // attribute key
	stAttrAfterName        // spaces after a key
	stAttrEq               // after '='
	stEscQuote             // after '\' where a quote should start: name=\"x\"
	stQuoted               // inside a quoted value
	stUnquoted             // inside an unquoted value
	stAfterValue           // right after a closing quote
	stBracket              // [NAME
	stTicks                // a run of backticks

	// XTML (Kimi K3): after <|open|> or <|close|>, a tag name and
	// attributes up to <|sep|> make one tag.
	stXAfter    // right after <|open|> or <|close|>
	stXName     // the tag name
	stXAttrs    // spaces between attributes
	stXKey      // an attribute key
	stXEq       // after '='
	stXQuoted   // inside a quoted value
	stXAfterVal // right after a closing quote
	stXS0       // `<` of what may be the closing <|sep|>
	stXSSp      // spaces after that `<`
	stXSBar     // its opening bars
	stXSName    // its name, "sep"
	stXSNameSp  // spaces after the name
	stXSEnd     // its closing bars
	stXSEndSp   // spaces before '>'

	// A sentinel token <]NAME[>[ (MiniMax-M3), alone or before a tag.
	stSent    // its name, after `<]`
	stSentB   // after `[`: '>' follows
	stSentC   // after `[>`: '[' follows
	stSentEnd // complete: a '<' starts the tag it prefixes
)

// maxSepRunes bounds the runes of a <|sep|> candidate: what a split gives
// back to be scanned again stays short.
const maxSepRunes = 12

type span struct{ a, b int }

type attrSpan struct{ key, val span }

const maxAttrs = 4 // markers carry one or two; more only in prose tags, which are text

type recognizer struct {
	state     rstate
	kind      Kind
	block     bool
	lineStart bool
	flags     Flags

	n         int // bytes consumed so far
	name      span
	ns        span
	value     span
	lastColon int
	attrs     [maxAttrs]attrSpan
	nattrs    int
	cutAt     int // where the marker ends when a later byte ends it (-1: all)
	ticks     int
	mlen      int

	mb        [4]byte // a multi-byte rune in progress
	quote     rune    // closing quote of the value in progress ('"', '\'', '”', or '\\' for \")
	esc       bool
	backslash bool  // in a \"-quoted value: the last byte was '\'
	dsml      int8  // how much of the name between bars matches a prefix, "DSML" or "GCML" (-1: no match)
	pfx       uint8 // which of the two it matches

	// XTML: the name between bars while it may be `open` or `close`, and
	// the tag being read after it (small fields: a parser's idle size).
	xclose bool     // the tag is a closer (<|close|>)
	wordN  int8     // length of word; -1: not a short ASCII word
	word   [5]byte  // the name between bars, lower-cased
	xn     uint8    // runes of the <|sep|> candidate
	xk     uint8    // letters of "sep" matched
	xf0    Flags    // flags of the plain <|open|> token, should the tag fail
	xf     Flags    // flags of the tag before its <|sep|> candidate
	xcut   int32    // where the <|sep|> candidate starts
	xname  [2]int32 // the tag's name
}

func (r *recognizer) reset(block bool) {
	*r = recognizer{block: block, cutAt: -1, lastColon: -1}
}

func (r *recognizer) cut(n int) int {
	if r.cutAt >= 0 && r.cutAt < n {
		return r.cutAt
	}
	return n
}

// step feeds one byte. Non-ASCII bytes are gathered into runes first.
func (r *recognizer) step(c byte) verdict {
	if r.mlen == 0 && c < utf8.RuneSelf {
		v := r.onRune(rune(c), r.n)
		if v == more || v == doneWith || v == failWith {
			r.n++
		}
		return v
	}
	if r.mlen > 0 && (c < 0x80 || c >= 0xC0) {
		return fail // an invalid sequence: not part of any marker
	}
	r.mb[r.mlen] = c
	r.mlen++
	if !utf8.FullRune(r.mb[:r.mlen]) {
		r.n++
		return more
	}
	ru, size := utf8.DecodeRune(r.mb[:r.mlen])
	start := r.n - (r.mlen - 1)
	r.mlen = 0
	if ru == utf8.RuneError && size <= 1 {
		return failWith
	}
	v := r.onRune(ru, start)
	r.n++
	switch v {
	case fail:
		return failWith // a non-ASCII rune is never a trigger: it goes with the text
	case doneBefore:
		if r.cutAt < 0 || r.cutAt > start {
			r.cutAt = start
		}
		return doneWith
	}
	return v
}

func isSpace(c rune) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isBar(c rune) bool { return c == '|' || c == '｜' || c == '‖' }

// BarAt returns the length of the bar at b[i] in any spelling the
// recognizer reads as one (isBar), or 0; a bar cut short is none.
func BarAt(b []byte, i int) int {
	if c := b[i]; c < utf8.RuneSelf {
		if c == '|' {
			return 1
		}
		return 0
	}
	if r, n := utf8.DecodeRune(b[i:]); isBar(r) {
		return n
	}
	return 0
}

func isNameStart(c rune) bool {
	if c < utf8.RuneSelf {
		return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
	}
	return unicode.IsLetter(c)
}

func isNameChar(c rune) bool {
	if c < utf8.RuneSelf {
		return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '_' || c == '-' || c == '.' || c == ':'
	}
	return c == '▁' || unicode.IsLetter(c) || unicode.IsDigit(c)
}

func (r *recognizer) noteBar(c rune, run int) {
	switch c {
	case '|':
		r.flags |= ASCIIBar
	case '｜':
		r.flags |= wideBar
	default:
		r.flags |= barVariant
	}
	if run > 0 {
		r.flags |= barVariant
	}
}

// onRune advances the automaton by one rune starting at offset pos.
func (r *recognizer) onRune(c rune, pos int) verdict {
	end := pos + utf8.RuneLen(c)
	switch r.state {
	case stInit:
		switch c {
		case '<':
			r.state = stLT
		case '[':
			r.state, r.kind, r.name = stBracket, Special, span{end, end}
		case '`':
			r.state, r.kind, r.ticks = stTicks, Backticks, 1
		}
		return more

	case stTicks:
		if c == '`' {
			r.ticks++
			return more
		}
		return doneBefore

	case stBracket:
		switch {
		case c == '/' && pos == r.name.a && r.flags&Closing == 0: // [/NAME]
			r.flags |= Closing
			r.name = span{end, end}
			return more
		case 'A' <= c && c <= 'Z' || c == '_' || pos > r.name.a && '0' <= c && c <= '9':
			if pos-r.name.a >= MaxNameLen {
				return fail
			}
			r.name.b = end
			return more
		case c == ']' && pos > r.name.a:
			r.flags |= bracketToken
			return doneWith
		}
		return fail

	case stLT, stLTSlash, stLTSpace:
		switch {
		case c == '/' && r.state != stLTSlash:
			r.flags |= Closing
			r.state = stLTSlash
			return more
		case c == ' ':
			r.flags |= spaceVariant
			if r.state == stLT {
				r.state = stLTSpace
			}
			return more
		case isBar(c):
			r.noteBar(c, 0)
			r.state = stBar
			return more
		case isNameStart(c) && r.state != stLTSpace:
			r.name = span{pos, end}
			r.state = stName
			r.matchWord(c)
			return more
		case c == ']' && r.state == stLT && r.flags&Sentinel == 0:
			r.name = span{end, end}
			r.state = stSent
			return more
		}
		return fail

	case stSent, stSentB, stSentC, stSentEnd:
		return r.sentinel(c, pos, end)

	case stBar:
		switch {
		case isBar(c):
			r.noteBar(c, 1)
			return more
		case c == ' ':
			r.flags |= barVariant
			return more
		case isNameStart(c):
			r.name = span{pos, end}
			r.state = stBarName
			r.matchDSML(c)
			r.matchWord(c)
			return more
		}
		return fail

	case stBarName, stBarNameSp:
		switch {
		case isNameChar(c) && r.state == stBarName:
			if pos-r.name.a >= MaxNameLen {
				return fail
			}
			r.name.b = end
			r.matchDSML(c)
			r.matchWord(c)
			return more
		case c == ' ':
			r.flags |= barVariant
			r.state = stBarNameSp
			return more
		case isBar(c):
			r.state = stBarEnd
			return more
		case c == '>' && r.state == stBarName && int(r.dsml) != len("DSML"): // <|name>: a half-bar opener (Gemma)
			r.flags |= HalfBar
			return doneWith
		}
		return fail

	case stNameBar: // <name|>: a half-bar closer (Gemma)
		switch {
		case c == '>' && r.flags&Closing == 0:
			r.flags |= HalfBar | Closing
			return doneWith
		case isNameStart(c) && r.isWord("ifm") && r.ns.b == r.ns.a: // <ifm|tool_call>: a prefix (K2 Horizon)
			r.ns = r.name
			r.name = span{pos, end}
			r.state = stName
			return more
		}
		return fail

	case stBarEnd, stBarEndSp:
		switch {
		case isBar(c) && r.state == stBarEnd:
			r.flags |= barVariant
			return more
		case c == '>':
			r.kind = Special
			if open, close := r.isWord("open"), r.isWord("close"); (open || close) && r.flags&Closing == 0 {
				// <|open|>: the start of an XTML tag, or a token alone.
				r.xclose = close
				r.xf0 = r.flags
				r.cutAt = end
				r.state = stXAfter
				return more
			}
			return doneWith
		case c == ' ':
			r.flags |= barVariant
			r.state = stBarEndSp
			return more
		}
		if int(r.dsml) != len("DSML") {
			return fail
		}
		return r.afterDSML(c, pos, end)

	case stAfterDSML:
		return r.afterDSML(c, pos, end)

	case stName:
		switch {
		case isNameChar(c):
			if pos-r.name.a >= MaxNameLen {
				return fail
			}
			if c == ':' {
				r.lastColon = pos
			}
			r.name.b = end
			r.matchWord(c)
			return more
		}
		r.endName()
		switch {
		case c == '>':
			return doneWith
		case c == '|' && r.ns.b == r.ns.a:
			r.state = stNameBar
			return more
		case c == '/':
			r.state = stSlash
			return more
		case c == '=':
			r.value = span{end, end}
			r.state = stEqValue
			return more
		case isSpace(c):
			r.cutAt = pos
			r.state = stAttrs
			return more
		case c == '<':
			r.flags |= Unclosed
			return doneBefore
		}
		return fail

	case stSlash:
		switch {
		case c == '>':
			r.flags |= SelfClosing
			return doneWith
		case c == ' ':
			return more
		case c == '<':
			r.flags |= Unclosed | SelfClosing
			return doneBefore
		}
		return fail

	case stEqValue:
		switch c {
		case '>':
			return doneWith
		case '<', '\n':
			r.flags |= Unclosed
			r.cutAt = pos
			return doneBefore
		}
		r.value.b = end
		return more

	case stXAfter, stXName, stXAttrs, stXKey, stXEq, stXQuoted, stXAfterVal:
		return r.xtml(c, pos, end)

	case stXS0, stXSSp, stXSBar, stXSName, stXSNameSp, stXSEnd, stXSEndSp:
		return r.xsep(c)

	case stAttrs:
		switch {
		case isSpace(c):
			return more
		case c == '>':
			r.flags |= spaceVariant
			return doneWith
		case c == '/':
			r.state = stSlash
			return more
		case c == '<':
			r.flags |= Unclosed
			return doneBefore
		case isNameStart(c) && r.flags&Closing == 0 && r.nattrs < maxAttrs:
			r.attrs[r.nattrs] = attrSpan{key: span{pos, end}}
			r.nattrs++
			r.cutAt = -1
			r.state = stAttrName
			return more
		}
		if r.cutAt >= 0 { // `<tool_call\n{...`: an opener without its '>'
			r.flags |= Unclosed
			return doneBefore
		}
		return fail

	case stAttrName, stAttrAfterName:
		a := &r.attrs[r.nattrs-1]
		switch {
		case isNameChar(c) && r.state == stAttrName:
			a.key.b = end
			return more
		case isSpace(c):
			r.state = stAttrAfterName
			return more
		case c == '=':
			a.val = span{end, end}
			r.state = stAttrEq
			return more
		case c == '>':
			return doneWith
		case c == '/':
			r.state = stSlash
			return more
		case c == '<':
			r.flags |= Unclosed
			r.cutAt = pos
			return doneBefore
		}
		return fail

	case stAttrEq:
		a := &r.attrs[r.nattrs-1]
		switch c {
		case ' ':
			r.flags |= spaceVariant
			return more
		case '"':
			r.quote = '"'
		case '\'':
			r.quote = '\''
			r.flags |= quoteVariant
		case '“', '”', '„':
			r.quote = '”'
			r.flags |= quoteVariant
		case '\\':
			r.flags |= quoteVariant
			r.state = stEscQuote
			return more
		case '>', '<', '\n':
			return fail
		default:
			r.flags |= quoteVariant
			a.val = span{pos, end}
			r.state = stUnquoted
			return more
		}
		a.val = span{end, end}
		r.state = stQuoted
		return more

	case stEscQuote:
		if c != '"' {
			return fail
		}
		r.quote = '\\'
		r.attrs[r.nattrs-1].val = span{end, end}
		r.state = stQuoted
		return more

	case stQuoted:
		a := &r.attrs[r.nattrs-1]
		if r.esc {
			r.esc = false
			a.val.b = end
			return more
		}
		if r.quote == '\\' {
			if r.backslash && c == '"' {
				r.backslash = false
				r.state = stAfterValue
				return more
			}
			r.backslash = c == '\\'
			if !r.backslash {
				a.val.b = end
			}
			return more
		}
		switch {
		case c == r.quote || r.quote == '”' && (c == '“' || c == '"'):
			r.state = stAfterValue
			return more
		case c == '\\' && r.quote == '"':
			r.esc = true
		case (c == '\n' || c == '<') && !r.block:
			return fail
		}
		a.val.b = end
		return more

	case stUnquoted:
		a := &r.attrs[r.nattrs-1]
		switch {
		case isSpace(c):
			r.cutAt = pos
			r.state = stAttrs
			return more
		case c == '>':
			return doneWith
		case c == '<':
			r.flags |= Unclosed
			return doneBefore
		case c == '"' || c == '\'':
			return fail
		}
		a.val.b = end
		return more

	case stAfterValue:
		switch {
		case isSpace(c):
			r.cutAt = pos
			r.state = stAttrs
			return more
		case c == '>':
			return doneWith
		case c == '/':
			r.state = stSlash
			return more
		}
		r.flags |= Unclosed
		r.cutAt = pos
		return doneBefore
	}
	return fail
}

// afterDSML continues after the `<｜DSML｜` prefix: an optional slash, then
// the tag name.
func (r *recognizer) afterDSML(c rune, pos, end int) verdict {
	if r.state != stAfterDSML {
		r.ns = r.name
		r.flags |= DSML
		r.kind = Tag
		r.state = stAfterDSML
	}
	switch {
	case c == '/':
		if r.flags&Closing == 0 {
			r.flags |= Closing | LateSlash
		}
		return more
	case c == ' ':
		r.flags |= spaceVariant
		return more
	case isBar(c):
		r.flags |= barVariant
		return more
	case isNameStart(c):
		r.name = span{pos, end}
		r.state = stName
		return more
	}
	return fail
}

// endName splits a namespace prefix off the name (`antml:invoke`).
func (r *recognizer) endName() {
	if r.lastColon > r.name.a && r.lastColon+1 < r.name.b && r.flags&DSML == 0 {
		r.ns = span{r.name.a, r.lastColon}
		r.name.a = r.lastColon + 1
	}
	r.lastColon = -1
}

// xtml reads an XTML tag after <|open|> or <|close|>: optional spaces, a
// name, attributes key="value", then the `<` of its <|sep|>. Anything else
// leaves <|open|> a token alone, the rest text.
func (r *recognizer) xtml(c rune, pos, end int) verdict {
	switch r.state {
	case stXAfter:
		switch {
		case c == ' ':
			r.flags |= spaceVariant
			return more
		case isNameStart(c):
			r.xname = [2]int32{int32(pos), int32(end)}
			r.state = stXName
			return more
		}
	case stXName:
		switch {
		case isNameChar(c) && pos-int(r.xname[0]) < MaxNameLen:
			r.xname[1] = int32(end)
			return more
		case isSpace(c):
			r.state = stXAttrs
			return more
		case c == '<':
			return r.sepStart(pos)
		}
	case stXAttrs, stXAfterVal:
		switch {
		case isSpace(c):
			r.state = stXAttrs
			return more
		case c == '<':
			if r.state == stXAttrs {
				r.flags |= spaceVariant // <|open|>tools <|sep|>
			}
			return r.sepStart(pos)
		case isNameStart(c) && r.nattrs < maxAttrs:
			r.attrs[r.nattrs] = attrSpan{key: span{pos, end}}
			r.nattrs++
			r.state = stXKey
			return more
		}
	case stXKey:
		a := &r.attrs[r.nattrs-1]
		switch {
		case isNameChar(c):
			a.key.b = end
			return more
		case c == '=':
			r.state = stXEq
			return more
		}
	case stXEq:
		if c == '"' {
			r.attrs[r.nattrs-1].val = span{end, end}
			r.state = stXQuoted
			return more
		}
	case stXQuoted:
		switch c {
		case '"':
			r.state = stXAfterVal
			return more
		case '<', '\n':
		default:
			r.attrs[r.nattrs-1].val.b = end
			return more
		}
	}
	r.flags = r.xf0 // not a tag: <|open|> alone
	return doneBefore
}

// sepStart begins the <|sep|> candidate that ends an XTML tag at pos.
func (r *recognizer) sepStart(pos int) verdict {
	r.xcut, r.xf, r.xn, r.xk = int32(pos), r.flags, 0, 0
	r.state = stXS0
	return more
}

// xsep follows a <|sep|> candidate. It takes only bytes that a special
// token <|sep|> takes in the same states (stLT to stBarEndSp), so that on
// a split the bytes held after the tag are a prefix of a special token.
func (r *recognizer) xsep(c rune) verdict {
	if r.xn++; r.xn > maxSepRunes {
		return r.xsplit()
	}
	switch r.state {
	case stXS0, stXSSp:
		switch {
		case c == ' ':
			r.flags |= spaceVariant
			r.state = stXSSp
			return more
		case isBar(c):
			r.noteBar(c, 0)
			r.state = stXSBar
			return more
		}
	case stXSBar:
		switch {
		case isBar(c):
			r.noteBar(c, 1)
			return more
		case c == ' ':
			r.flags |= barVariant
			return more
		case c == 's' || c == 'S':
			r.xk = 1
			r.state = stXSName
			return more
		}
	case stXSName:
		switch {
		case int(r.xk) < len("sep"):
			if c < utf8.RuneSelf && lower(byte(c)) == "sep"[r.xk] {
				r.xk++
				return more
			}
		case c == ' ':
			r.flags |= barVariant
			r.state = stXSNameSp
			return more
		case isBar(c):
			r.state = stXSEnd
			return more
		}
	case stXSNameSp:
		switch {
		case c == ' ':
			return more
		case isBar(c):
			r.state = stXSEnd
			return more
		}
	case stXSEnd, stXSEndSp:
		switch {
		case isBar(c) && r.state == stXSEnd:
			r.flags |= barVariant
			return more
		case c == '>':
			r.xpromote()
			r.cutAt = -1
			return doneWith
		case c == ' ':
			r.flags |= barVariant
			r.state = stXSEndSp
			return more
		}
	}
	return r.xsplit()
}

// xsplit ends the XTML tag before its <|sep|> candidate, which was not
// one: the tag lacks its <|sep|> (Unclosed), and what follows is read again.
func (r *recognizer) xsplit() verdict {
	r.flags = r.xf | Unclosed
	r.xpromote()
	r.cutAt = int(r.xcut)
	return split
}

// xpromote makes the candidate the XTML tag it has read.
func (r *recognizer) xpromote() {
	r.kind = Tag
	r.name = span{int(r.xname[0]), int(r.xname[1])}
	r.flags |= XTML
	if r.xclose {
		r.flags |= Closing
	}
}

// matchWord keeps the name between bars while it is a short ASCII word.
func (r *recognizer) matchWord(c rune) {
	if r.wordN < 0 || int(r.wordN) == len(r.word) || c >= utf8.RuneSelf {
		r.wordN = -1
		return
	}
	r.word[r.wordN] = lower(byte(c))
	r.wordN++
}

func (r *recognizer) isWord(w string) bool {
	return int(r.wordN) == len(w) && string(r.word[:r.wordN]) == w
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// prefixes are the names between bars that prefix a tag: DeepSeek's DSML
// and GigaChat 3.5's GCML (both four letters).
var prefixes = [2]string{"DSML", "GCML"}

// matchDSML follows whether the name between bars spells DSML or GCML
// (any case).
func (r *recognizer) matchDSML(c rune) {
	if r.dsml == 0 && unicode.ToUpper(c) == 'G' {
		r.pfx = 1
	}
	if r.dsml < 0 || int(r.dsml) >= len("DSML") || unicode.ToUpper(c) != rune(prefixes[r.pfx][r.dsml]) {
		r.dsml = -1
		return
	}
	r.dsml++
}

// maxSentinel bounds the name of a sentinel token.
const maxSentinel = 16

// sentinel reads a sentinel token <]NAME[>[ after its `<]`. Before a '<'
// it prefixes the tag that follows, which the candidate goes on to read;
// otherwise it is a token alone.
func (r *recognizer) sentinel(c rune, pos, end int) verdict {
	switch r.state {
	case stSent:
		switch {
		case c == '[' && r.name.b > r.name.a:
			r.state = stSentB
			return more
		case c < utf8.RuneSelf && isNameChar(c) && c != ':' && r.name.b-r.name.a < maxSentinel:
			r.name.b = end
			return more
		}
	case stSentB:
		if c == '>' {
			r.state = stSentC
			return more
		}
	case stSentC:
		if c == '[' {
			r.state = stSentEnd
			return more
		}
	case stSentEnd:
		r.flags |= Sentinel
		if c == '<' {
			r.ns = r.name
			r.state = stLT
			return more
		}
		r.kind = Special
		return doneBefore
	}
	return fail
}

// acceptAtEOF reports whether a candidate cut off by the end of input is
// still a marker (a tag without its '>'), and sets where it ends.
func (r *recognizer) acceptAtEOF() bool {
	switch r.state {
	case stTicks:
		return true
	case stSentEnd:
		r.flags |= Sentinel
		r.kind = Special
		return true
	case stName:
		r.endName()
		r.flags |= Unclosed
		return r.flags&Closing != 0
	case stAttrs, stAfterValue, stSlash:
		r.flags |= Unclosed
		return true
	case stEqValue:
		r.flags |= Unclosed
		return r.value.b > r.value.a
	case stXAfter, stXKey, stXEq, stXQuoted:
		r.flags = r.xf0 // <|open|> alone, cut at cutAt
		return true
	case stXName, stXAttrs, stXAfterVal: // an XTML tag cut before its <|sep|>
		r.flags |= Unclosed
		r.xpromote()
		r.cutAt = -1
		return true
	case stXS0, stXSSp, stXSBar, stXSName, stXSNameSp, stXSEnd, stXSEndSp:
		r.xsplit() // the candidate's bytes follow as text
		return true
	}
	return false
}
