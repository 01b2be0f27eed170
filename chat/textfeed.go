package chat

// Text feeding, shared by the OpenAI and Anthropic streams: content deltas
// go through a parser, and what it returns is held, passed on or turned
// into calls.

import (
	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/sse"
)

// textChan is the state of one upstream content stream that text goes
// through: an OpenAI choice or an Anthropic text block.
type textChan struct {
	p     *toolsieve.Parser
	carry []byte // an incomplete UTF-8 sequence moved to the next delta
	q     textQueue
	sc    streamedCall // the call being streamed (streamcalls.go)
	cut   bool         // a call of it was cut before the model finished it (cut.go)
	// closing is its parser's last batch, held while it waits to know
	// whether the end was cut (cut.go).
	closing []toolsieve.Event
}

// textSink is what the shared feeding code needs of a stream: the sink
// methods for its current content stream, and original, which sends a held
// upstream event of that content stream with its text unchanged.
type textSink interface {
	sink
	original(qe queued) // by value: no pointers written for an event sent at once
}

// textFeed is the state of one batch of parser events, which both streams
// keep the same way: while only text comes out (clean) the text is just
// collected in tb, so that the upstream events may still go out unchanged;
// at the first other event the runs are made (kind, run). The sink methods
// always speak of the stream's current content stream, which the callers
// set before calling these methods with it.
type textFeed struct {
	w           *streamRewriter
	in, run, tb []byte
	kind        runKind
	clean       bool // only text came out of the parser so far
}

// footprint returns the capacity of the batch's buffers.
func (f *textFeed) footprint() int { return cap(f.in) + cap(f.run) + cap(f.tb) }

// shrink drops batch buffers that a large event grew past maxScratch
// (they are grown again when needed).
func (f *textFeed) shrink() {
	for _, b := range [...]*[]byte{&f.in, &f.run, &f.tb} {
		if cap(*b) > maxScratch {
			*b = nil
		}
	}
}

// maxScratch is the capacity past which a scratch buffer is not kept
// between events.
const maxScratch = 256 << 10

// begin resets the batch state before the current content stream's parser
// is fed or closed.
func (f *textFeed) begin() {
	f.kind = runNone
	f.run = f.run[:0]
	f.clean = true
	f.tb = f.tb[:0]
}

// startRun starts the text run with c's carried bytes and text.
func (f *textFeed) startRun(c *textChan, text []byte) {
	f.run = append(append(f.run[:0], c.carry...), text...)
	c.carry = c.carry[:0]
	if len(f.run) > 0 {
		f.kind = runText
	}
}

// process takes a batch of parser events for c. While only text comes out
// the text is just collected (the events may still go out unchanged); at
// the first other event the held events are given up and the runs are made.
func (f *textFeed) process(s textSink, c *textChan, evs []toolsieve.Event) (stop bool) {
	if f.clean {
		if allText(evs) {
			for i := range evs {
				f.tb = append(f.tb, evs[i].Text...)
				f.w.show(evs[i].Text)
			}
			return false
		}
		f.clean = false
		f.materialize(s, c)
		f.startRun(c, f.tb)
	}
	return f.w.runs(evs, s, c, &f.kind, &f.run)
}

// materialize gives up the events c holds: the text released from them
// goes out in an event of its own.
func (f *textFeed) materialize(s textSink, c *textChan) {
	if len(c.q.rel) > 0 {
		s.text(c.q.rel)
	}
	c.q.reset()
}

// hold queues the upstream event ev, whose text content came out as it
// is, and sends the held events whose content has all been released.
func (f *textFeed) hold(s textSink, c *textChan, ev *sse.Event, content []byte, idx jsonspan.Member) {
	if c.q.push(ev, content, f.tb, idx) {
		s.original(queued{raw: ev.Raw, data: ev.Data, content: content, idx: idx})
	} else {
		n := c.q.ready()
		for i := range n {
			s.original(c.q.evs[i])
		}
		c.q.drop(n)
	}
	if c.q.over() {
		f.materialize(s, c)
	}
}

// settle ends a clean batch of c; content is what the upstream event being
// edited carried (nil: none, or the end of c). When drain is set and the
// text released is exactly the held content plus content, the held events
// go out unchanged and content is the run; otherwise they are given up and
// the released text is the run.
func (f *textFeed) settle(s textSink, c *textChan, content []byte, drain bool) {
	if drain && c.q.covers(f.tb, content) {
		c.q.drain(s.original)
		f.startRun(c, content)
	} else {
		f.materialize(s, c)
		f.startRun(c, f.tb)
	}
}

// lastRun sends a pending reasoning run and returns the text run left for
// the upstream event. Unless final, an incomplete UTF-8 sequence at its end
// is cut off and carried by c to its next batch.
func (f *textFeed) lastRun(s textSink, c *textChan, final bool) []byte {
	if f.kind == runReasoning {
		f.w.flushRun(s, &f.kind, &f.run)
	}
	run := f.run
	if f.kind == runText && !final {
		if k := incompleteUTF8(run); k > 0 {
			c.carry = append(c.carry[:0], run[len(run)-k:]...)
			run = run[:len(run)-k]
		}
	}
	return run
}

// incompleteUTF8 returns how many bytes at the end of b are the start of a
// UTF-8 sequence that the next bytes may complete (0 to 3).
func incompleteUTF8(b []byte) int {
	for k := 1; k <= 3 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < 0x80 {
			return 0
		}
		if c >= 0xC0 { // a lead byte: is its sequence longer than what we have?
			need := 2
			switch {
			case c >= 0xF0:
				need = 4
			case c >= 0xE0:
				need = 3
			}
			if need > k && c < 0xF5 {
				return k
			}
			return 0
		}
	}
	return 0
}
