// Package fsm is the resumable state machine that turns lexer tokens into
// structure: text, reasoning, tool calls with their arguments, discarded
// markup and runaways. It recovers broken markup where the intent is
// unambiguous, records what it repaired, and gives markup back as text
// where it is not.
//
// State is data: a level (text, block, call, value, JSON body), the open
// block and call, and at most one pending closer whose meaning depends on
// what follows. Bytes of markup in progress are kept in one buffer, bounded
// by Options.MaxCall; text is passed on as soon as the lexer returns it.
package fsm

import (
	"bytes"
	"math"
	"unicode/utf8"

	"github.com/toolsieve/toolsieve/fsm/jsonscan"
	"github.com/toolsieve/toolsieve/fsm/loosejson"
	"github.com/toolsieve/toolsieve/fsm/pyscan"
	"github.com/toolsieve/toolsieve/internal/repeat"
	"github.com/toolsieve/toolsieve/lexer"
)

// Hint says how a parameter value was marked.
type Hint uint8

// Value hints.
const (
	HintNone   Hint = iota
	HintString      // known to be a raw string (DSML string="true")
	HintJSON        // known to be JSON (DSML string="false")
)

// Param is one argument of a call written as markup.
type Param struct {
	Name  []byte
	Value []byte
	Hint  Hint
}

// Call is one recognised tool call. Its slices are valid during Sink.Call.
type Call struct {
	Dialect string
	Name    []byte
	ID      []byte  // an id the markup carried (kimi_k2), else nil
	Params  []Param // arguments written as elements
	Args    []byte  // arguments written as JSON (valid JSON), when Params is nil
	Repairs Repairs
	Raw     []byte
	Offset  int64 // input offset of Raw[0]
	// Stable: Raw and the Params' bytes stay valid until the next Write
	// or Close, so a sink may keep them without copying (keep.go).
	Stable bool
}

// Sink receives what the machine recognises, in input order. Byte slices
// are valid only during the call.
type Sink interface {
	Text(b []byte)
	Reasoning(text, raw []byte)
	CallStart(name []byte)
	Call(c *Call)
	Discard(raw []byte, reason Reason)
	Runaway(raw []byte, reason Reason)
	Error(msg string, offset int64)
}

// Options configure a Machine. The zero value gives the defaults.
type Options struct {
	// Dialects enabled; nil means every dialect except the ones that need
	// declared tools (Spec.NeedsTools: tool_tag, json, tgi, ...), which are
	// on when Declared is set.
	Dialects map[string]bool
	// Declared reports whether a tool of this name was declared. nil: none.
	Declared func(name []byte) bool
	// HasParam reports whether the declared tool named tool declares a
	// parameter named param. nil: none is known.
	HasParam func(tool, param []byte) bool
	// FitsTool reports whether an arguments object with these keys fits
	// the declared tool named tool (see Fits). nil: none is known.
	FitsTool func(tool []byte, keys []string) bool
	// Fits returns the one declared tool that an arguments object with
	// these keys fits: its parameters cover the keys and its required ones
	// are among them. ok is false when none or several do. nil: none.
	Fits func(keys []string) (name string, ok bool)
	// MaxCall caps the bytes buffered for one call (default 1 MiB). A call
	// growing past it is reported as a runaway.
	MaxCall int
	Runaway RunawayLimits
	// MarkupInCode turns off the code guard: markup inside backtick code
	// spans and fences is then parsed like any other.
	MarkupInCode bool
	// Stream reports the arguments of a started call as they are read,
	// to a sink that implements the methods of argSink (stream.go).
	Stream bool
}

