package fsm

import (
	"bytes"

	"github.com/toolsieve/toolsieve/lexer"
)

// A server that ends the prompt with `<|start|>assistant` leaves the
// model's first message header without its <|start|> token: Muse Glimmer's
// output begins ` to=self<|message|>` (its reasoning) or ` to=NAME<|message|>`
// (a call). So, while harmony is on, the text at the very start of the
// stream is held while it may still be such a header (spaces, `to=`, a
// recipient's name; at most maxHeader bytes); a <|message|> right after it
// makes it the header of a harmony message, anything else gives it back as
// text. Only the stream's start is looked at: later headers carry their
// <|start|>. A machine starts in this hold (wlHeader, nothing held yet)
// when harmony is on.

// leadPhase is how much of `to=` the held bytes after their spaces hold
// (3: all of it, a name may follow).
func leadPhase(held []byte) int {
	rest := bytes.TrimLeft(held, " \t")
	return min(len(rest), 3)
}

// textLead holds more of the stream's start while it fits a header.
func (m *Machine) textLead(b []byte) int {
	phase := leadPhase(m.held)
	i := 0
	for ; i < len(b) && len(m.held)+i < maxHeader; i++ {
		c := b[i]
		switch {
		case phase == 0 && (c == ' ' || c == '\t'):
		case phase < 3 && c == "to="[phase]:
			phase++
		case phase == 3 && (isWordByte(c) || '0' <= c && c <= '9' || c == '.' || c == '-'):
		default:
			m.held = append(m.held, b[:i]...)
			m.releaseLead()
			return i
		}
	}
	m.held = append(m.held, b[:i]...)
	if i < len(b) { // too long for a header
		m.releaseLead()
	}
	return i
}

// releaseLead gives the held start back to the text level, which reads it
// as it would have without the hold (it may begin a word line). It happens
// once a stream at most.
func (m *Machine) releaseLead() {
	held := bytes.Clone(m.held)
	m.wl = wlNone
	m.held = m.held[:0]
	off := m.textOff
	m.textOff = m.heldOff
	m.text(held)
	m.textOff = off
}

// leadHeader takes a token that follows the held start of the stream: a
// <|message|> after `to=NAME` makes the two a harmony message's header. It
// reports whether it did.
func (m *Machine) leadHeader(t *lexer.Token) bool {
	s, _ := lookup(harmonyDialect)
	if t.Marker != lexer.HarmonyMessage || leadPhase(m.held) < 3 || m.code != codeNone {
		return false
	}
	m.wl = wlNone
	m.buf = append(append(m.buf[:0], m.held...), t.Raw...)
	m.bufOff = m.heldOff
	m.names = m.names[:0]
	m.seg = segment{}
	m.blk = block{cands: specSet(s), spec: s, implicit: true, open: infoOf(t)}
	m.lv = lvBlock
	m.openCall(t, s, 0)
	if m.lv != lvCall {
		return true
	}
	m.call.start = 0 // the header holds the held bytes
	m.call.hdr.sep = true
	m.harmonyMessage(len(m.buf) - len(t.Raw))
	return true
}
