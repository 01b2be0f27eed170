package toolsieve

// Provider stream models: which API a request or a response speaks, the
// few fields of OpenAI chat-completion and Anthropic Messages JSON that the
// rewriter reads and edits, and how each API's streams and whole responses
// are rewritten (oaStream, anStream, rewriteOpenAIDoc, rewriteAnthropicDoc).
//
// The JSON is never decoded into structs and re-encoded: the rewriter finds
// the byte spans of the fields it needs (content, finish_reason, index, ...)
// and splices new values into the original bytes, so that unknown fields,
// key order and number formats reach the client exactly as the provider sent
// them. A document is checked with json.Valid first; after that the span
// scanner below can assume well-formed JSON.

import (
	"bytes"
	"encoding/json"
	"github.com/toolsieve/toolsieve/emitter"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolsieve/toolsieve/sse"
)

// API is the wire dialect of a chat endpoint.
type API uint8

// The APIs the rewriter understands.
const (
	// APIAuto detects the API from the first event or document.
	APIAuto API = iota
	// APIOpenAI is OpenAI chat completions (POST .../chat/completions).
	APIOpenAI
	// APIAnthropic is Anthropic Messages (POST .../messages).
	APIAnthropic
)

func (a API) String() string {
	switch a {
	case APIOpenAI:
		return "openai"
	case APIAnthropic:
		return "anthropic"
	}
	return "auto"
}

// ParseAPI maps "openai", "anthropic" and "auto" (or "") to an API.
func ParseAPI(s string) (API, bool) {
	switch strings.ToLower(s) {
	case "", "auto":
		return APIAuto, true
	case "openai":
		return APIOpenAI, true
	case "anthropic":
		return APIAnthropic, true
	}
	return APIAuto, false
}

// APIForPath tells which chat API a request path belongs to: paths ending in
// /chat/completions are OpenAI, paths ending in /messages are Anthropic.
// Everything else (models, embeddings, count_tokens, batches) is not a chat
// response to rewrite: ok is false.
func APIForPath(path string) (api API, ok bool) {
	path = strings.TrimRight(path, "/")
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return APIOpenAI, true
	case strings.HasSuffix(path, "/messages"):
		return APIAnthropic, true
	}
	return APIAuto, false
}

// detectEventAPI guesses the API of a stream from one of its events: the
// Anthropic event names, or a JSON body with "choices" (OpenAI) or a "type"
// of one of the Messages stream events (Anthropic).
func detectEventAPI(typ string, data []byte) API {
	switch typ {
	case "message_start", "content_block_start", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop":
		return APIAnthropic
	}
	if !json.Valid(data) {
		return APIAuto
	}
	ms, ok := objectMembers(data, 0, nil)
	if !ok {
		return APIAuto
	}
	if _, ok := lookup(data, ms, "choices"); ok {
		return APIOpenAI
	}
	if m, ok := lookup(data, ms, "type"); ok {
		switch string(stringValue(data, m)) {
		case "message_start", "content_block_start", "content_block_delta", "content_block_stop",
			"message_delta", "message_stop", "message":
			return APIAnthropic
		}
	}
	return APIAuto
}

// ---- JSON spans ----

// member is one member of a JSON object: the raw bytes of its key (between
// the quotes, escapes not decoded) and the span [vs, ve) of its value.
type member struct {
	key    []byte
	ks     int // offset of the key's opening quote
	vs, ve int
}

// span is the byte range [s, e) of a JSON value.
type span struct{ s, e int }

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipWS(b []byte, i int) int {
	for i < len(b) && isWS(b[i]) {
		i++
	}
	return i
}

// skipString returns the offset just past the string that starts at b[i]
// (a quote), or -1.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the offset just past the value that starts at b[i], or
// -1. Containers are skipped by counting brackets outside strings, which is
// exact for valid JSON.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; c {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipString(b, j)
				if j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	default:
		j := i
		for j < len(b) && !isWS(b[j]) && b[j] != ',' && b[j] != '}' && b[j] != ']' {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}

// objectMembers lists the members of the object whose value starts at or
// after b[i] (leading whitespace allowed), appending to dst.
func objectMembers(b []byte, i int, dst []member) ([]member, bool) {
	i = skipWS(b, i)
	if i >= len(b) || b[i] != '{' {
		return dst, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return dst, true
	}
	for i < len(b) {
		if b[i] != '"' {
			return dst, false
		}
		ke := skipString(b, i)
		if ke < 0 {
			return dst, false
		}
		m := member{key: b[i+1 : ke-1], ks: i}
		i = skipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return dst, false
		}
		i = skipWS(b, i+1)
		m.vs = i
		m.ve = skipValue(b, i)
		if m.ve < 0 {
			return dst, false
		}
		dst = append(dst, m)
		i = skipWS(b, m.ve)
		if i >= len(b) {
			return dst, false
		}
		if b[i] == '}' {
			return dst, true
		}
		if b[i] != ',' {
			return dst, false
		}
		i = skipWS(b, i+1)
	}
	return dst, false
}

// arrayElems lists the element spans of the array that starts at b[i].
func arrayElems(b []byte, i int, dst []span) ([]span, bool) {
	i = skipWS(b, i)
	if i >= len(b) || b[i] != '[' {
		return dst, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return dst, true
	}
	for i < len(b) {
		e := skipValue(b, i)
		if e < 0 {
			return dst, false
		}
		dst = append(dst, span{i, e})
		i = skipWS(b, e)
		if i >= len(b) {
			return dst, false
		}
		if b[i] == ']' {
			return dst, true
		}
		if b[i] != ',' {
			return dst, false
		}
		i = skipWS(b, i+1)
	}
	return dst, false
}

// lookup finds the member named key (keys with escapes never match, which
// no provider writes for the fields we read).
func lookup(b []byte, ms []member, key string) (member, bool) {
	for _, m := range ms {
		if string(m.key) == key {
			return m, true
		}
	}
	return member{}, false
}

// isString reports whether the member's value is a JSON string.
func isString(b []byte, m member) bool { return m.ve > m.vs && b[m.vs] == '"' }

// isNull reports whether the member's value is null.
func isNull(b []byte, m member) bool { return string(b[m.vs:m.ve]) == "null" }

// stringValue returns the raw (still escaped) bytes inside a string value,
// or nil when the value is not a string.
func stringValue(b []byte, m member) []byte {
	if !isString(b, m) {
		return nil
	}
	return b[m.vs+1 : m.ve-1]
}

// intValue reads an integer member; ok is false for anything else.
func intValue(b []byte, m member) (int, bool) {
	n, err := strconv.Atoi(string(b[m.vs:m.ve]))
	return n, err == nil
}