// RunawayLimits are the thresholds of the loop detector. Zero values take
// the defaults documented on each field.
type RunawayLimits struct {
	// OpenersWithoutCloser: call openers in a row with no call closer
	// between them (default 3; the next one is a runaway). Stray word lines
	// in markup (`court`, a mangled opener) in a row count against it too.
	OpenersWithoutCloser int
	// NestedBlocks: block openers inside an open block (default 2).
	NestedBlocks int
	// RepeatedCalls: identical calls in a row (default 4; the next is a
	// runaway). The repeats are held meanwhile (loops.go).
	RepeatedCalls int
	// StrayClosers: orphan closers in a row with only whitespace between (default 5).
	StrayClosers int

	// The repetition guard (guard.go, internal/repeat) stops a loop of any
	// shape: the output's tail repeating one unit, with digits folded in
	// markup so that counters compare equal. It fires at the UnitRepeats-th
	// repetition in a row of a unit holding markup (default 8; units of at
	// most MaxUnit bytes, default 4096), and at the LineRepeats-th line of
	// a run of one to eight lines of text repeated (default 48; lines in
	// argument values are not watched); a phrase repeated 8 times within
	// 512 bytes of text is a loop too (docs/contract.md, "Runaway").
	UnitRepeats, LineRepeats, MaxUnit int
	// NoGuard turns the repetition guard off.
	NoGuard bool
}

const (
	// defaultMaxCall is the default cap on one call's bytes.
	defaultMaxCall = 1 << 20
	maxSegment     = 64 // loose text inside markup is judged after this many bytes
	maxStrayWord   = 24
	nestGap        = 512 // call or block openers in a value further apart are no loop (markup.go)
)

func (o *Options) withDefaults() {
	if o.MaxCall <= 0 {
		o.MaxCall = defaultMaxCall
	}
	r := &o.Runaway
	if r.OpenersWithoutCloser <= 0 {
		r.OpenersWithoutCloser = 3
	}
	if r.NestedBlocks <= 0 {
		r.NestedBlocks = 2
	}
	if r.RepeatedCalls <= 0 {
		r.RepeatedCalls = 4
	}
	if r.StrayClosers <= 0 {
		r.StrayClosers = 5
	}
	if r.UnitRepeats <= 0 {
		r.UnitRepeats = repeat.DefaultMarkup
	}
}

// level is where in the markup the machine is. What each level promises
// of the rest of the state, and from which levels it is entered, is
// checked after every step in tests (build tag invariants,
// levels_check.go): at text and reasoning no block, call, pending closer
// or segment is open; in a call, a value or a body the block and the
// call's dialect are known and the marks into buf lie inside it; a body's
// scanner exists; stopped holds no markup and is never left.
type level uint8

const (
	lvText    level = iota
	lvThink         // inside <think>
	lvBlock         // inside a wrapper, between calls
	lvCall          // inside a call, between arguments
	lvValue         // inside an argument value
	lvJSON          // inside a JSON body
	lvProbe         // a text opener ('{', '[', `functools[`) that may start a call (probe.go)
	lvPy            // inside a pythonic unit's body
	lvLoose         // inside a loose object (gemma)
	lvHash          // inside a call's hash (ruby_hash: hash.go)
	lvStopped       // after a runaway: everything is discarded
)

type codeState uint8

const (
	codeNone codeState = iota
	codeSpan
	codeFence
)

// block is the open wrapper.
type block struct {
	cands    dset  // the dialects it may belong to
	variants dset  // those of them its opener spelt in a borrowed way
	spec     *Spec // the one dialect it belongs to, once known
	open     markerInfo
	openLen  uint8 // the opener's length, at most 255 (a longer one: its end is taken for content)
	implicit bool  // no wrapper was written: the call opened it
	fenced   bool  // its body opened with a code fence (minicpm3's python, rwkv's object)
	// pyFirst: a pythonic body was chosen for a '[' that may also start a
	// JSON array of another candidate (pyToJSON)
	pyFirst bool
	inline  bool  // its opener was written after other text on its line
	eol     bool  // its markers were lines without brackets (markline.go)
	muted   int32 // calls of disabled dialects passed on as text (int32: it fits beside the flags)
	calls   int   // calls completed in this block
	nested  int   // block openers seen inside it
	words   int   // stray word lines since a call last opened in it (loops.go)
}

// pspan is a parameter: its name in m.names, its value in m.buf.
type pspan struct {
	name    span
	val     span
	hint    Hint
	inNames bool // val is in m.names: the value was rewritten (childObject)
}

type span struct{ a, b int }

