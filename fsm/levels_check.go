//go:build invariants

package fsm

import "fmt"

const checkLevels = true

// levelTrace is the level at the last check (+1: 0 is none yet).
type levelTrace struct{ last uint8 }

// checkLevel panics when the machine's state breaks what its level
// promises (levelInvariants) or when it came to this level from one it
// cannot come from (levelMoves). It runs after every step: a token, a run
// of text, a short path, Close.
func (m *Machine) checkLevel() {
	prev := lvText
	if m.trace.last > 0 {
		prev = level(m.trace.last - 1)
	}
	if prev != m.lv {
		if !levelMoves[prev][m.lv] {
			panic(fmt.Sprintf("fsm: level %d entered from %d", m.lv, prev))
		}
	}
	m.trace.last = uint8(m.lv) + 1
	if err := m.levelInvariant(); err != "" {
		panic(fmt.Sprintf("fsm: at level %d: %s", m.lv, err))
	}
}

// levelMoves[a][b]: the machine may be at level b one step after level a.
// A step is a token or a run of text, and one step may pass through
// several levels (an opener that opens its wrapper, its call and its first
// value; a closer that ends a unit, then a reasoning opener), so the table
// holds those composites too. What it leaves out never happens: a runaway
// is the end, reasoning never opens inside markup, a value never holds a
// JSON body, a probe decides for a value only at the key element glued
// to the tool's name it held (wordkey.go).
var levelMoves = func() (t [lvStopped + 1][lvStopped + 1]bool) {
	for a := range t {
		t[a][a] = true
	}
	for a := lvText; a < lvStopped; a++ {
		t[a][lvText] = true    // the unit ends, or is given up as text
		t[a][lvStopped] = true // a runaway
		if a != lvThink {
			t[a][lvThink] = true // a unit ends, reasoning opens
		}
	}
	moves := map[level][]level{
		lvText:  {lvBlock, lvCall, lvValue, lvProbe}, // an opener; the wrapper, the call, the value it implies
		lvThink: {lvCall, lvBlock, lvValue, lvProbe}, // harmony: a call header ends the analysis message; an opener in <think> (thinkcall.go)
		lvBlock: {lvCall, lvValue, lvJSON, lvPy, lvHash},
		lvCall:  {lvBlock, lvValue, lvJSON, lvPy, lvLoose},
		lvValue: {lvCall, lvBlock},                                 // the value ends; the call with it
		lvJSON:  {lvCall, lvBlock},                                 // the body ends; the call with it
		lvProbe: {lvBlock, lvCall, lvJSON, lvPy, lvValue, lvLoose}, // the probe decides for a call (and its first key: wordkey.go; a loose line: looseline.go)
		lvPy:    {lvBlock, lvJSON},                                 // the pythonic body ends; JSON after all
		lvLoose: {lvCall},                                          // the loose object ends
		lvHash:  {lvBlock},                                         // the hash ends the call
	}
	for a, bs := range moves {
		for _, b := range bs {
			t[a][b] = true
		}
	}
	return t
}()

// levelInvariant reports what in the machine's state breaks what its
// level promises, or "".
func (m *Machine) levelInvariant() string {
	// Every level: the marks into buf lie inside it.
	switch {
	case m.pend.active && !(0 <= m.pend.start && m.pend.start <= m.pend.end && m.pend.end <= len(m.buf)):
		return fmt.Sprintf("pending closer [%d,%d) outside buf (%d bytes)", m.pend.start, m.pend.end, len(m.buf))
	case m.seg.active && !(0 <= m.seg.start && m.seg.start <= len(m.buf)):
		return fmt.Sprintf("segment at %d outside buf (%d bytes)", m.seg.start, len(m.buf))
	case m.jheld < 0 || m.jlazy < 0 || m.lv == lvJSON && m.jheld+m.jlazy > len(m.buf):
		return fmt.Sprintf("%d+%d bytes for the JSON scanner, buf %d", m.jlazy, m.jheld, len(m.buf))
	}
	inUnit := m.blk.spec != nil || m.blk.cands != 0
	switch m.lv {
	case lvText, lvThink:
		switch {
		case m.pend.active:
			return "a pending closer"
		case m.seg.active:
			return "a segment of markup"
		case inUnit:
			return "a block open"
		case m.call.started:
			return "a call started"
		}
	case lvStopped:
		switch {
		case len(m.buf) > 0:
			return fmt.Sprintf("%d bytes of markup after the runaway", len(m.buf))
		case m.pend.active:
			return "a pending closer"
		}
	case lvBlock:
		if !inUnit {
			return "no block"
		}
	case lvCall, lvValue, lvJSON, lvPy, lvLoose, lvHash:
		switch {
		case !inUnit:
			return "no block around the call"
		case m.call.spec == nil:
			return "a call without a dialect"
		case m.call.start < 0 || m.call.start > len(m.buf):
			return fmt.Sprintf("the call starts at %d, buf %d", m.call.start, len(m.buf))
		}
		switch {
		case m.lv == lvValue && (m.val.start < m.call.start || m.val.start > len(m.buf)):
			return fmt.Sprintf("the value starts at %d, the call at %d, buf %d", m.val.start, m.call.start, len(m.buf))
		case m.lv == lvJSON && m.json == nil:
			return "no JSON scanner"
		case m.lv == lvPy && m.py == nil:
			return "no pythonic scanner"
		case m.lv == lvLoose && m.lj == nil:
			return "no loose-object scanner"
		}
	case lvProbe:
		if m.probe == nil {
			return "no probe"
		}
	}
	return ""
}
