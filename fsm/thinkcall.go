package fsm

import "github.com/toolsieve/toolsieve/lexer"

// Calls written in reasoning. A model that writes a call inside its
// <think> block and stops there meant it: the serving stacks read such a
// call as the turn's call (vLLM's reasoning parsers end the reasoning at a
// tool-call section), and the client sees nothing else. A model that
// writes a call in its reasoning and then goes on thinking (“I will send
// this request: ... Then I will wait for the result”) was planning it,
// and writes the call again after its reasoning if it means it.
//
// The rule: markup in reasoning is read as in text, with every guard of
// text (code, quotes, declared names); a call it makes is held until the
// next byte of reasoning that is not whitespace. The end of the reasoning
// (</think>) or of the input releases the held calls as calls; any other
// reasoning gives them back as reasoning, where they were written. Text
// between calls in reasoning stays reasoning. Only <think> reasoning is
// read so; harmony's analysis channel has its own message framing.

// thinkCalls stands between the machine's loop hold and its sink while
// markup met in reasoning is read, and while the calls it made are held:
// it is then the hold's out, which says that it is on (an idle machine
// carries no field for it).
type thinkCalls struct {
	out  Sink        // the hold's out outside of this
	held []heldThink // from the first held call on
}

// thinking returns the reasoning calls' hold when it is on, else nil.
func (m *Machine) thinking() *thinkCalls {
	h, _ := m.loop.out.(*thinkCalls)
	return h
}

// heldThink is a held call (a copy owning its bytes), whitespace reasoning
// after one, or markup discarded after one (a stray closer of its block).
type heldThink struct {
	call   *Call
	raw    []byte
	reason Reason // a discard's; 0: reasoning
}

// startInThink reads tag t, met in <think> reasoning, as it would be read
// in text.
func (m *Machine) startInThink(t *lexer.Token) {
	h := m.thinking()
	if h == nil {
		h = &thinkCalls{out: m.loop.out}
		m.loop.out = h
	}
	m.lv = lvText
	m.tagInText(t)
	if m.lv == lvText {
		m.lv = lvThink
		if len(h.held) == 0 {
			m.loop.out = h.out
		}
	}
}

// tagInThink handles tag t in <think> reasoning: its closer ends it, other
// tags are read as in text (startInThink).
func (m *Machine) tagInThink(t *lexer.Token) {
	if m.thinkBy != nil {
		if !m.tagInHarmonyThink(t) {
			m.sink.Reasoning(t.Raw, t.Raw)
		}
		return
	}
	if thinkEnd(t) {
		m.endThink()
		m.lv = lvText
		m.sink.Reasoning(nil, t.Raw)
		return
	}
	m.startInThink(t)
}

// backToThink returns to reasoning once a unit opened in it has ended. The
// reasoning's closer t (nil: none) ends a unit still open as the end of
// input would: the unit cannot reach past the reasoning it was written in.
// It is tested in line: most of the time no reasoning holds calls.
func (m *Machine) backToThink(t *lexer.Token) {
	if m.thinking() != nil {
		m.thinkAgain(t)
	}
}

// thinkAgain is backToThink while reasoning holds calls.
func (m *Machine) thinkAgain(t *lexer.Token) {
	if m.lv != lvText && m.lv != lvThink && m.lv != lvStopped && t != nil && thinkEnd(t) {
		m.eof()
		if m.lv != lvText {
			m.toText()
		}
	}
	if m.lv == lvText {
		m.lv = lvThink
	}
}

// thinkEnd reports whether t ends <think> reasoning.
func thinkEnd(t *lexer.Token) bool {
	return t.Marker == lexer.Think && t.Has(lexer.Closing) || t.Marker == lexer.ThoughtEnd
}

// endThink releases the held calls as calls: the reasoning ended (or the
// input did) right after them.
func (m *Machine) endThink() {
	h := m.thinking()
	if h == nil {
		return
	}
	m.loop.release() // what waits for a loop goes first, into the hold
	m.loop.out = h.out
	h.release(true)
}

// release reports what is held: the calls as calls (asCalls), or as the
// reasoning they were written in with the markup discarded around them.
func (h *thinkCalls) release(asCalls bool) {
	for _, e := range h.held {
		switch {
		case e.call != nil && asCalls:
			h.out.Call(e.call)
		case e.call != nil:
			h.out.Reasoning(e.call.Raw, e.call.Raw)
		case e.reason != 0 && asCalls:
			h.out.Discard(e.raw, e.reason)
		default:
			h.out.Reasoning(e.raw, e.raw)
		}
	}
	clear(h.held)
	h.held = h.held[:0]
}

func (h *thinkCalls) Text(b []byte) { h.Reasoning(b, b) }

func (h *thinkCalls) Reasoning(text, raw []byte) {
	if len(raw) == 0 && len(text) == 0 {
		return
	}
	if len(h.held) > 0 {
		if isBlank(raw) && len(text) == len(raw) {
			h.held = append(h.held, heldThink{raw: append([]byte(nil), raw...)})
			return
		}
		h.release(false) // reasoning goes on: the calls were thought, not made
	}
	h.out.Reasoning(text, raw)
}

// CallStart is dropped: a call in reasoning is known only when what
// follows it is.
func (h *thinkCalls) CallStart([]byte) {}

func (h *thinkCalls) Call(c *Call) {
	d := cloneCall(c)
	d.Repairs |= RInReasoning
	h.held = append(h.held, heldThink{call: d})
}

func (h *thinkCalls) Discard(raw []byte, reason Reason) {
	if len(h.held) > 0 {
		h.held = append(h.held, heldThink{raw: append([]byte(nil), raw...), reason: reason})
		return
	}
	h.out.Discard(raw, reason)
}

func (h *thinkCalls) Runaway(raw []byte, reason Reason) {
	h.release(false)
	h.out.Runaway(raw, reason)
}

// Error is dropped: markup in reasoning that makes no call stays the
// reasoning it was written in, which the errors of text ("kept as text")
// do not describe.
func (h *thinkCalls) Error(string, int64) {}

// cloneCall copies c with its bytes.
func cloneCall(c *Call) *Call {
	d := *c
	d.Name = append([]byte(nil), c.Name...)
	d.ID = append([]byte(nil), c.ID...)
	if c.Args != nil {
		d.Args = append([]byte(nil), c.Args...)
	}
	d.Raw = append([]byte(nil), c.Raw...)
	d.Stable = false
	if c.Params != nil {
		d.Params = make([]Param, len(c.Params))
		for i, p := range c.Params {
			p.Name, p.Value = append([]byte(nil), p.Name...), append([]byte(nil), p.Value...)
			d.Params[i] = p
		}
	}
	return &d
}