// call is the call in progress.
type call struct {
	spec    *Spec // its dialect (provisional until a header decides)
	start   int   // offset of its first byte in m.buf
	name    span  // in m.names
	id      span  // in m.names
	tool    span  // in m.names: the tool a name element's content named (nameelem.go)
	params  []pspan
	repairs Repairs
	argsEnd int32  // end in m.buf of its whole JSON arguments (0: none yet); see callBeforeLoop
	args    []byte // JSON arguments, once known
	loose   int    // start of loose text in m.buf, -1 if none
	kv      keyVal // key/value arguments
	jsonAt  int    // start in m.buf of its JSON body
	swap    *swap  // a marker standing where an argument's opener may belong (substitute.go)
	fence   int    // end in m.buf of a code fence before the body: its info string is markup (fence.go)
	// streamed: of its arguments, how many were reported to an argSink
	// (stream.go); started: its name was reported (Sink.CallStart).
	streamed int
	started  bool
	open     markerInfo
	hdr      hdrState
	slot     slot // where its name was written, if not in its own slot (slots.go)
	muted    bool // spec is not enabled: the call is passed on as text
	jsonEnv  bool // the JSON body is an envelope {"name":..,"arguments":..}
	done     bool // the body is complete; only its closer may follow
	// byOpener: closed only by the next opener, it may belong to a loop (loops.go)
	byOpener bool
	// unread: the markup held argument bytes that could not be read; the
	// call is then not reported as a call (unread.go). line: a line of its own in text opened it (looseline.go).
	unread, line bool
}

// keyVal is a key waiting for its value (key/value dialects).
type keyVal struct {
	key  span // in m.names
	has  bool
	hint Hint // what the key's type element said (k2_horizon)
}

// hdrState is how far an irregular call header has been read.
type hdrState struct {
	sep    bool // the separator token after the name was seen
	named  bool // the name is complete (it may be empty)
	idNext bool // an id comes before the arguments (mistral [CALL_ID])
}

// value is the argument value in progress.
type value struct {
	start   int  // offset in m.buf
	tagName span // tool_tag: the child tag's name, in m.names
	name    span
	depth   int32 // openers of markup elements the value holds as content
	// amp: where the value's first '&' is in m.buf, as -1-offset, once
	// seen; before, the offset up to which it holds none (Spec.entities,
	// entities.go). int32, as depth: the two fill one word.
	amp int32
	// nested: where in m.buf the last opener it holds as content ended;
	// calls, blocks: of the call and block openers, the ones not closed
	// yet, each less than nestGap bytes after the one before (a loop).
	nested int
	calls  int32
	blocks int32
	closer lexer.Marker // the closer that ends it
	hint   Hint
	isKey  bool // the element holds a key (key/value dialects)
	isType bool // the element holds the type of the key's value (Spec.argType)
	eq     bool // the opener was written <parameter=K>
}

// pending is a closer whose meaning depends on the next significant token.
type pending struct {
	start   int // the closer's bytes in m.buf
	end     int
	seg     int // start in m.buf of text after a parameter closer, being judged; -1 if none
	repairs Repairs
	active  bool
	role    role
	// fromJSON: the closer came inside a JSON string; if it does not
	// close, its bytes go back to the JSON scanner.
	fromJSON bool
	newline  bool // the whitespace after the closer held a newline
	// inner: the value held markup it opened long before; if the closer
	// does not close the value, it closes that (tagInValue).
	inner bool
	rune  runeEnd
}

// segment is loose text inside markup, judged as a whole.
type segment struct {
	start  int
	n      int
	active bool
	rune   runeEnd // a long segment is cut only between characters
}

// runeEnd follows UTF-8 one byte at a time: whether the bytes so far end
// on a character boundary. It never looks back, so where a cut falls does
// not depend on how the input was chunked.
type runeEnd struct{ want uint8 } // continuation bytes still expected

func (r *runeEnd) step(c byte) {
	switch {
	case c < 0x80:
		r.want = 0
	case c < 0xC0: // a continuation byte
		if r.want > 0 {
			r.want--
		}
	case c < 0xE0:
		r.want = 1
	case c < 0xF0:
		r.want = 2
	default:
		r.want = 3
	}
}

func (r runeEnd) whole() bool { return r.want == 0 }

