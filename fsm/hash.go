package fsm

import (
	"strconv"

	"github.com/toolsieve/toolsieve/lexer"
)

// The bodies of hash dialects (ruby_hash): a '{' in the unit starts one
// call's hash; the machine holds its bytes (lvHash) until the hash ends,
// then reads it (rubyhash.go) and reports the call at once. A hash that
// cannot be read goes back to the text with an error event: its tool's
// arguments are never guessed.

// hashCanStart reports whether byte c starts a hash in the block.
func (m *Machine) hashCanStart(c byte) bool {
	return c == '{' && m.lv == lvBlock && m.blk.spec != nil && m.blk.spec.shape == shHash
}

// startHash begins a call's hash at the next byte.
func (m *Machine) startHash() {
	if m.openers++; int(m.openers) > m.opt.Runaway.OpenersWithoutCloser {
		m.runaway(RunawayUnclosedOpeners)
		return
	}
	m.call = call{loose: -1, start: len(m.buf)}
	m.setDialect(m.blk.spec)
	if m.blk.open.variant {
		m.call.repairs |= RMarkerVariant
	}
	m.hash = hashTrack{}
	m.lv = lvHash
}

// textInHash takes more of the hash.
func (m *Machine) textInHash(b []byte) int {
	n, done := m.hash.write(b)
	if m.add(b[:n]) && done {
		m.finishHash()
	}
	return n
}

// tagInHash handles a token inside a hash (its bytes end m.buf at
// tokStart): content, unless it opens or closes a unit outside a string,
// which leaves the hash unfinished.
func (m *Machine) tagInHash(t *lexer.Token, tokStart int) {
	if !m.hash.inString() {
		if r := m.roleIn(t, lvBlock); r == rBlockClose || r == rBlockOpen {
			m.buf = m.buf[:tokStart]
			m.hashFailed("is not complete")
			m.tagInText(t)
			return
		}
	}
	if n, done := m.hash.write(t.Raw); done {
		end := tokStart + n
		rest := len(m.buf) - end
		m.buf = m.buf[:end]
		m.finishHash()
		if m.lv == lvBlock && rest > 0 {
			m.add(t.Raw[n:]) // the token's rest: markup of the block
		}
	}
}

// finishHash reads the complete hash (buf[call.start:]) and completes the call.
func (m *Machine) finishHash() {
	name, args, unread, ok := readHash(m.buf[m.call.start:])
	if !ok {
		m.hashFailed("is not a hash it can read")
		return
	}
	m.lv = lvCall
	m.call.done = true
	m.call.name = m.keepName(name)
	m.call.args = append(m.argsBuf[:0], args...)
	m.argsBuf = m.call.args
	if unread {
		m.markUnread()
	}
	m.openers = 0
	m.completeCall(len(m.buf), 0)
}

// hashFailed gives the unit back to the text, with an error event unless
// its dialect is off: its hash cannot be read (why).
func (m *Machine) hashFailed(why string) {
	if !m.call.muted {
		m.sink.Error("arguments of tool call ("+m.call.spec.Name+") could not be read: the hash at offset "+
			strconv.FormatInt(m.bufOff+int64(m.call.start), 10)+" "+why+"; kept as text", m.bufOff)
	}
	m.toText()
}

// hashEnd ends a hash cut off by the end of input.
func (m *Machine) hashEnd() {
	if m.lv == lvHash {
		m.hashFailed("is not complete")
	}
}