// appendUnquoted appends the decoded bytes of the JSON string literal lit
// (quotes included) to dst. Invalid UTF-8 is kept as is, so that a provider
// that splits a character across two deltas gets it back whole.
func appendUnquoted(dst, lit []byte) []byte {
	if len(lit) < 2 {
		return dst
	}
	s := lit[1 : len(lit)-1]
	for len(s) > 0 {
		k := bytes.IndexByte(s, '\\')
		if k < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:k]...)
		s = s[k:]
		if len(s) < 2 {
			return dst
		}
		c := s[1]
		s = s[2:]
		switch c {
		case 'n':
			dst = append(dst, '\n')
		case 't':
			dst = append(dst, '\t')
		case 'r':
			dst = append(dst, '\r')
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'u':
			r, n := hex4(s)
			if n == 0 {
				dst = append(dst, "\\u"...)
				continue
			}
			s = s[n:]
			if r >= 0xD800 && r < 0xDC00 && len(s) >= 6 && s[0] == '\\' && s[1] == 'u' {
				if r2, n2 := hex4(s[2:]); n2 > 0 && r2 >= 0xDC00 && r2 < 0xE000 {
					r = 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00)
					s = s[6:]
				}
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/'
			dst = append(dst, c)
		}
	}
	return dst
}

func hex4(s []byte) (rune, int) {
	if len(s) < 4 {
		return 0, 0
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, 0
		}
	}
	return r, 4
}

// appendQuoted appends s as a JSON string literal. Like the providers, it
// does not escape <, > and &. Bytes that are not valid UTF-8 are copied as
// they are (see appendUnquoted).
func appendQuoted[T string | []byte](dst []byte, s T) []byte { return emitter.AppendStringAsIs(dst, s) }

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

// ---- splicing ----

// edit replaces b[s:e] of a document with repl.
type edit struct {
	s, e int
	repl []byte
}

// splice appends doc with the edits applied to dst. Edits must be sorted by
// offset and must not overlap.
func splice(dst, doc []byte, edits []edit) []byte {
	at := 0
	for _, ed := range edits {
		dst = append(dst, doc[at:ed.s]...)
		dst = append(dst, ed.repl...)
		at = ed.e
	}
	return append(dst, doc[at:]...)
}

// sortEdits orders edits by offset (insertion sort: there are a handful).
func sortEdits(es []edit) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && es[j].s < es[j-1].s; j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

// insertMember returns the edit that adds `"key":value` to the object whose
// members are ms and whose closing brace is at b[end-1].
func insertMember(ms []member, end int, key string, value []byte) edit {
	var r []byte
	if len(ms) > 0 {
		r = append(r, ',')
	}
	r = appendQuoted(r, key)
	r = append(r, ':')
	r = append(r, value...)
	return edit{s: end - 1, e: end - 1, repl: r}
}

// ---- call encodings ----

// callOut is one recovered call as the rewriter sends it.
type callOut struct {
	id, name string
	args     []byte // a JSON object
}

// appendOpenAICall appends an OpenAI tool call object; with index >= 0 it
// is a stream delta entry (with "index"), otherwise a message entry.
func appendOpenAICall(dst []byte, index int, c callOut) []byte {
	dst = append(dst, '{')
	if index >= 0 {
		dst = append(dst, `"index":`...)
		dst = strconv.AppendInt(dst, int64(index), 10)
		dst = append(dst, ',')
	}
	dst = append(dst, `"id":`...)
	dst = appendQuoted(dst, c.id)
	dst = append(dst, `,"type":"function","function":{"name":`...)
	dst = appendQuoted(dst, c.name)
	dst = append(dst, `,"arguments":`...)
	dst = appendQuoted(dst, c.args)
	return append(dst, "}}"...)
}

// appendToolUse appends an Anthropic tool_use content block; with input
// false the input is {} (the start event of a streamed block).
func appendToolUse(dst []byte, c callOut, input bool) []byte {
	dst = append(dst, `{"type":"tool_use","id":`...)
	dst = appendQuoted(dst, anthropicID(c.id))
	dst = append(dst, `,"name":`...)
	dst = appendQuoted(dst, c.name)
	dst = append(dst, `,"input":`...)
	if input {
		dst = append(dst, c.args...)
	} else {
		dst = append(dst, "{}"...)
	}
	return append(dst, '}')
}