// Machine is the state machine. Create it with New.
type Machine struct {
	opt   Options
	ix    dialectIndex
	sink  Sink
	lex   lexer.Lexer
	loop  loopHold   // sink is &loop: calls that may belong to a loop wait there
	left  *leftSink  // the loop hold's sink: wrappers of no dialect around calls (leftover.go)
	trace levelTrace // the level at the last check: with the invariants build tag only (levels_check.go)

	lv   level
	code codeState
	// prev is the input byte before the next one handled (0 at the start):
	// a word opener counts only after a byte that is not a word byte.
	prev  byte
	plain bool // WritePlain may take a chunk (plain.go)
	// due: a short path stopped where the repetition guard fired
	// (plain.go): the runaway is reported next, then scratch's bytes.
	due    bool
	fresh  bool // no byte was handled yet, and the output's first line may be a call's name line (probeline.go)
	atLine bool // the next text byte starts a line
	wl     wordLine
	// jopen: the bytes that wait for the JSON scanner end with a backslash
	// that begins an escape (jsonfast.go)
	jopen bool
	ticks int32     // the backticks of the open code span or fence (int32: it fits beside the flags)
	fence fenceText // in a fenced code block: its label and where its body is (fencetext.go)

	buf     []byte // markup in progress
	kept    []byte // the buffer holding a Stable call's bytes, until the next Write (callbuf.go)
	side    []byte // room for buf while kept is set aside
	bufOff  int64  // input offset of buf[0]
	names   []byte // names of the call in progress
	blk     block
	call    call
	val     value
	pend    pending
	seg     segment
	json    *jsonscan.Scanner  // JSON bodies; made when first needed
	py      *pyscan.Scanner    // pythonic bodies; made when first needed
	lj      *loosejson.Scanner // loose objects; made when first needed
	jw      *jsonWalk          // the walk of a streamed JSON body (jsonstream.go); made when first needed
	hash    hashTrack          // the end of a call's hash (hash.go)
	jheld   int                // bytes at the end of buf not yet fed to json
	jlazy   int                // bytes before those, not yet fed to json either (jsonfast.go)
	params  []Param
	argsBuf []byte
	out     *Call // where a call is built (allocated with the first call: an idle parser stays small)
	envs    []env // calls of a JSON array of call objects, reported together
	// scratch: bytes taken back out of buf to be handled again (body.go);
	// after a runaway, bytes held back to be discarded (an incomplete
	// UTF-8 sequence, the rest of a word hold).
	scratch []byte

	thinkBy *Spec     // the dialect whose message the reasoning in progress is (nil: <think>)
	word    *wordHold // the prefix of an opener's word ending the last plain chunk (plain.go)
	held    []byte    // a held word line
	heldOff int64
	lbl     *label      // a held harness label line (label.go); made when first needed
	tail    *textTail   // the last text, when bare arguments may follow it (bareargs.go)
	hdrSink *headerSink // holds a plain-text harmony header (harmonytext.go)
	probe   *probe      // made when first needed
	textOff int64       // input offset of the text being handled

	// runaway detection
	txtOpen   *textOpens // made when first needed (textopen.go)
	lastCall  uint64
	openers   int32 // call openers since the last call closer
	strays    int32 // stray closers in a row (int32s side by side: an idle parser stays small)
	repeats   int32
	callCount int32
}

// New returns a machine that reports to sink.
func New(opt Options, sink Sink) *Machine {
	opt.withDefaults()
	m := &Machine{opt: opt, ix: newIndex(&opt), atLine: true}
	m.left = newLeftSink(sink, m)
	m.loop = newLoopHold(m.left, &opt)
	m.sink = &m.loop
	m.call.loose = -1
	m.lex.Prefilter(shortPaths) // shortpaths.go
	m.fresh = m.opt.nameLine() != nil
	m.watchProse()
	m.watchHeaders()
	if h, _ := lookup(harmonyDialect); m.ix.on.has(int(h.id)) {
		m.wl = wlHeader // the stream may start with a harmony header without its <|start|> (harmonylead.go)
	}
	m.plain = false // the first Write makes the guard (guard.go)
	return m
}

// Holding reports how many input bytes are held back and not yet reported:
// a possible marker, the markup in progress, calls held as a possible
// loop, a possible opener's word or word line, a harness label.
func (m *Machine) Holding() int {
	n := m.word.holding() + m.lex.Holding() + len(m.buf) + m.loop.holding() + m.hdrSink.heldLen() + m.left.heldLen()
	if m.wl != wlNone {
		n += len(m.held)
	}
	if m.labelHeld() {
		n += len(m.lbl.held)
	}
	return n
}

