package lexer

import (
	"slices"
	"unicode/utf8"
)

// Bare reads one tag written without its '<' (`invoke name="x">`,
// `｜DSML｜function_calls>`), byte by byte, with the recognizer that reads
// tags: models drop the angle brackets of whole blocks of markup. It knows
// only the shape; the caller decides in what context such text may be a
// tag at all (the fsm package: a line of its own in text, loose text
// inside markup). A tag must start with an ASCII letter, '_' or a bar.
// The zero value must be Reset before use.
type Bare struct {
	l     Lexer // the recognizer, and the token built at the end
	attrs bool  // the tag may carry attributes
	first byte  // the first byte fed
	n     int   // bytes fed
	lost  bool  // the '<' and, unless the first byte is one, the first bar were lost
}

// BareVerdict is what one byte tells a Bare.
type BareVerdict uint8

// Bare verdicts.
const (
	BareMore BareVerdict = iota // the byte is part of a tag that may go on
	BareDone                    // the byte is the '>' that ends the tag
	BareFail                    // the byte cannot continue a tag: no tag
)

// Reset starts a new tag; attrs says whether it may carry attributes or
// a =VALUE (a block opener carries none).
func (b *Bare) Reset(attrs bool) {
	b.l.rec.reset(false)
	b.l.rec.state = stLT // as if after its '<'
	b.attrs, b.first, b.n, b.lost = attrs, 0, 0, false
}

// ResetBarLost starts a tag whose '<' was lost, and its first bar too
// unless the first byte fed is a bar (then as Reset): a DSML-prefixed
// marker written as a line of its own (`DSML | invoke name="x"`, the fsm
// package). Only a token that carries the DSML flag is such a marker: the
// caller checks it.
func (b *Bare) ResetBarLost() {
	b.Reset(true)
	b.lost = true
}

// Step feeds the next byte.
func (b *Bare) Step(c byte) BareVerdict {
	if b.n == 0 {
		b.first = c
		if !(c == '_' || c == '|' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= utf8.RuneSelf) {
			return BareFail
		}
		if b.lost && c != '|' && c < utf8.RuneSelf {
			b.l.rec.state = stBar // as if after `<｜`
		}
	}
	b.n++
	r := &b.l.rec
	switch r.step(c) {
	case more:
	case doneWith:
		if c == '>' && r.cutAt < 0 {
			return BareDone
		}
		return BareFail
	default:
		return BareFail
	}
	switch r.state {
	case stName:
		if b.first >= utf8.RuneSelf && r.name.a == 0 {
			return BareFail // a word of another script, not a bar
		}
	case stLT, stLTSpace, stBar, stBarName, stBarNameSp, stBarEnd, stBarEndSp, stAfterDSML:
	default:
		if !b.attrs {
			return BareFail
		}
	}
	return BareMore
}

// Token returns the tag read, raw being the bytes fed (the first through
// the '>' of BareDone). It is valid until the next Reset or Token.
func (b *Bare) Token(raw []byte) *Token {
	b.l.hold = raw
	t := b.l.emitMarker(len(raw))
	b.l.hold, b.l.pending = nil, nil
	return t
}

// InName reports whether the last byte fed was part of the tag's name.
func (b *Bare) InName() bool { return b.l.rec.state == stName }

// TagNames lists the lower-case tag names that stand for marker m, its
// aliases included, as the lexer looks them up (`-` folded to `_`).
func TagNames(m Marker) []string {
	var out []string
	for name, e := range tagNames {
		if e.m == m {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