// anthropicID makes a call id fit Anthropic's id pattern ^[a-zA-Z0-9_-]+$
// (ids such as kimi's "functions.get_weather:0" do not).
func anthropicID(id string) string {
	ok := id != ""
	for i := 0; i < len(id) && ok; i++ {
		c := id[i]
		ok = c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	if ok {
		return id
	}
	b := []byte(id)
	for i, c := range b {
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "toolu_0"
	}
	return string(b)
}

// callArgs returns a call event's arguments, {} when empty.
func callArgs(e *Event) []byte {
	if len(e.Arguments) == 0 {
		return []byte("{}")
	}
	return e.Arguments
}

// keepsFinish reports finish reasons that stay as they are when calls were
// recovered: they say something the client must know (the output was cut,
// filtered or refused). Any other reason (stop, end_turn, stop_sequence,
// provider-specific ones) becomes tool_calls / tool_use.
func keepsFinish(reason []byte) bool {
	switch string(reason) {
	case "length", "content_filter", "tool_calls", "function_call",
		"max_tokens", "tool_use", "refusal", "pause_turn", "model_context_window_exceeded":
		return true
	}
	return false
}

// isBlank reports text that is only whitespace.
func isBlank(b []byte) bool {
	for _, c := range b {
		if !isWS(c) {
			return false
		}
	}
	return true
}

// ---- text feeding: shared by the OpenAI and Anthropic streams ----

// textChan is the state of one upstream content stream that text goes
// through: an OpenAI choice or an Anthropic text block.
type textChan struct {
	p     *Parser
	carry []byte // an incomplete UTF-8 sequence moved to the next delta
	q     textQueue
}

// textSink is what the shared feeding code needs of a stream: the sink
// methods for its current content stream, and original, which sends a held
// upstream event of that content stream with its text unchanged.
type textSink interface {
	sink
	original(qe *queued)
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
	clean       bool   // only text came out of the parser so far
	direct      queued // scratch for hold's event that is not queued (no allocation per event)
}

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
func (f *textFeed) process(s textSink, c *textChan, evs []Event) (stop bool) {
	if f.clean {
		if allText(evs) {
			for i := range evs {
				f.tb = append(f.tb, evs[i].Text...)
			}
			return false
		}
		f.clean = false
		f.materialize(s, c)
		f.startRun(c, f.tb)
	}
	return f.w.runs(evs, s, &f.kind, &f.run)
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
func (f *textFeed) hold(s textSink, c *textChan, ev *sse.Event, content []byte, idx member) {
	if c.q.push(ev, content, f.tb, idx) {
		f.direct = queued{raw: ev.Raw, data: ev.Data, content: content, idx: idx}
		s.original(&f.direct)
		f.direct = queued{}
	} else {
		n := c.q.ready()
		for i := range n {
			s.original(&c.q.evs[i])
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

// ---- OpenAI chat completion streams ----

// oaStream rewrites an OpenAI chat.completion.chunk stream.
type oaStream struct {
	textFeed
	choices []*oaChoice
	tmpl    []byte // the last chunk's top-level members but choices and usage, as `{...,`
	typ     string // the SSE event name the upstream uses (normally none)
	cur     *oaChoice

	ms, cms, dms, tms, fms []member
	els, tels              []span
	edits                  []edit
	tmp                    []byte
}

// maxChoices bounds the choices tracked per stream (the API allows 128).
const maxChoices = 128

// oaChoice is the state of one choice of the stream.
type oaChoice struct {
	textChan
	index    int
	closed   bool // finished: the parser is closed
	calls    int  // recovered calls
	nextTool int  // next tool_calls index of the output
	native   []*nativeCall
}

// nativeCall is a tool call the upstream sent natively. Its arguments pass
// through, unless they start with markup: then they are held until the
// call ends and sent as the JSON that ArgumentsFromMarkup makes of them.
type nativeCall struct {
	up, out int
	name    []byte
	mode    uint8
	buf     []byte
}

const (
	argsUndecided uint8 = iota
	argsJSON
	argsMarkup
	argsDone
)

func (s *oaStream) choice(i int) *oaChoice {
	if i < 0 || i >= maxChoices {
		return nil
	}
	for len(s.choices) <= i {
		s.choices = append(s.choices, nil)
	}
	if s.choices[i] == nil {
		s.choices[i] = &oaChoice{index: i, textChan: textChan{p: s.w.newParser(false, i)}}
	}
	return s.choices[i]
}

// event rewrites one data event.
func (s *oaStream) event(ev *sse.Event) {
	w := s.w
	data := ev.Data
	if string(bytes.TrimSpace(data)) == "[DONE]" {
		s.finish(false)
		w.out = append(w.out, ev.Raw...)
		return
	}
	if !w.validEvent(ev) {
		return
	}
	var ok bool
	s.ms, ok = objectMembers(data, 0, s.ms[:0])
	cm, has := lookup(data, s.ms, "choices")
	if !ok || !has {
		w.out = append(w.out, ev.Raw...) // usage, error or other chunk without choices
		return
	}
	s.els, ok = arrayElems(data, cm.vs, s.els[:0])
	if !ok || len(s.els) == 0 {
		w.out = append(w.out, ev.Raw...)
		return
	}
	s.typ = ev.Type
	s.setTemplate(data)
	s.edits = s.edits[:0]
	queued := false
	for _, el := range s.els {
		if w.stopped {
			break
		}
		queued = s.choiceDelta(ev, data, el, len(s.els) == 1)
	}
	if !queued {
		w.emitEdited(ev, s.edits)
	}
	if w.stopped {
		s.finish(true)
	}
}

// validEvent reports whether the data of a stream event is JSON; a
// malformed event is reported and passed through.
func (w *streamRewriter) validEvent(ev *sse.Event) bool {
	if json.Valid(ev.Data) {
		return true
	}
	w.reportError("malformed JSON in a stream event; passed through", ev.Offset)
	w.out = append(w.out, ev.Raw...)
	return false
}

// setTemplate keeps the chunk's top-level members, but choices and usage,
// for the chunks the rewriter makes up.
func (s *oaStream) setTemplate(data []byte) {
	s.tmpl = append(s.tmpl[:0], '{')
	for _, m := range s.ms {
		switch string(m.key) {
		case "choices", "usage":
			continue
		}
		s.tmpl = append(s.tmpl, data[m.ks:m.ve]...)
		s.tmpl = append(s.tmpl, ',')
	}
}

// synth emits a made-up chunk for choice ch with the given delta object.
func (s *oaStream) synth(ch *oaChoice, delta []byte, finish string) {
	w := s.w
	d := append(w.data[:0], s.tmpl...)
	d = append(d, `"choices":[{"index":`...)
	d = strconv.AppendInt(d, int64(ch.index), 10)
	d = append(d, `,"delta":`...)
	d = append(d, delta...)
	d = append(d, `,"logprobs":null,"finish_reason":`...)
	if finish == "" {
		d = append(d, "null"...)
	} else {
		d = appendQuoted(d, finish)
	}
	d = append(d, "}]}"...)
	w.data = d
	w.emitEvent(s.typ, d)
}

// sink methods: runs and calls of the current choice become chunks.

func (s *oaStream) text(b []byte) {
	s.tmp = appendQuoted(append(s.tmp[:0], `{"content":`...), b)
	s.tmp = append(s.tmp, '}')
	s.synth(s.cur, s.tmp, "")
}

func (s *oaStream) reasoning(b []byte) {
	s.tmp = appendQuoted(append(s.tmp[:0], `{"reasoning_content":`...), b)
	s.tmp = append(s.tmp, '}')
	s.synth(s.cur, s.tmp, "")
}

func (s *oaStream) call(e *Event) {
	ch := s.cur
	s.tmp = append(s.tmp[:0], `{"tool_calls":[`...)
	s.tmp = appendOpenAICall(s.tmp, ch.nextTool, callOut{id: e.ID, name: e.Name, args: callArgs(e)})
	s.tmp = append(s.tmp, "]}"...)
	ch.nextTool++
	ch.calls++
	s.synth(ch, s.tmp, "")
}

// choiceDelta handles one element of a chunk's choices array.
func (s *oaStream) choiceDelta(ev *sse.Event, data []byte, el span, single bool) (held bool) {
	var ok bool
	s.cms, ok = objectMembers(data, el.s, s.cms[:0])
	if !ok {
		return false
	}
	idx := 0
	if m, has := lookup(data, s.cms, "index"); has {
		if idx, ok = intValue(data, m); !ok {
			return false
		}
	}
	ch := s.choice(idx)
	if ch == nil || ch.closed {
		return false
	}
	s.cur = ch
	s.begin()
	s.in = s.in[:0]

	dm, hasDelta := lookup(data, s.cms, "delta")
	contentM, toolsM := member{vs: -1}, member{vs: -1}
	if hasDelta {
		if s.dms, ok = objectMembers(data, dm.vs, s.dms[:0]); !ok {
			hasDelta = false
		}
	}
	if hasDelta {
		if m, has := lookup(data, s.dms, "content"); has && isString(data, m) {
			contentM = m
		}
		if m, has := lookup(data, s.dms, "tool_calls"); has && !isNull(data, m) {
			toolsM = m
		}
	}
	fm, hasFinish := lookup(data, s.cms, "finish_reason")
	finishing := hasFinish && isString(data, fm)

	if contentM.vs >= 0 {
		s.in = appendUnquoted(s.in, data[contentM.vs:contentM.ve])
		if s.process(s, &ch.textChan, ch.p.Feed(s.in)) {
			// A runaway: what came before it went out in chunks of its own.
			s.edits = append(s.edits, edit{contentM.vs, contentM.ve, []byte(`""`)})
			return false
		}
	}
	if finishing && s.process(s, &ch.textChan, ch.p.Close()) {
		return false
	}
	if s.clean {
		// Only text came out: the upstream events can go out as they are
		// once all their content has been released.
		if single && !finishing && toolsM.vs < 0 && contentM.vs >= 0 && len(ch.carry) == 0 && wholeChars(s.in) {
			s.hold(s, &ch.textChan, ev, s.in, member{})
			return true
		}
		s.settle(s, &ch.textChan, s.in, true)
	}
	if toolsM.vs >= 0 {
		s.nativeCalls(ch, data, toolsM)
	}
	if finishing {
		s.endNative(ch, -1)
		ch.closed = true
		if ch.calls > 0 && !keepsFinish(stringValue(data, fm)) {
			s.edits = append(s.edits, edit{fm.vs, fm.ve, []byte(`"tool_calls"`)})
		}
	}
	run := s.lastRun(s, &ch.textChan, finishing)
	switch {
	case contentM.vs >= 0:
		if !bytes.Equal(run, s.in) {
			s.edits = append(s.edits, edit{contentM.vs, contentM.ve, s.w.keepQuoted(run)})
		}
	case len(run) > 0 && hasDelta:
		s.edits = append(s.edits, insertMember(s.dms, dm.ve, "content", appendQuoted(nil, run)))
	case len(run) > 0:
		s.text(run)
	}
	return false
}

// original sends a held chunk of the current choice as it came.
func (s *oaStream) original(qe *queued) { s.w.out = append(s.w.out, qe.raw...) }

// nativeCalls passes the upstream's own tool call deltas on, renumbered
// after the recovered calls, holding arguments that are markup.
func (s *oaStream) nativeCalls(ch *oaChoice, data []byte, m member) {
	var ok bool
	s.tels, ok = arrayElems(data, m.vs, s.tels[:0])
	if !ok {
		return
	}
	for _, el := range s.tels {
		if s.tms, ok = objectMembers(data, el.s, s.tms[:0]); !ok {
			continue
		}
		up := 0
		im, hasIndex := lookup(data, s.tms, "index")
		if hasIndex {
			if up, ok = intValue(data, im); !ok {
				continue
			}
		}
		s.endNative(ch, up)
		var nc *nativeCall
		for _, c := range ch.native {
			if c.up == up {
				nc = c
			}
		}
		if nc == nil {
			nc = &nativeCall{up: up, out: ch.nextTool}
			ch.nextTool++
			ch.native = append(ch.native, nc)
		}
		if hasIndex && nc.out != up {
			s.edits = append(s.edits, edit{im.vs, im.ve, s.w.keepInt(nc.out)})
		}
		fn, has := lookup(data, s.tms, "function")
		if !has {
			continue
		}
		if s.fms, ok = objectMembers(data, fn.vs, s.fms[:0]); !ok {
			continue
		}
		if nm, has := lookup(data, s.fms, "name"); has && isString(data, nm) {
			nc.name = appendUnquoted(nc.name, data[nm.vs:nm.ve])
		}
		am, has := lookup(data, s.fms, "arguments")
		if !has || !isString(data, am) || nc.mode == argsJSON || nc.mode == argsDone {
			continue
		}
		args := appendUnquoted(nil, data[am.vs:am.ve])
		held := len(nc.buf)
		nc.buf = append(nc.buf, args...)
		if nc.mode == argsUndecided {
			t := bytes.TrimLeft(nc.buf, " \t\r\n")
			switch {
			case len(t) == 0:
			case t[0] == '<' || t[0] == '[':
				nc.mode = argsMarkup
			default:
				nc.mode = argsJSON
				if held > 0 {
					s.edits = append(s.edits, edit{am.vs, am.ve, appendQuoted(nil, nc.buf)})
				}
				nc.buf = nil
				continue
			}
		}
		if max := s.w.maxCall(); len(nc.buf) > max {
			// Too long to hold: give up on it and let it through.
			s.w.reportError("native call arguments over the size limit; passed through", -1)
			nc.mode = argsJSON
			s.edits = append(s.edits, edit{am.vs, am.ve, appendQuoted(nil, nc.buf)})
			nc.buf = nil
			continue
		}
		if len(args) > 0 {
			s.edits = append(s.edits, edit{am.vs, am.ve, []byte(`""`)})
		}
	}
}

func (w *streamRewriter) maxCall() int {
	if w.opt.MaxCallBytes > 0 {
		return w.opt.MaxCallBytes
	}
	return 1 << 20
}

// endNative ends the held native calls of ch other than the one with
// upstream index keep (-1: all), sending their converted arguments.
func (s *oaStream) endNative(ch *oaChoice, keep int) {
	for _, nc := range ch.native {
		if nc.up == keep || nc.mode == argsDone || nc.mode == argsJSON {
			continue
		}
		if nc.mode == argsUndecided && keep >= 0 {
			continue
		}
		args := s.w.nativeArgs(nc.name, nc.buf)
		nc.mode = argsDone
		nc.buf = nil
		if args == nil {
			continue
		}
		s.tmp = append(s.tmp[:0], `{"tool_calls":[{"index":`...)
		s.tmp = strconv.AppendInt(s.tmp, int64(nc.out), 10)
		s.tmp = append(s.tmp, `,"function":{"arguments":`...)
		s.tmp = appendQuoted(s.tmp, args)
		s.tmp = append(s.tmp, "}}]}"...)
		s.synth(ch, s.tmp, "")
	}
}

// nativeArgs turns held native arguments into JSON; when they are not a
// recognisable call they come back unchanged, with an error reported.
func (w *streamRewriter) nativeArgs(name, held []byte) []byte {
	if len(held) == 0 {
		return nil
	}
	obj, repairs, ok := ArgumentsFromMarkup(string(name), held, w.opt)
	if !ok {
		w.reportError("native call "+strconv.Quote(string(name))+": arguments are neither JSON nor markup; passed through", -1)
		return held
	}
	w.stats.Native++
	if w.notify != nil {
		e := Event{Type: ToolCall, Name: string(name), Arguments: obj, Dialect: "native", Repairs: repairs, Raw: held, Offset: -1}
		w.notify(&e)
	}
	return obj
}

// finish ends every open choice: at [DONE], at the end of input, or after
// a runaway (then each choice also gets a final chunk and the stream
// [DONE]).
func (s *oaStream) finish(runaway bool) {
	w := s.w
	if len(s.tmpl) == 0 {
		return
	}
	for _, ch := range s.choices {
		if ch == nil || ch.closed {
			continue
		}
		s.cur = ch
		s.begin()
		if !runaway {
			s.process(s, &ch.textChan, ch.p.Close())
		}
		if s.clean {
			s.settle(s, &ch.textChan, nil, !runaway)
		}
		w.flushRun(s, &s.kind, &s.run)
		s.endNative(ch, -1)
		ch.closed = true
		if runaway {
			reason := "stop"
			if ch.calls > 0 || len(ch.native) > 0 {
				reason = "tool_calls"
			}
			s.synth(ch, []byte("{}"), reason)
		}
	}
	if runaway {
		w.out = append(w.out, "data: [DONE]\n\n"...)
	}
}

// ---- Anthropic Messages streams ----

// anStream rewrites an Anthropic Messages event stream. Content blocks are
// renumbered: a text block of the upstream may become several blocks of the
// output (text, tool_use, text again, thinking), so every later block moves.
type anStream struct {
	textFeed
	blocks map[int]*anBlock // by upstream index
	out    int              // next output block index
	calls  int
	tokens []byte // the last output_tokens value seen
	cur    *anBlock
	last   *anBlock // the last text block started

	ms, dms, bms []member
	edits        []edit
	oedits       []edit // original's, apart from the event's own edits
	tmp          []byte
}

// maxBlocks bounds the content blocks tracked per message.
const maxBlocks = 4096

// anBlock is one content block of the upstream.
type anBlock struct {
	textChan // the parser of a text block
	up       int
	text     bool // a text block, fed to a parser
	stopped  bool
	out      int // output index: of the block itself (not text), or of the open output block
	// open is what this text block has open in the output: a text block,
	// a thinking block made of reasoning markup, or nothing.
	open    runKind
	opened  bool // a text block was opened for it at least once
	hadCall bool
	// The upstream start event, sent when the first text arrives.
	startRaw, startData []byte
	// held are text deltas (whitespace only) that arrived while no text
	// block was open: a block is opened only for text that is not blank,
	// as the Messages API refuses blank text blocks in a conversation.
	held     []heldDelta
	heldSize int
}

// heldDelta is a text_delta event held back, with the span of its index.
type heldDelta struct {
	raw, data []byte
	is, ie    int
	pass      bool // an event passed on as it is (raw)
}

func (s *anStream) event(ev *sse.Event) {
	w := s.w
	data := ev.Data
	if !w.validEvent(ev) {
		return
	}
	var ok bool
	s.ms, ok = objectMembers(data, 0, s.ms[:0])
	if !ok {
		w.out = append(w.out, ev.Raw...)
		return
	}
	typ := ev.Type
	if m, has := lookup(data, s.ms, "type"); has && isString(data, m) {
		typ = string(stringValue(data, m))
	}
	s.edits = s.edits[:0]
	switch typ {
	case "content_block_start":
		s.blockStart(ev, data)
	case "content_block_delta":
		s.blockDelta(ev, data)
	case "content_block_stop":
		s.blockStop(ev, data)
	case "message_delta":
		s.closeTextBlocks()
		if w.stopped {
			return
		}
		if dm, has := lookup(data, s.ms, "delta"); has {
			if s.dms, ok = objectMembers(data, dm.vs, s.dms[:0]); ok {
				if m, has := lookup(data, s.dms, "stop_reason"); has && s.calls > 0 && !keepsFinish(stringValue(data, m)) {
					s.edits = append(s.edits, edit{m.vs, m.ve, []byte(`"tool_use"`)})
				}
			}
		}
		s.noteTokens(data, s.ms)
		w.emitEdited(ev, s.edits)
	case "message_start":
		if mm, has := lookup(data, s.ms, "message"); has {
			if s.dms, ok = objectMembers(data, mm.vs, s.dms[:0]); ok {
				s.noteTokens(data, s.dms)
			}
		}
		w.out = append(w.out, ev.Raw...)
	default: // message_stop, ping, error, unknown
		if typ != "message_stop" && s.holdPass(ev) {
			return
		}
		w.out = append(w.out, ev.Raw...)
	}
}

// noteTokens remembers usage.output_tokens for a message_delta made up
// after a runaway.
func (s *anStream) noteTokens(data []byte, ms []member) {
	um, has := lookup(data, ms, "usage")
	if !has {
		return
	}
	ums, ok := objectMembers(data, um.vs, nil)
	if !ok {
		return
	}
	if m, has := lookup(data, ums, "output_tokens"); has {
		s.tokens = append(s.tokens[:0], data[m.vs:m.ve]...)
	}
}

// upIndex reads the event's index.
func (s *anStream) upIndex(data []byte) (member, int, bool) {
	m, has := lookup(data, s.ms, "index")
	if !has {
		return m, 0, false
	}
	i, ok := intValue(data, m)
	return m, i, ok
}

// reindex adds the edit that changes an event's index to out.
func (s *anStream) reindex(data []byte, m member, up, out int) {
	if up != out {
		s.edits = append(s.edits, edit{m.vs, m.ve, s.w.keepInt(out)})
	}
}

func (s *anStream) blockStart(ev *sse.Event, data []byte) {
	w := s.w
	im, up, ok := s.upIndex(data)
	if !ok {
		w.out = append(w.out, ev.Raw...)
		return
	}
	if s.blocks == nil {
		s.blocks = map[int]*anBlock{}
	}
	if len(s.blocks) >= maxBlocks {
		w.reportError("too many content blocks; passed through", ev.Offset)
		w.out = append(w.out, ev.Raw...)
		return
	}
	b := &anBlock{up: up}
	s.blocks[up] = b
	cb, has := lookup(data, s.ms, "content_block")
	var initial []byte
	if has {
		if s.bms, ok = objectMembers(data, cb.vs, s.bms[:0]); ok {
			if m, has := lookup(data, s.bms, "type"); has && string(stringValue(data, m)) == "text" {
				b.text = true
				if tm, has := lookup(data, s.bms, "text"); has && isString(data, tm) && tm.ve-tm.vs > 2 {
					initial = appendUnquoted(nil, data[tm.vs:tm.ve])
					s.edits = append(s.edits, edit{tm.vs, tm.ve, []byte(`""`)})
				}
			}
		}
	}
	if !b.text {
		b.out = s.out
		s.out++
		s.reindex(data, im, up, b.out)
		w.emitEdited(ev, s.edits)
		return
	}
	b.p = w.newParser(true, up)
	s.last = b
	if len(s.edits) > 0 {
		b.startData = splice(nil, data, s.edits)
	} else {
		b.startRaw = bytes.Clone(ev.Raw)
		b.startData = bytes.Clone(data)
	}
	if len(initial) > 0 {
		s.feedText(b, nil, initial)
	}
}

func (s *anStream) blockDelta(ev *sse.Event, data []byte) {
	w := s.w
	im, up, ok := s.upIndex(data)
	b := s.blocks[up]
	if !ok || b == nil || b.stopped && b.text {
		w.out = append(w.out, ev.Raw...)
		return
	}
	if !b.text {
		s.reindex(data, im, up, b.out)
		w.emitEdited(ev, s.edits)
		return
	}
	dm, has := lookup(data, s.ms, "delta")
	if has {
		s.dms, ok = objectMembers(data, dm.vs, s.dms[:0])
		has = ok
	}
	var tm member
	if has {
		var isText bool
		if m, ok := lookup(data, s.dms, "type"); ok {
			isText = string(stringValue(data, m)) == "text_delta"
		}
		tm, ok = lookup(data, s.dms, "text")
		has = isText && ok && isString(data, tm)
	}
	if !has {
		// citations and other deltas of the text block: into the open text block.
		s.cur = b
		s.openText(b)
		s.reindex(data, im, up, b.out)
		w.emitEdited(ev, s.edits)
		return
	}
	s.in = appendUnquoted(s.in[:0], data[tm.vs:tm.ve])
	s.feedText(b, &editable{ev: ev, data: data, im: im, tm: tm}, s.in)
}

// editable is the upstream text_delta event that carries the last text run.
type editable struct {
	ev     *sse.Event
	data   []byte
	im, tm member
}

// feedText feeds text of block b to its parser and sends what comes out.
// The last text run goes into the upstream event e when there is one.
func (s *anStream) feedText(b *anBlock, e *editable, text []byte) {
	w := s.w
	s.cur = b
	s.begin()
	if s.process(s, &b.textChan, b.p.Feed(text)) {
		s.finish(true)
		return
	}
	if s.clean {
		// Only text came out: the upstream event can go out as it is once
		// all of its text has been released.
		if e != nil && len(b.carry) == 0 && wholeChars(text) {
			s.hold(s, &b.textChan, e.ev, text, e.im)
			return
		}
		s.settle(s, &b.textChan, nil, false)
	}
	run := s.lastRun(s, &b.textChan, false)
	if e == nil {
		if len(run) > 0 {
			s.text2(b, run)
		}
		return
	}
	same := bytes.Equal(run, text)
	if len(run) == 0 && !same {
		return
	}
	if !same {
		s.edits = append(s.edits, edit{e.tm.vs, e.tm.ve, w.keepQuoted(run)})
	}
	if b.open != runText && isBlank(run) {
		if b.heldSize+len(e.data) <= maxHeldBytes {
			d := splice(nil, e.data, s.sorted())
			// the index span in d: the edits above are all after it or
			// are the index itself, which is not edited yet.
			h := heldDelta{data: d, is: e.im.vs, ie: e.im.ve}
			if !same {
				h.is, h.ie = shiftSpan(e.im, s.edits)
			} else {
				h.raw = bytes.Clone(e.ev.Raw)
			}
			b.held = append(b.held, h)
			b.heldSize += len(d)
			return
		}
	}
	if b.open == runReasoning {
		s.closeOpen(b)
	}
	s.openText(b)
	s.reindex(e.data, e.im, b.up, b.out)
	w.emitEdited(e.ev, s.edits)
}

// original sends an upstream text delta of the current block whose text
// is unchanged.
func (s *anStream) original(qe *queued) {
	w := s.w
	b := s.cur
	if b.open != runText && isBlank(qe.content) && b.heldSize+len(qe.raw) <= maxHeldBytes {
		b.held = append(b.held, heldDelta{raw: bytes.Clone(qe.raw), data: bytes.Clone(qe.data), is: qe.idx.vs, ie: qe.idx.ve})
		b.heldSize += len(qe.raw)
		return
	}
	s.openText(b)
	if b.out == b.up {
		w.out = append(w.out, qe.raw...)
		return
	}
	s.oedits = append(s.oedits[:0], edit{qe.idx.vs, qe.idx.ve, w.keepInt(b.out)})
	w.data = splice(w.data[:0], qe.data, s.oedits)
	w.emitEvent("content_block_delta", w.data)
}

// sorted returns the edits sorted.
func (s *anStream) sorted() []edit {
	sortEdits(s.edits)
	return s.edits
}

// shiftSpan returns the span of member m after edits that may come before
// it are applied.
func shiftSpan(m member, edits []edit) (int, int) {
	d := 0
	for _, e := range edits {
		if e.e <= m.vs {
			d += len(e.repl) - (e.e - e.s)
		}
	}
	return m.vs + d, m.ve + d
}

// text2 sends a text run of b as a made-up delta (not the last run of an
// upstream event).
func (s *anStream) text2(b *anBlock, run []byte) {
	const pre = `{"type":"content_block_delta","index":`
	if b.open != runText && isBlank(run) && b.heldSize+len(run) <= maxHeldBytes {
		// Blank text while no text block is open: held, and dropped if a
		// call or thinking comes before text that is not blank.
		d := appendQuoted([]byte(pre+`0,"delta":{"type":"text_delta","text":`), run)
		d = append(d, "}}"...)
		b.held = append(b.held, heldDelta{data: d, is: len(pre), ie: len(pre) + 1})
		b.heldSize += len(d)
		return
	}
	s.openText(b)
	s.tmp = append(s.tmp[:0], pre...)
	s.tmp = strconv.AppendInt(s.tmp, int64(b.out), 10)
	s.tmp = append(s.tmp, `,"delta":{"type":"text_delta","text":`...)
	s.tmp = appendQuoted(s.tmp, run)
	s.tmp = append(s.tmp, "}}"...)
	s.w.emitEvent("content_block_delta", s.tmp)
}

// sink methods for the current block.

func (s *anStream) text(b []byte) { s.text2(s.cur, b) }

func (s *anStream) reasoning(t []byte) {
	b := s.cur
	if b.open == runText {
		s.closeOpen(b)
	}
	s.dropHeld(b)
	if b.open != runReasoning {
		b.out = s.out
		s.out++
		b.open = runReasoning
		s.tmp = append(s.tmp[:0], `{"type":"content_block_start","index":`...)
		s.tmp = strconv.AppendInt(s.tmp, int64(b.out), 10)
		s.tmp = append(s.tmp, `,"content_block":{"type":"thinking","thinking":"","signature":""}}`...)
		s.w.emitEvent("content_block_start", s.tmp)
	}
	s.tmp = append(s.tmp[:0], `{"type":"content_block_delta","index":`...)
	s.tmp = strconv.AppendInt(s.tmp, int64(b.out), 10)
	s.tmp = append(s.tmp, `,"delta":{"type":"thinking_delta","thinking":`...)
	s.tmp = appendQuoted(s.tmp, t)
	s.tmp = append(s.tmp, "}}"...)
	s.w.emitEvent("content_block_delta", s.tmp)
}

func (s *anStream) call(e *Event) {
	w := s.w
	b := s.cur
	s.closeOpen(b)
	s.dropHeld(b)
	b.hadCall = true
	s.calls++
	c := callOut{id: e.ID, name: e.Name, args: callArgs(e)}
	idx := s.out
	s.out++
	s.tmp = append(s.tmp[:0], `{"type":"content_block_start","index":`...)
	s.tmp = strconv.AppendInt(s.tmp, int64(idx), 10)
	s.tmp = append(s.tmp, `,"content_block":`...)
	s.tmp = appendToolUse(s.tmp, c, false)
	s.tmp = append(s.tmp, '}')
	w.emitEvent("content_block_start", s.tmp)
	s.tmp = append(s.tmp[:0], `{"type":"content_block_delta","index":`...)
	s.tmp = strconv.AppendInt(s.tmp, int64(idx), 10)
	s.tmp = append(s.tmp, `,"delta":{"type":"input_json_delta","partial_json":`...)
	s.tmp = appendQuoted(s.tmp, c.args)
	s.tmp = append(s.tmp, "}}"...)
	w.emitEvent("content_block_delta", s.tmp)
	s.stopEvent(idx)
}

func (s *anStream) stopEvent(idx int) {
	s.tmp = append(s.tmp[:0], `{"type":"content_block_stop","index":`...)
	s.tmp = strconv.AppendInt(s.tmp, int64(idx), 10)
	s.tmp = append(s.tmp, '}')
	s.w.emitEvent("content_block_stop", s.tmp)
}

// openText makes sure b has a text block open in the output, sending the
// upstream start event (the first time) and any held deltas.
func (s *anStream) openText(b *anBlock) {
	if b.open == runText {
		return
	}
	w := s.w
	if b.open == runReasoning {
		s.closeOpen(b)
	}
	b.out = s.out
	s.out++
	b.open = runText
	if !b.opened && b.startData != nil {
		if b.startRaw != nil && b.out == b.up {
			w.out = append(w.out, b.startRaw...)
		} else {
			ms, _ := objectMembers(b.startData, 0, nil)
			var es []edit
			if m, has := lookup(b.startData, ms, "index"); has && b.out != b.up {
				es = append(es, edit{m.vs, m.ve, strconv.AppendInt(nil, int64(b.out), 10)})
			}
			w.emitEvent("content_block_start", splice(nil, b.startData, es))
		}
	} else {
		s.tmp = append(s.tmp[:0], `{"type":"content_block_start","index":`...)
		s.tmp = strconv.AppendInt(s.tmp, int64(b.out), 10)
		s.tmp = append(s.tmp, `,"content_block":{"type":"text","text":""}}`...)
		w.emitEvent("content_block_start", s.tmp)
	}
	b.opened = true
	for _, h := range b.held {
		if h.pass || h.raw != nil && b.out == b.up {
			w.out = append(w.out, h.raw...)
			continue
		}
		w.data = splice(w.data[:0], h.data, []edit{{h.is, h.ie, w.keepInt(b.out)}})
		w.emitEvent("content_block_delta", w.data)
	}
	b.held, b.heldSize = nil, 0
}

// dropHeld forgets the blank text held by b, sending the other events
// held with it.
func (s *anStream) dropHeld(b *anBlock) {
	for _, h := range b.held {
		if h.pass {
			s.w.out = append(s.w.out, h.raw...)
		}
	}
	b.held, b.heldSize = nil, 0
}

// holdPass queues an event that is not about content (a ping) behind the
// text held by the last text block, so that a plain stream keeps its order.
func (s *anStream) holdPass(ev *sse.Event) bool {
	b := s.last
	if b == nil || b.stopped || b.open != runNone || b.opened && len(b.held) == 0 || b.heldSize+len(ev.Raw) > maxHeldBytes {
		return false
	}
	b.held = append(b.held, heldDelta{raw: bytes.Clone(ev.Raw), pass: true})
	b.heldSize += len(ev.Raw)
	return true
}

// closeOpen closes the output block b has open, if any.
func (s *anStream) closeOpen(b *anBlock) {
	if b.open != runNone {
		s.stopEvent(b.out)
		b.open = runNone
	}
}

func (s *anStream) blockStop(ev *sse.Event, data []byte) {
	w := s.w
	im, up, ok := s.upIndex(data)
	b := s.blocks[up]
	if !ok || b == nil || b.stopped {
		w.out = append(w.out, ev.Raw...)
		return
	}
	b.stopped = true
	if !b.text {
		s.reindex(data, im, up, b.out)
		w.emitEdited(ev, s.edits)
		return
	}
	if s.endText(b) {
		return
	}
	switch {
	case b.open == runText:
		b.open = runNone
		s.reindex(data, im, up, b.out)
		w.emitEdited(ev, s.edits)
	case b.open == runReasoning:
		s.closeOpen(b)
	case !b.opened && !b.hadCall:
		// Nothing but blank text (or nothing): the block as it came.
		s.openText(b)
		b.open = runNone
		s.reindex(data, im, up, b.out)
		w.emitEdited(ev, s.edits)
	}
	s.dropHeld(b)
}

// endText closes b's parser and sends what it held. It reports a runaway.
func (s *anStream) endText(b *anBlock) bool {
	s.cur = b
	s.begin()
	if s.process(s, &b.textChan, b.p.Close()) {
		s.finish(true)
		return true
	}
	if s.clean {
		s.settle(s, &b.textChan, nil, true)
	}
	s.w.flushRun(s, &s.kind, &s.run)
	return false
}

// closeTextBlocks ends text blocks that were never stopped (before
// message_delta).
func (s *anStream) closeTextBlocks() {
	for _, b := range s.sortedBlocks() {
		if b.text && !b.stopped {
			b.stopped = true
			if s.endText(b) {
				return
			}
			s.closeOpen(b)
		}
	}
}

// sortedBlocks returns the blocks in upstream order.
func (s *anStream) sortedBlocks() []*anBlock {
	bs := make([]*anBlock, 0, len(s.blocks))
	for _, b := range s.blocks {
		bs = append(bs, b)
	}
	for i := 1; i < len(bs); i++ {
		for j := i; j > 0 && bs[j].up < bs[j-1].up; j-- {
			bs[j], bs[j-1] = bs[j-1], bs[j]
		}
	}
	return bs
}

// finish ends the stream at its end of input, or cleanly after a runaway:
// open blocks are stopped and a message_delta and message_stop follow.
func (s *anStream) finish(runaway bool) {
	if !runaway {
		for _, b := range s.sortedBlocks() {
			if b.text && !b.stopped {
				b.stopped = true
				if s.endText(b) {
					return
				}
			}
		}
		return
	}
	for _, b := range s.sortedBlocks() {
		switch {
		case b.stopped:
		case b.text && b == s.cur:
			s.closeOpen(b)
		case b.text:
			b.stopped = true
			s.cur = b
			s.materialize(s, &b.textChan)
			s.kind = runNone
			s.startRun(&b.textChan, nil)
			if !s.w.runs(b.p.Close(), s, &s.kind, &s.run) {
				s.w.flushRun(s, &s.kind, &s.run)
			}
			s.closeOpen(b)
		default:
			s.stopEvent(b.out)
		}
		b.stopped = true
	}
	reason := "end_turn"
	if s.calls > 0 {
		reason = "tool_use"
	}
	tokens := s.tokens
	if len(tokens) == 0 {
		tokens = []byte("0")
	}
	s.tmp = append(s.tmp[:0], `{"type":"message_delta","delta":{"stop_reason":"`...)
	s.tmp = append(s.tmp, reason...)
	s.tmp = append(s.tmp, `","stop_sequence":null},"usage":{"output_tokens":`...)
	s.tmp = append(s.tmp, tokens...)
	s.tmp = append(s.tmp, "}}"...)
	s.w.emitEvent("message_delta", s.tmp)
	s.w.emitEvent("message_stop", []byte(`{"type":"message_stop"}`))
}

// ---- non-streamed responses ----

// docParse runs a parser over a whole content string and collects its
// text, reasoning from markup, and calls.
type docParse struct {
	text, reasoning []byte
	calls           []callOut
	pieces          []docPiece // in order, for Anthropic content blocks
}

// docPiece is one output block: text, reasoning or a call.
type docPiece struct {
	kind runKind // runNone: a call
	b    []byte
	call callOut
}

func (d *docParse) add(kind runKind, b []byte) {
	if n := len(d.pieces); n > 0 && d.pieces[n-1].kind == kind {
		d.pieces[n-1].b = append(d.pieces[n-1].b, b...)
		return
	}
	d.pieces = append(d.pieces, docPiece{kind: kind, b: append([]byte(nil), b...)})
}

func (w *streamRewriter) parseDoc(content []byte, anthropic bool, n int) (d docParse, stop bool) {
	p := w.newParser(anthropic, n)
	for _, evs := range [2][]Event{p.Feed(content), nil} {
		if evs == nil {
			evs = p.Close()
		}
		for i := range evs {
			e := &evs[i]
			switch e.Type {
			case Text:
				d.text = append(d.text, e.Text...)
				d.add(runText, e.Text)
			case Reasoning:
				if len(e.Raw) > 0 && len(e.Text) > 0 {
					d.reasoning = append(d.reasoning, e.Text...)
					d.add(runReasoning, e.Text)
				}
			case ToolCall:
				w.report(e)
				c := callOut{id: e.ID, name: e.Name, args: append([]byte(nil), callArgs(e)...)}
				d.calls = append(d.calls, c)
				d.pieces = append(d.pieces, docPiece{call: c})
			case Runaway:
				w.report(e)
				return d, true
			case Error:
				w.report(e)
			}
		}
	}
	return d, false
}

// docArray checks a whole response and returns its top-level members and
// the elements of its array member key (choices, content); ok is false when
// the document is not one to rewrite.
func (w *streamRewriter) docArray(doc []byte, key string) (ms []member, els []span, ok bool) {
	if !json.Valid(doc) {
		w.reportError("malformed JSON response; passed through", -1)
		return nil, nil, false
	}
	ms, ok = objectMembers(doc, 0, nil)
	am, has := lookup(doc, ms, key)
	if !ok || !has {
		return nil, nil, false
	}
	els, ok = arrayElems(doc, am.vs, nil)
	return ms, els, ok
}

func (w *streamRewriter) rewriteOpenAIDoc(dst, doc []byte) ([]byte, bool) {
	_, els, ok := w.docArray(doc, "choices")
	if !ok {
		return dst, false
	}
	var edits []edit
	for k, el := range els {
		cms, ok := objectMembers(doc, el.s, nil)
		if !ok {
			continue
		}
		mm, has := lookup(doc, cms, "message")
		if !has {
			continue
		}
		mms, ok := objectMembers(doc, mm.vs, nil)
		if !ok {
			continue
		}
		var d docParse
		cont, hasContent := lookup(doc, mms, "content")
		if hasContent && isString(doc, cont) {
			text := appendUnquoted(nil, doc[cont.vs:cont.ve])
			d, _ = w.parseDoc(text, false, k)
			if !bytes.Equal(d.text, text) || len(d.calls) > 0 {
				v := []byte("null")
				if len(d.calls) == 0 || !isBlank(d.text) {
					v = appendQuoted(nil, d.text)
				}
				edits = append(edits, edit{cont.vs, cont.ve, v})
			}
		}
		if len(d.reasoning) > 0 {
			if rm, has := lookup(doc, mms, "reasoning_content"); has && isString(doc, rm) {
				r := appendUnquoted(nil, doc[rm.vs:rm.ve])
				edits = append(edits, edit{rm.vs, rm.ve, appendQuoted(nil, append(r, d.reasoning...))})
			} else if has {
				edits = append(edits, edit{rm.vs, rm.ve, appendQuoted(nil, d.reasoning)})
			} else {
				edits = append(edits, insertMember(mms, mm.ve, "reasoning_content", appendQuoted(nil, d.reasoning)))
			}
		}
		// Native calls: markup arguments become JSON.
		tm, hasTools := lookup(doc, mms, "tool_calls")
		var tels []span
		if hasTools {
			tels, _ = arrayElems(doc, tm.vs, nil)
			for _, te := range tels {
				edits = w.nativeDocCall(doc, te, edits)
			}
		}
		if len(d.calls) > 0 {
			var arr []byte
			for i, c := range d.calls {
				if i > 0 || len(tels) > 0 {
					arr = append(arr, ',')
				}
				arr = appendOpenAICall(arr, -1, c)
			}
			switch {
			case hasTools && len(tels) > 0:
				end := tels[len(tels)-1].e
				edits = append(edits, edit{end, end, arr})
			case hasTools:
				edits = append(edits, edit{tm.vs, tm.ve, append(append([]byte("["), arr...), ']')})
			default:
				edits = append(edits, insertMember(mms, mm.ve, "tool_calls", append(append([]byte("["), arr...), ']')))
			}
			if fm, has := lookup(doc, cms, "finish_reason"); has && !keepsFinish(stringValue(doc, fm)) {
				edits = append(edits, edit{fm.vs, fm.ve, []byte(`"tool_calls"`)})
			}
		}
	}
	if len(edits) == 0 {
		return dst, false
	}
	sortEdits(edits)
	return splice(dst, doc, edits), true
}

// nativeDocCall converts the markup arguments of a native call in a
// non-streamed OpenAI message.
func (w *streamRewriter) nativeDocCall(doc []byte, te span, edits []edit) []edit {
	tms, ok := objectMembers(doc, te.s, nil)
	if !ok {
		return edits
	}
	fn, has := lookup(doc, tms, "function")
	if !has {
		return edits
	}
	fms, ok := objectMembers(doc, fn.vs, nil)
	if !ok {
		return edits
	}
	am, has := lookup(doc, fms, "arguments")
	if !has || !isString(doc, am) {
		return edits
	}
	args := appendUnquoted(nil, doc[am.vs:am.ve])
	t := bytes.TrimLeft(args, " \t\r\n")
	if len(t) == 0 || t[0] != '<' && t[0] != '[' {
		return edits
	}
	var name []byte
	if nm, has := lookup(doc, fms, "name"); has && isString(doc, nm) {
		name = appendUnquoted(nil, doc[nm.vs:nm.ve])
	}
	obj := w.nativeArgs(name, args)
	if bytes.Equal(obj, args) {
		return edits
	}
	return append(edits, edit{am.vs, am.ve, appendQuoted(nil, obj)})
}

func (w *streamRewriter) rewriteAnthropicDoc(dst, doc []byte) ([]byte, bool) {
	ms, els, ok := w.docArray(doc, "content")
	if !ok {
		return dst, false
	}
	var edits []edit
	calls := 0
	for k, el := range els {
		bms, ok := objectMembers(doc, el.s, nil)
		if !ok {
			continue
		}
		tm, has := lookup(doc, bms, "type")
		if !has || string(stringValue(doc, tm)) != "text" {
			continue
		}
		xm, has := lookup(doc, bms, "text")
		if !has || !isString(doc, xm) {
			continue
		}
		text := appendUnquoted(nil, doc[xm.vs:xm.ve])
		d, _ := w.parseDoc(text, true, k)
		if len(d.pieces) == 1 && d.pieces[0].kind == runText && bytes.Equal(d.pieces[0].b, text) {
			continue
		}
		calls += len(d.calls)
		var repl []byte
		first := true
		for _, pc := range d.pieces {
			switch pc.kind {
			case runText:
				if len(d.calls) > 0 && isBlank(pc.b) || len(pc.b) == 0 {
					continue
				}
				if !first {
					repl = append(repl, ',')
				}
				// The first text piece keeps the block's other fields.
				if len(repl) == 0 {
					repl = splice(repl, doc[el.s:el.e], []edit{{xm.vs - el.s, xm.ve - el.s, appendQuoted(nil, pc.b)}})
				} else {
					repl = appendQuoted(append(repl, `{"type":"text","text":`...), pc.b)
					repl = append(repl, '}')
				}
			case runReasoning:
				if !first {
					repl = append(repl, ',')
				}
				repl = appendQuoted(append(repl, `{"type":"thinking","thinking":`...), pc.b)
				repl = append(repl, `,"signature":""}`...)
			default:
				if !first {
					repl = append(repl, ',')
				}
				repl = appendToolUse(repl, pc.call, true)
			}
			first = false
		}
		if len(repl) == 0 {
			// The whole block was markup that made nothing: drop it with a comma.
			if k+1 < len(els) {
				edits = append(edits, edit{el.s, els[k+1].s, nil})
			} else if k > 0 {
				edits = append(edits, edit{els[k-1].e, el.e, nil})
			} else {
				edits = append(edits, edit{el.s, el.e, nil})
			}
			continue
		}
		edits = append(edits, edit{el.s, el.e, repl})
	}
	if calls > 0 {
		if sm, has := lookup(doc, ms, "stop_reason"); has && !keepsFinish(stringValue(doc, sm)) {
			edits = append(edits, edit{sm.vs, sm.ve, []byte(`"tool_use"`)})
		}
	}
	if len(edits) == 0 {
		return dst, false
	}
	sortEdits(edits)
	return splice(dst, doc, edits), true
}