// discardStopped reports input after a runaway, which is no longer
// tokenized, as discards that never end inside a UTF-8 sequence.
func (m *Machine) discardStopped(p []byte, atEOF bool) {
	if m.due { // a short path stopped at the guard: its runaway first
		m.sink.Runaway(nil, RunawayRepetition)
		m.due = false
	}
	if held := m.lex.Drain(); len(held) > 0 {
		m.scratch = append(m.scratch, held...)
	}
	if len(m.scratch) > 0 {
		m.scratch = append(m.scratch, p...)
		p = m.scratch
	}
	n := len(p)
	if !atEOF {
		n = lexer.CompleteUTF8(p)
	}
	if n > 0 {
		m.sink.Discard(p[:n], DiscardAfterRunaway)
	}
	m.scratch = append(m.scratch[:0], p[n:]...) // p may be scratch: append moves safely
}

// Write consumes the next chunk of content.
func (m *Machine) Write(p []byte) {
	if m.lex.Guard() == nil {
		m.startGuard()
	}
	if m.kept != nil {
		m.restore()
	}
	m.flushWord()
	if m.lv == lvValue && m.writeValue(p) || m.writeJSONString(p) { // plain.go, jsonfast.go
		m.streamArgs()
		m.checkLevel()
		return
	}
	m.flushJSON()
	m.write(p)
	m.streamArgs()
	m.plain = m.idle()
	m.checkLevel()
}

func (m *Machine) write(p []byte) {
	if m.lv == lvStopped {
		m.discardStopped(p, false)
		return
	}
	if held, n, ok := m.writePlain(p); ok {
		if held != nil {
			m.sink.Text(held)
		}
		if n > 0 {
			m.sink.Text(p[:n])
		}
		if m.lv == lvStopped { // the guard fired in p: the rest is the loop's
			m.discardStopped(p[n:], false)
		}
		return
	}
	if shortPaths && len(p) > 0 && !hasAny(p, &markerStart) && m.lex.Idle() && p[len(p)-1] < utf8.RuneSelf { // one text token: the lexer would return p whole
		off := m.lex.Offset()
		m.watchLines()
		m.lex.Skip(p)
		m.textToken(p, off)
		return
	}
	m.lex.Feed(p)
	for {
		m.watchLines()
		t, ok := m.lex.Next(false)
		if !ok {
			return
		}
		m.token(t)
	}
}

// Close ends the stream: held-back bytes are resolved and open markup is
// closed (calls carry closed_at_eof).
func (m *Machine) Close() {
	if m.kept != nil {
		m.restore()
	}
	m.flushWord()
	m.flushJSON()
	m.close()
	m.plain = false
	m.checkLevel()
}

func (m *Machine) close() {
	if m.lv == lvStopped {
		m.discardStopped(nil, true)
		return
	}
	m.lex.Feed(nil)
	for {
		m.watchLines()
		t, ok := m.lex.Next(true)
		if !ok {
			break
		}
		if t.Kind == lexer.Text && m.cutMarker(t) { // cutmarker.go
			m.dropCut(t.Raw)
			continue
		}
		m.token(t)
	}
	m.eof()
	m.endThink()
	m.releaseHeader()
	m.loop.release() // the end of input: no loop
	m.left.flush()
}

func (m *Machine) token(t *lexer.Token) {
	if t.Kind == lexer.Text {
		if t.Has(lexer.Overflow) && m.lex.InBlock() && m.lv != lvStopped {
			m.runaway(RunawayCallTooLarge) // a tool element's attributes outgrew the cap
		}
		m.textToken(t.Raw, t.Offset)
		return
	}
	m.marker(t)
	m.prev = t.Raw[len(t.Raw)-1]
	if m.guardFired() {
		m.repetition(0)
	}
}

