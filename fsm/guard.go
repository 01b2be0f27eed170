package fsm

import "github.com/toolsieve/toolsieve/internal/repeat"

// The repetition guard (internal/repeat) sees every byte the lexer returns,
// in every state, as marker tokens and pieces of text, and fires when the
// stream's tail is one unit repeated: a loop of any shape. The machine asks
// it after each token and each run of bytes a short path passed by the
// lexer, and stops at the end of the unit that made it fire (repetition):
// where that is depends only on the input, so the text before the loop is
// the same however the input was cut. While the tail is a whole repetition
// of a unit holding markup, completed calls wait with the calls held as a
// possible loop (loops.go), and text does not release them.

// startGuard makes the guard, at the first Write: an idle parser stays
// small. Until then the short paths are off (m.plain).
func (m *Machine) startGuard() {
	r := &m.opt.Runaway
	g := repeat.Off()
	if !r.NoGuard {
		g = repeat.New(repeat.Limits{Markup: r.UnitRepeats, Lines: r.LineRepeats, Unit: r.MaxUnit})
	}
	m.lex.Watch(g)
	m.loop.rep = g
}

// watchLines tells the guard whether it watches the lines of the bytes the
// lexer returns next: not in an argument's value or a JSON body (a file
// written into a call may hold many equal lines, and a long value costs no
// look for line ends).
func (m *Machine) watchLines() {
	if g := m.lex.Guard(); g != nil {
		g.InText(m.lv != lvValue && m.lv != lvJSON)
	}
}

// repeatsCall reports whether call c, just completed, repeats the markup of
// one before it (counters folded): it may belong to a loop.
func (m *Machine) repeatsCall(c *Call) bool {
	g := m.lex.Guard()
	return g != nil && g.Repeats(c.Offset)
}

// guardFired reports whether the guard fired in the bytes handled so far
// and the machine has not stopped for it yet.
func (m *Machine) guardFired() bool {
	fired, _ := m.lex.Fired()
	return fired && m.lv != lvStopped
}

// repetition stops the machine where the guard fired. The markup in
// progress but its last extra bytes, which came after the repeated unit,
// and a word line or label held at the text level, are the runaway's raw
// (held calls join it, loops.go); the extra bytes are discarded after it.
func (m *Machine) repetition(extra int) {
	m.callBeforeLoop() // loopafter.go
	var held []byte
	if m.wl != wlNone {
		held, m.bufOff = m.held, m.heldOff
		m.wl = wlNone
	}
	if m.labelHeld() {
		if held == nil {
			m.bufOff = m.lbl.off
		}
		held = append(held, m.lbl.held...)
		m.lbl.state = lbNone
	}
	if held != nil {
		m.buf = append(held, m.buf...)
	}
	n := len(m.buf) - extra
	m.sink.Runaway(m.buf[:n], RunawayRepetition)
	if extra > 0 {
		m.sink.Discard(m.buf[n:], DiscardAfterRunaway)
	}
	m.bufOff += int64(len(m.buf))
	m.buf = m.buf[:0]
	m.stop()
}

// Stopped reports whether the machine stopped at a runaway: what it is
// given from now on is discarded.
func (m *Machine) Stopped() bool { return m.lv == lvStopped }

// skipped passes b, already added at the end of the buffer, by the lexer,
// and reports false when the guard fired in it: the machine stopped.
func (m *Machine) skipped(b []byte) bool {
	m.watchLines()
	k := m.lex.Skip(b)
	if m.guardFired() {
		m.repetition(len(b) - k)
		return false
	}
	return true
}

// textToken handles text token t, stopping where the guard fired in it.
func (m *Machine) textToken(t []byte, off int64) {
	m.textOff = off
	fired, at := m.lex.Fired()
	if !fired || m.lv == lvStopped {
		m.text(t)
		return
	}
	k := max(int(at-off), 0) // the guard fired at the end of a piece in t
	m.text(t[:k])
	if m.lv == lvStopped { // the text itself stopped the machine
		m.sink.Discard(t[k:], DiscardAfterRunaway)
		return
	}
	m.repetition(0)
	if k < len(t) {
		m.sink.Discard(t[k:], DiscardAfterRunaway)
	}
}
