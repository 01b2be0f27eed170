package fsm

// Leaving markup: what the machine does with the bytes of markup in
// progress (buf) when they turn out to be text, or debris of a block, how
// it returns to the text level, and how it stops at a runaway.

// flushText gives buf[:end] back as text: it was not markup after all.
func (m *Machine) flushText(end int) {
	m.texts().givenBack(m.bufOff)
	m.sink.Text(m.buf[:end])
	m.shift(end)
}

// flushDiscard reports buf[:end] as markup that is not part of a call.
func (m *Machine) flushDiscard(end int, reason Reason) {
	if end > 0 {
		m.sink.Discard(m.buf[:end], reason)
	}
	m.shift(end)
}

// shift drops buf[:n], which has been reported.
func (m *Machine) shift(n int) {
	m.bufOff += int64(n)
	m.buf = m.buf[:copy(m.buf, m.buf[n:])]
	m.seg.start -= n
	m.call.start -= n
}

// toText returns the machine to the text level. Bytes left in buf are
// passed on as text.
func (m *Machine) toText() {
	m.fenceText()
	m.lv = lvText
	m.blk = block{}
	m.call = call{loose: -1}
	m.seg = segment{}
	m.lex.LeaveBlock()
	if len(m.buf) > 0 {
		m.atLine = m.buf[len(m.buf)-1] == '\n'
		m.texts().givenBack(m.bufOff)
		m.sink.Text(m.buf)
		m.bufOff += int64(len(m.buf))
		m.buf = m.buf[:0]
	}
}

// endBlock closes the block at buf[:end]: what is left of the block's
// markup is discarded (or given back as text if it held no call).
func (m *Machine) endBlock(end int) {
	switch {
	case m.blk.calls == 0 && (m.blk.muted > 0 || m.blk.cands&m.ix.on == 0): // a disabled dialect's block stays text
		m.flushText(end)
	case m.blk.calls == 0 && !m.blk.implicit && (m.blk.inline || !blankBlock(m.buf[min(int(m.blk.openLen), end):end])):
		// `wrap it in <tool_call></tool_call> tags`, a <tools> listing of
		// definitions: prose and documents, not debris of a call
		m.flushText(end)
	case m.blk.calls == 0 && !m.blk.implicit:
		m.flushDiscard(end, DiscardEmptyBlock)
	default:
		m.flushDiscard(end, DiscardBlockMarkup)
	}
	m.toText()
}

// runaway reports the buffered markup as a runaway and stops.
func (m *Machine) runaway(reason Reason) {
	m.sink.Runaway(m.buf, reason)
	m.bufOff += int64(len(m.buf))
	m.buf = m.buf[:0]
	m.stop()
}

// stop moves the machine to the stopped level, its buffer reported: no
// markup is open any more, and scratch holds bytes to discard from now on.
func (m *Machine) stop() {
	m.lv = lvStopped
	m.scratch = m.scratch[:0]
	m.pend, m.seg = pending{}, segment{}
	m.jlazy, m.jheld, m.jopen = 0, 0, false // no JSON waits for the scanner
	m.plain = false
	m.lex.LeaveBlock()
}