// marker handles a token other than text.
func (m *Machine) marker(t *lexer.Token) {
	m.fresh = false
	m.backToThink(t)
	if m.lv != lvText {
		m.texts().inside(t)
	}
	if m.lv == lvProbe && m.tagInProbe(t) {
		return
	}
	if m.pend.active && m.lv != lvStopped {
		if m.pend.seg >= 0 {
			m.judgePending()
		} else {
			m.decide(t, nil, false)
		}
	}
	if m.lv == lvCall && m.call.slot == slotFused {
		m.settleFused(t)
	}
	if m.seg.active && (m.lv == lvBlock || m.lv == lvCall) && !m.nameKeySegment(t) {
		m.closeSegment(len(m.buf))
	}
	switch m.lv {
	case lvText:
		m.tagInText(t)
	case lvThink:
		m.tagInThink(t)
	case lvStopped:
		m.sink.Discard(t.Raw, DiscardAfterRunaway)
	default:
		if !m.add(t.Raw) {
			return
		}
		m.tagInMarkup(t)
	}
	m.settle()
}

// text handles a run of content bytes. Handlers consume a prefix and may
// change state; the rest goes to the handler of the new state. A handler
// that consumes nothing must change state, and only a few such steps may
// follow each other: anything else would be a bug (no progress). It is
// reported as an error event, which the tests fail on, and a byte is taken
// as it stands so that the machine still moves on.
func (m *Machine) text(b []byte) {
	idle := 0
	for len(b) > 0 {
		m.backToThink(nil)
		before := m.progress()
		var n int
		switch {
		case m.lv == lvStopped:
			m.sink.Discard(b, DiscardAfterRunaway)
			n = len(b)
		case m.pend.active:
			n = m.textPending(b)
		default:
			switch m.lv {
			case lvText:
				n = m.textInText(b)
			case lvThink:
				m.sink.Reasoning(b, b)
				n = len(b)
			case lvBlock, lvCall:
				n = m.textLoose(b)
			case lvValue:
				n = m.textInValue(b)
			case lvJSON:
				n = m.textInJSON(b)
			case lvProbe:
				n = m.textInProbe(b)
			case lvPy:
				n = m.textInPy(b)
			case lvLoose:
				n = m.textInLoose(b)
			case lvHash:
				n = m.textInHash(b)
			}
		}
		idle++
		if n > 0 {
			idle = 0
			m.prev = b[n-1]
		} else if idle == maxIdleSteps || m.progress() == before {
			m.sink.Error(ErrNoProgress, m.textOff)
			n = m.takeStuck(b[:1])
			idle = 0
			m.prev = b[0]
		}
		m.settle()
		b = b[n:]
		m.textOff += int64(n)
	}
}

// ErrNoProgress is the message of the error event for a handler that made
// no progress: a bug in the machine, never expected.
const ErrNoProgress = "internal error: the state machine made no progress"

// maxIdleSteps bounds the steps in a row that consume nothing; each must
// change the state, and there are few states a run of them can pass.
const maxIdleSteps = 8

// progress is the part of the state that a step consuming nothing changes.
// A step that reports held bytes (bufOff moves on) leaves its state behind
// even when it takes no input: a JSON body that fails on the byte after a
// chunk boundary ends its call, and the byte may start the next body.
type progress struct {
	lv           level
	pend, seg    bool
	wl           wordLine
	jheld, loose int
	named        bool
	reported     int64
	// done: a JSON body that failed on its first byte completes the call's
	// body, and the byte then starts a repeated value afresh (skipped): the
	// same level as before, but not the same state.
	done     bool
	jstarted bool // a fresh JSON scanner is a new state
}

func (m *Machine) progress() progress {
	return progress{lv: m.lv, pend: m.pend.active, seg: m.seg.active, wl: m.wl,
		jheld: m.jheld, loose: m.call.loose, named: m.call.hdr.named, reported: m.bufOff, done: m.call.done,
		jstarted: m.json != nil && m.json.Started()}
}

func hasAny(p []byte, set *[256]bool) bool {
	for _, c := range p {
		if set[c] {
			return true
		}
	}
	return false
}

// takeStuck accounts for a byte no handler would take: markup in a unit,
// text outside.
func (m *Machine) takeStuck(b []byte) int {
	switch m.lv {
	case lvText:
		m.emitText(b)
	case lvThink:
		m.sink.Reasoning(b, b)
	case lvStopped:
		m.sink.Discard(b, DiscardAfterRunaway)
	default:
		m.add(b)
	}
	return len(b)
}

