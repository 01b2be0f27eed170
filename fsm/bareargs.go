package fsm

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
)

// Some models name the tool only in prose and then write its arguments as
// a bare JSON object: "I'll call read_file:\n{"path": "a.go"}". With
// declared tools (Options.Fits) and the json dialect on, such an object is
// a call when, once it is complete:
//
//   - exactly one declared tool fits it (its parameters cover the keys and
//     the ones it requires are among them), and
//   - the text just before it (the last maxTail bytes of text, with no call
//     or discarded markup since) names that tool as a word.
//
// The json dialect's probe (probe.go) sees the object first; when it gives
// up on an object that is no call object but has a key, and the text before
// names some declared tool, the object is held as the arguments of a call
// with no name yet. A clean JSON object that fits becomes a json call with
// misplaced_name; anything else (no single fit, repairs, the end of input
// inside it) goes back to the text as it was.

const maxTail = 200

// textTail holds the last bytes of text: buf[max(start, end-maxTail):end].
// Bytes are appended; when buf is full, the last ones slide to its start,
// so each byte is copied about once more at most.
type textTail struct {
	buf   [3 * maxTail]byte
	start int // where the text held begins (a call or discarded markup moves it to end)
	end   int
	shown bool       // the text introduced markup as an illustration (anchor.go)
	names *declNames // the declared tools' names (toolline.go)
}

func (t *textTail) write(p []byte) {
	if !t.writeToken(p) {
		t.writeAny(p)
	}
}

// writeToken appends p when it is of a token's size (4 to 8 bytes) and
// fits, without a call (WritePlain calls it directly), and reports whether
// it did.
func (t *textTail) writeToken(p []byte) bool {
	n := len(p)
	if n < 4 || n > 8 || n > len(t.buf)-t.end {
		return false
	}
	b := t.buf[t.end : t.end+n]
	binary.LittleEndian.PutUint32(b, binary.LittleEndian.Uint32(p))
	binary.LittleEndian.PutUint32(b[n-4:], binary.LittleEndian.Uint32(p[n-4:]))
	t.end += n
	return true
}

func (t *textTail) writeAny(p []byte) {
	if len(p) > len(t.buf)-t.end {
		t.slide(p)
		return
	}
	t.end += copy(t.buf[t.end:], p)
}

// slide keeps the last maxTail bytes of the held ones and p, at buf's start.
func (t *textTail) slide(p []byte) {
	if len(p) > maxTail {
		p = p[len(p)-maxTail:]
	}
	keep := min(t.end-t.start, maxTail-len(p))
	copy(t.buf[:], t.buf[t.end-keep:t.end])
	t.start, t.end = 0, keep+copy(t.buf[keep:], p)
}

// clear forgets the text held.
func (t *textTail) clear() { t.start = t.end }

// words calls f with each word of the held text, oldest first, until f
// returns true; it reports whether one did. A word is a run of letters,
// digits, '_', '-' and '.' (a tool name), less a final '.' or '-'.
func (t *textTail) words(f func(w []byte) bool) bool {
	b := t.buf[max(t.start, t.end-maxTail):t.end]
	for i := 0; i < len(b); {
		j := i
		for j < len(b) && (isIdentByte(b[j]) || b[j] == '-' || b[j] == '.') {
			j++
		}
		if w := bytes.TrimRight(b[i:j], ".-"); len(w) > 0 && f(w) {
			return true
		}
		i = j + 1
	}
	return false
}

// tailSink records the text the machine reports; a call or discarded
// markup clears it.
type tailSink struct {
	Sink
	tail *textTail
}

func (s tailSink) Text(b []byte) {
	s.tail.write(b)
	s.Sink.Text(b)
}

func (s tailSink) Call(c *Call) {
	s.tail.clear()
	s.Sink.Call(c)
}

func (s tailSink) Discard(raw []byte, reason Reason) {
	s.tail.clear()
	s.Sink.Discard(raw, reason)
}

func (s tailSink) Runaway(raw []byte, reason Reason) {
	s.tail.clear()
	s.Sink.Runaway(raw, reason)
}

// watchProse turns on the recovery of bare arguments when it can apply:
// the text is then recorded.
func (m *Machine) watchProse() {
	if m.opt.Fits == nil || m.opt.Declared == nil || !anyOf(m.ix.on, isBareObject) {
		return
	}
	m.tail = new(textTail)
	m.sink = tailSink{Sink: m.sink, tail: m.tail}
}

// isBareObject reports whether s is opened in text by a bare '{' object.
func isBareObject(s *Spec) bool { return s.shape == shProbe && !s.list }

// mayBeBareArgs reports whether the probe, giving up at a byte with
// verdict v, held an object that may be bare arguments.
func (m *Machine) mayBeBareArgs(v probeVerdict) bool {
	p := m.probe
	if m.tail == nil || !anyOf(p.cands, isBareObject) {
		return false
	}
	switch p.state {
	case pColon, pValQuote, pVal, pComma, pScalar: // a key was read
	case pKey:
		if p.nkey < maxProbeKey { // only a key too long for a probe
			return false
		}
	case pKeyQuote:
		if p.nkey == 0 {
			return false
		}
	default:
		return false
	}
	if v == pvName && m.declared(p.val[:p.nval]) {
		return false // a call object after all
	}
	if p.ukey {
		return m.looseAnchored() // loosekey.go
	}
	return p.anchor.b > 0 || m.holdsEnvelopes() || m.tail.words(m.declared) || m.tail.recipient(m.declared) != nil
}

// openBareArgs holds the probed object (m.buf) as the arguments of a call
// whose name is not known yet.
func (m *Machine) openBareArgs() {
	p := m.probe
	s := choose(p.cands, 0, false, shProbe)
	c := call{loose: -1, slot: slotProse, jsonAt: p.body}
	m.openProbedJSON(s, c)
}

// proseUnfit names a call of bare arguments, its markup at buf[:end], by
// the one declared tool they fit. If none fits, or the text before does not
// name it, or the object needed repairs, the markup goes back to the text
// and proseUnfit reports true.
func (m *Machine) proseUnfit(end int) bool {
	if m.harmonyRecipient() {
		return false
	}
	if name, rep, ok := m.proseFit(); ok {
		m.call.name = m.keepName([]byte(name))
		m.call.repairs |= rep
		return false
	}
	m.flushText(end)
	m.call = call{loose: -1}
	m.lv = lvBlock
	return true
}

// proseFit returns the tool the bare arguments are a call of, and the
// repair that says how it was found: misplaced_name when it is the one
// declared tool they fit and the prose names it, inferred_call when the
// prose names it just before them (anchor.go).
func (m *Machine) proseFit() (string, Repairs, bool) {
	if m.call.repairs&RTruncatedJSON != 0 || m.call.unread {
		return "", 0, false
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(m.call.args, &members) != nil {
		return "", 0, false
	}
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	if m.call.repairs&RJSONRepaired == 0 && m.probe.anchor.b == 0 && !schemaLike(members) {
		if name, ok := m.opt.Fits(keys); ok && m.tail.words(func(w []byte) bool { return strings.EqualFold(string(w), name) }) {
			return name, RMisplacedName, true
		}
	}
	name, ok := m.inferredFit(members, keys)
	return name, RInferredCall, ok
}
