package fsm

import (
	"encoding/binary"
	"hash/maphash"
)

// The loop detector's decisions about completed calls. A loop must never
// reach the sink as calls, so a call that may belong to one is held
// (loopHold, hold.go) until what follows shows it does not:
//   - a call closed only by the next call or wrapper opener (the
//     missing_closer of a sibling): a loop of openers looks like that
//     until the openers limit cuts it;
//   - a call that repeats the one before it (same name, same arguments):
//     the first is reported, its repeats wait until something else comes,
//     and are part of the runaway when they reach the repeated-calls limit.
// The same call without a name again and again, and a mangled opener word
// on line after line of markup, are loops too.

// report passes completed call c on, or holds it when it may belong to a
// loop (byOpener: it was closed only by the next opener). It reports false
// when c was one repeat too many: the machine stopped at a runaway.
func (m *Machine) report(c *Call, byOpener bool) bool {
	sum := callSum(c)
	again := m.callCount > 0 && sum == m.lastCall
	if m.repeated(sum) {
		m.runaway(RunawayRepeatedCall)
		return false
	}
	if byOpener || again || m.repeatsCall(c) {
		m.loop.holdCall(c)
	} else {
		m.sink.Call(c)
	}
	return true
}

// errUnnamed is the error for call markup that names no tool.
const errUnnamed = "tool call markup without a tool name"

// unnamed gives the markup of call c, which names no tool, back as text
// with an error. Closed only by the next opener, or repeated, it may
// belong to a loop: it waits with the held calls, and a repeat counts as a
// repeated call (past the limit, a runaway). It reports false when the
// machine stopped.
func (m *Machine) unnamed(c *Call) bool {
	sum := callSum(c)
	again := m.callCount > 0 && sum == m.lastCall
	if m.repeated(sum) {
		m.runaway(RunawayRepeatedCall)
		return false
	}
	held := again || m.call.byOpener
	m.keepAsText(errUnnamed, len(c.Raw), held)
	if !held {
		m.blk.muted++ // the block's own markup stays text too
	}
	return true
}

// keepAsText gives the markup buf[:end] of a call that is not run back as
// text, after an error saying why: at once, or, when the call may belong
// to a loop (closed only by the next opener, or a repeat), held with the
// calls held, so that a runaway can still take it.
func (m *Machine) keepAsText(msg string, end int, held bool) {
	m.keepAsTextFor(0, nil, msg, end, held)
}

// keepAsTextFor is keepAsText for a call kept as text for a reason of the
// vocabulary: its error carries the reason and the call's name (callerror.go).
func (m *Machine) keepAsTextFor(reason Reason, name []byte, msg string, end int, held bool) {
	if held {
		m.loop.holdAsText(reason, name, msg, m.bufOff, m.buf[:end])
		m.shift(end)
		return
	}
	callError(m.sink, reason, name, msg, m.bufOff)
	m.flushText(end)
}

// strayWord counts a stray word line kept in markup (`court` where an
// opener belongs). More in a row, with no call opened between them, than
// the openers limit allows are a loop of a mangled opener.
func (m *Machine) strayWord() {
	m.blk.words++
	if m.blk.words > m.opt.Runaway.OpenersWithoutCloser {
		m.runaway(RunawayUnclosedOpeners)
	}
}

// callSum fingerprints a call's name and arguments (maphash: bulk work, no
// allocation). Each field is written with its length, so fields that only
// split the same bytes differently do not sum the same.
func callSum(c *Call) uint64 {
	var h maphash.Hash
	h.SetSeed(sumSeed)
	sumField(&h, c.Name)
	sumField(&h, c.Args)
	for _, p := range c.Params {
		sumField(&h, p.Name)
		sumField(&h, p.Value)
	}
	return h.Sum64()
}

// sumSeed seeds callSum: sums are only compared within one process.
var sumSeed = maphash.MakeSeed()

func sumField(h *maphash.Hash, b []byte) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
}

// repeated reports whether the call with fingerprint sum is the same as the
// ones before it, more times in a row than the runaway limit allows.
func (m *Machine) repeated(sum uint64) bool {
	if sum == m.lastCall && m.callCount > 0 {
		m.repeats++
	} else {
		m.repeats = 0
	}
	m.lastCall = sum
	m.callCount++
	return int(m.repeats) >= m.opt.Runaway.RepeatedCalls
}