// add appends markup bytes to the buffer, enforcing the cap. It reports
// false when the cap was hit and the machine stopped.
func (m *Machine) add(b []byte) bool {
	if len(m.buf)+len(b) > m.opt.MaxCall {
		m.buf = append(m.buf, b...)
		m.runaway(RunawayCallTooLarge)
		return false
	}
	if len(m.buf)+len(b) > cap(m.buf) {
		m.grow(len(b)) // callbuf.go
	}
	n := len(m.buf)
	m.buf = m.buf[:n+len(b)] // not append: no write barrier for the same array
	copy(m.buf[n:], b)
	return true
}

// addRoom adds b when buf has room for it, without a call (it inlines),
// and reports whether it did; the caller has checked the cap and calls
// add otherwise.
func (m *Machine) addRoom(b []byte) bool {
	n := len(m.buf)
	if n+len(b) > cap(m.buf) {
		return false
	}
	m.buf = m.buf[:n+len(b)]
	copy(m.buf[n:], b)
	return true
}

// ---- text level ----

func (m *Machine) textInText(b []byte) int {
	if m.fresh && m.startsOutput(b) {
		return 0
	}
	if m.wl != wlNone {
		return m.textWordLine(b)
	}
	if m.labelHeld() || m.startsLabel(b) {
		return m.textLabel(b)
	}
	if m.anchorsLabels() {
		b = beforeLabelLine(b) // anchor.go
	}
	if m.code == codeSpan {
		if i := indexByte(b, '\n'); i >= 0 {
			m.code = codeNone
			m.sink.Text(b[:i+1])
			return i + 1
		}
	}
	if m.strays > 0 && !isBlank(b) {
		m.strays = 0
	}
	if m.code == codeFence && m.fence.line > 0 {
		if k := m.fenceLine(b); k > 0 {
			m.emitText(b[:k])
			return k
		}
	}
	if m.code == codeFence {
		if k := m.fence.text(b); k > 0 {
			m.emitText(b[:k])
			return k
		}
		if m.fenceBodyStart(b) { // b[0] begins a fence's body (toolcode.go)
			return 0
		}
	}
	if i, kind := m.openerAt(b); i >= 0 {
		line := m.atLine
		if i > 0 {
			line = b[i-1] == '\n'
		}
		m.emitText(b[:i])
		m.startProbe(m.textOff+int64(i), line)
		switch kind {
		case atBare, atBareLine:
			m.startBare(kind == atBareLine)
		case atLineCall:
			m.startLineCall()
		}
		return i
	}
	if m.code == codeNone {
		if n := m.holdBracket(b); n < len(b) { // childtags.go
			m.emitText(b[:n])
			return len(b)
		}
		if n := m.holdWordLine(b); n < len(b) {
			m.emitText(b[:n])
			return len(b)
		}
	}
	m.emitText(b)
	return len(b)
}

func (m *Machine) emitText(b []byte) {
	if len(b) > 0 {
		m.atLine = b[len(b)-1] == '\n'
		if m.openers > 0 && !isBlank(b) {
			m.openers = 0 // prose between openers: they were not a loop's
		}
		m.sink.Text(b)
	}
}

// guarded handles code spans and fences: markup inside them is text.
func (m *Machine) guarded(t *lexer.Token) bool {
	if m.opt.MarkupInCode || m.code == codeFence && m.fence.phase == fLead && m.fenceCall(t) { // fencecall.go
		return false
	}
	switch m.code {
	case codeNone:
		if t.Kind != lexer.Backticks {
			return false
		}
		if t.Count >= 3 && t.Has(lexer.LineStart) {
			m.code = codeFence
			m.fence.open()
		} else {
			m.code = codeSpan
		}
		m.ticks = int32(min(t.Count, math.MaxInt32))
	case codeSpan:
		if t.Kind == lexer.Backticks && t.Count == int(m.ticks) {
			m.code = codeNone
		}
	case codeFence:
		if t.Kind == lexer.Backticks && t.Count >= 3 && t.Has(lexer.LineStart) {
			m.fence.line = int32(min(t.Count, math.MaxInt32)) // its line decides (fencenest.go)
		} else if !m.fenceLineEnds(t) { // fenceline.go
			m.fence.nested()
			m.fence.token()
		}
	}
	return true
}

