package fsm

import (
	"math"
	"math/bits"

	"github.com/toolsieve/toolsieve/lexer"
)

// Text openers that are no word: symbol openers. Functionary v3.2 writes
// `>>>NAME\n{json}` (the recipient line, then the arguments; `>>>all\n`
// heads the answer's text), RWKV a label line and a fenced JSON call
// object (`**Tool Call:**\n` + "```json\n{...}\n```"). Such an opener counts
// wherever it stands (no word boundary); a prefix of it that ends the text
// is held like a word opener's. What follows the opener is the dialect's:
// a name line (Spec.nameLine), or a code fence (Spec.fenceBody) that the
// next token opens.

// isSymbolOpener reports whether a text opener starts with a byte that is
// no word byte (`>>>`), unlike `functools[`, '{' and '['.
func isSymbolOpener(text string) bool {
	c := text[0]
	return !isIdentByte(c) && c != '{' && c != '['
}

// bitsIndex is the index of the lowest set bit of s.
func bitsIndex(s opSet) int { return bits.TrailingZeros32(uint32(s)) }

// symbolTail returns the start of a proper prefix of a symbol opener of
// ops that ends b (`>>` of `>>>`), or -1.
func symbolTail(b []byte, ops opSet) int {
	best := -1
	if len(b) == 0 {
		return best
	}
	last := b[len(b)-1]
	for _, k := range pt.syms {
		t := pt.ops[k].text
		if !ops.has(k) {
			continue
		}
		for n := min(len(t)-1, len(b)); n > 0; n-- {
			if t[n-1] == last && string(b[len(b)-n:]) == t[:n] { // the last byte first: most tokens end in none
				if j := len(b) - n; best < 0 || j < best {
					best = j
				}
				break
			}
		}
	}
	return best
}

// symbolAfter sets what the probe reads after the symbol opener of s.
func (p *probe) symbolAfter(s *Spec) {
	p.spec = s
	switch {
	case s.nameLine:
		p.state, p.nval = pName, 0
	case s.fenceBody:
		p.state = pFence
	}
}

// nameLine steps a name line: the name (a tool's name, or `all`), its
// line's end, whitespace, then the '{' of the arguments, where the probe
// has read the call's name.
func (p *probe) nameLine(c byte) probeVerdict {
	if p.state == pName {
		switch {
		case isIdentByte(c) || p.nval > 0 && (c == '.' || c == '-'):
			if p.nval == maxProbeVal {
				return pvNot
			}
			p.val[p.nval] = c
			p.nval++
		case c == '\r' && p.nval > 0:
		case c == '\n' && p.nval > 0:
			if string(p.val[:p.nval]) == "all" {
				return pvFrame
			}
			p.state = pNameEnd
		default:
			return pvNot
		}
		return pvMore
	}
	switch {
	case isSpace(c):
		return pvMore
	case c == '{':
		p.body = p.seen - 1
		return pvName
	}
	return pvNot
}

// probeFrame handles held bytes that are a dialect's framing: discarded
// when the dialect is on, else text.
func (m *Machine) probeFrame() {
	if s := m.probe.spec; s != nil && m.ix.on&specSet(s) != 0 {
		m.flushDiscard(len(m.buf), DiscardStrayToken)
		m.toText()
		m.atLine = true // the framing ended its line
		return
	}
	m.probeText()
}

// startsOutput starts a name-line probe at the first byte of the output
// when a dialect that writes one is on: its opener stood at the end of
// the prompt (functionary_v32's generation prompt ends with `>>>`). It
// reports whether it did.
func (m *Machine) startsOutput(b []byte) bool {
	s := m.opt.nameLine()
	m.fresh = false
	if s == nil || !mayNameLine(b) || m.code != codeNone {
		return false
	}
	m.startProbe(m.textOff, true)
	m.probe.cands = specSet(s)
	m.probe.symbolAfter(s)
	m.probe.output = true
	return true
}

// mayNameLine reports whether b, the output's first bytes, may start a
// name line, as far as b shows: a name, then the end of its line.
func mayNameLine(b []byte) bool {
	i := 0
	for i < len(b) && (isIdentByte(b[i]) || i > 0 && (b[i] == '.' || b[i] == '-')) {
		i++
	}
	if i < len(b) && b[i] == '\r' {
		i++
	}
	return i > 0 && (i == len(b) || b[i] == '\n')
}

// replayOutput gives the output's first bytes, held by a name-line probe
// (buf), and then the start of b back to the text level as if they had not
// been held: they may start something else there (a line call, a word
// line), which the bytes after them may show. It returns the bytes of b
// it took.
func (m *Machine) replayOutput(b []byte) int {
	b = b[:min(len(b), maxProbe)]
	held := append(append(make([]byte, 0, len(m.buf)+len(b)), m.buf...), b...)
	off := m.bufOff
	m.buf = m.buf[:0]
	m.lv = lvText
	m.atLine = true
	m.prev = 0 // the output's start: no byte before it
	textOff := m.textOff
	m.textOff = off
	m.text(held)
	m.textOff = textOff + int64(len(b))
	return len(b)
}

// lineStartAt reports whether b[i] starts a line.
func (m *Machine) lineStartAt(b []byte, i int) bool {
	if i > 0 {
		return b[i-1] == '\n'
	}
	return len(m.buf) > 0 && m.buf[len(m.buf)-1] == '\n'
}

// fenceOpens opens the unit of a label opener (rwkv's `**Tool Call:**`)
// at the code fence t that follows it, and reports whether it did. The
// label and the fence are the unit's markup; its JSON call object is the
// fence's body, and the closing fence ends the unit (fenceCloses).
func (m *Machine) fenceOpens(t *lexer.Token) bool {
	p := m.probe
	if p.state != pFence || t.Kind != lexer.Backticks || t.Count < 3 || p.spec == nil {
		return false
	}
	s := p.spec
	m.blk = block{cands: specSet(s), spec: s, open: infoOf(t)}
	m.call = call{loose: -1}
	m.lv = lvBlock
	m.ticks = int32(min(t.Count, math.MaxInt32))
	if !m.add(t.Raw) {
		return true
	}
	m.fenceIn(t)
	return true
}

// fenceCloses ends a unit whose body is a code fence at its closing fence
// t (its bytes end m.buf), and reports whether it did.
func (m *Machine) fenceCloses(t *lexer.Token) bool {
	if m.blk.spec == nil || !m.blk.spec.fenceBody || t.Kind != lexer.Backticks || t.Count < int(m.ticks) {
		return false
	}
	m.openers = 0
	if m.lv == lvCall {
		m.completeCall(len(m.buf), 0)
	}
	if m.lv == lvBlock {
		m.blk.fenced = false // closed: what is left of the unit is not code
		m.endBlock(len(m.buf))
	}
	return true
}

// fenceText puts the text level in the fence of a fenced unit that was
// no call after all: its closing fence closes code, as it would have
// without the unit.
func (m *Machine) fenceText() {
	if m.blk.spec != nil && m.blk.spec.fenceBody && m.blk.fenced {
		m.code = codeFence
		m.fence.open()
		m.fence.phase = fBody
	}
}