func (m *Machine) tagInText(t *lexer.Token) {
	if m.labelHeld() && m.labelTag(t) || m.nameTagLabel(t) { // label.go, nametag.go
		return
	}
	if m.wl == wlHeader && m.leadHeader(t) || m.wl == wlWord && m.wordKeyCall(t) { // harmonylead.go, wordkey.go
		return
	}
	r, cands, variants := m.roleAtText(t)
	bracket := m.wl == wlBracket && t.Has(lexer.Sentinel) && (r == rBlockOpen || r == rCallOpen || r == rStrayClose)
	if m.wl != wlNone && !bracket && (m.wl != wlLine || r != rCallOpen || cands&declTag != 0 || m.code != codeNone) {
		m.flushHeld()
	}
	m.atLine = false
	if m.guarded(t) || t.Kind == lexer.Backticks {
		m.sink.Text(t.Raw)
		return
	}
	if (r == rBlockOpen || r == rCallOpen) && m.foreignOpener(t) { // a document's element (foreign.go)
		m.texts().opened(t)
		m.sink.Text(t.Raw)
		return
	}
	switch r {
	case rBlockOpen:
		m.strays = 0
		if t.Kind == lexer.Special {
			m.openSpecial(t, cands, variants)
			return
		}
		if !m.begin(t) {
			return
		}
		m.foldBracket(bracket)
		m.openBlock(t, cands, variants)
		if m.blk.spec != nil && m.blk.spec.shape == shAttrJSON {
			m.lex.EnterBlock(m.opt.MaxCall) // the arguments are an attribute: it may hold '<' and newlines
		}
	case rCallOpen:
		m.strays = 0
		if !m.begin(t) {
			return
		}
		m.foldBracket(bracket)
		if m.wl == wlLine { // the word line was the mangled wrapper
			m.buf = append(append(m.buf[:0], m.held...), t.Raw...)
			m.bufOff = m.heldOff
			m.wl = wlNone
		}
		s := choose(cands, t.Marker, t.Has(lexer.DSML), shNone)
		if s == nil { // an argument element in the name's slot (slots.go)
			s = choose(cands, lexer.Unknown, t.Has(lexer.DSML), shNone)
		}
		m.blk = block{cands: cands, spec: s, implicit: true}
		var rep Repairs
		if s.wrapped() { // its wrapper is missing
			rep = RMissingOpener
		}
		m.openCall(t, s, rep)
	case rThinkOpen:
		m.lv = lvThink
		m.sink.Reasoning(nil, t.Raw)
	case rStrayClose:
		if m.txtOpen != nil && m.txtOpen.closes(t) || !bracket && m.mentioned(t) { // it closes an element that was text, or a sentence names it (mention.go)
			m.sink.Text(t.Raw)
			return
		}
		reason := DiscardOrphanCloser
		if !t.Has(lexer.Closing) {
			reason = DiscardStrayToken // a token, or a framing opener (<|open|>response<|sep|>)
		}
		raw := t.Raw
		if bracket { // `]<]minimax[>[` alone
			m.wl = wlNone
			raw = append(bytes.Clone(m.held), raw...)
		}
		m.sink.Discard(raw, reason)
		m.strays++
		if int(m.strays) > m.opt.Runaway.StrayClosers {
			m.stop()
			m.sink.Runaway(nil, RunawayStrayClosers)
		}
	default:
		m.texts().opened(t)
		m.exampleTag(t)
		m.sink.Text(t.Raw)
	}
}

// openBlock opens a wrapper of one of the dialects cands.
func (m *Machine) openBlock(t *lexer.Token, cands, variants dset) {
	m.blk = block{cands: cands, variants: variants, spec: cands.only(), open: infoOf(t), openLen: uint8(min(len(t.Raw), 255)), inline: !t.Has(lexer.LineStart)}
	m.lv = lvBlock
}

// begin starts a unit of markup with the opener t. It reports false when
// the opener alone outgrew the call cap: the machine stopped.
func (m *Machine) begin(t *lexer.Token) bool {
	m.buf = append(m.buf[:0], t.Raw...)
	m.bufOff = t.Offset
	m.texts().begin(t)
	m.names = m.names[:0]
	m.seg = segment{}
	if len(m.buf) > m.opt.MaxCall {
		m.runaway(RunawayCallTooLarge)
		return false
	}
	return true
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}
