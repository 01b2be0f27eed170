// Package toolsieve recovers tool calls that language models write as text
// markup in their output streams (XML-like tags, special tokens, JSON), and
// turns them into structured events.
//
// A Parser consumes the content stream chunk by chunk, in any split, and
// returns events as soon as they are known: text that cannot be markup is
// passed on at once, and each tool call the moment its markup is complete
// (a call that may belong to a loop waits until what follows shows it does
// not; a loop's calls are never emitted, they end in the runaway's raw).
// Work is linear in the input and memory is bounded by the largest call
// (Options.MaxCallBytes) plus a small hold-back (the longest marker), plus
// the few calls held while they may belong to a loop.
//
// Every input byte ends up exactly once, in order, in a text event or in the
// raw bytes of another event, so nothing is lost and markup that was not a
// call is never silently dropped. The events, their invariants and the
// vocabulary of repairs and reasons are specified in docs/contract.md.
//
// This package is the parser alone. Package chat reads and rewrites the chat
// wire formats (OpenAI chat completions, Anthropic Messages, OpenAI
// Responses) with it, and package sievehttp puts that to HTTP use (a
// Transport, SDK middleware, a proxy).
package toolsieve

import (
	"github.com/toolsieve/toolsieve/emitter"
	"github.com/toolsieve/toolsieve/fsm"
	"github.com/toolsieve/toolsieve/internal/schema"
)

// Event is one parser output. Its JSON form (Event.AppendJSON, one object
// per line as `toolsieve parse` prints it) is described in docs/contract.md.
// Fields:
//
//   - Type: text, reasoning, tool_call_start, tool_call_delta, tool_call,
//     discard, runaway or error (the constants below).
//   - Text: the content of a text or reasoning event.
//   - Raw: the input bytes the event stands for (every type but text).
//     Text and Raw, concatenated in event order, give back the input.
//   - Index, ID, Name, Arguments (a JSON object), Dialect, Repairs: a call;
//     Arguments of a tool_call_delta: the next piece of its JSON text.
//   - Reason: why markup was discarded, why a runaway stopped the stream, or
//     why a call was kept as text (ReasonUndeclaredTool, ReasonRefused).
//   - Message: what an error event reports.
//   - Offset: the input offset of the event's first byte (-1: none).
//
// Byte slices may alias the parser's buffers until the next Feed or Close;
// Event.Clone keeps an event longer.
type Event = emitter.Event

// EventType is the kind of an event.
type EventType = emitter.Type

// Event types.
const (
	Text          = emitter.Text
	Reasoning     = emitter.Reasoning
	ToolCallStart = emitter.ToolCallStart
	ToolCall      = emitter.ToolCall
	Discard       = emitter.Discard
	Runaway       = emitter.Runaway
	Error         = emitter.Error
	ToolCallDelta = emitter.ToolCallDelta
)

// Tools is a set of declared tools with their argument schemas.
type Tools = schema.Tools

// ParseTools reads declared tools from an OpenAI or Anthropic `tools`
// array, or from a whole request body that holds one.
func ParseTools(data []byte) (*Tools, error) { return schema.ParseTools(data) }

// RunawayLimits are the loop detector's thresholds (zero: defaults).
type RunawayLimits = fsm.RunawayLimits

// Dialects returns every dialect name the parser knows, in table order.
func Dialects() []string { return fsm.DialectNames() }

// DialectInfo describes one dialect of the parser's table.
type DialectInfo struct {
	Name       string // as accepted by Options.Dialects and reported in tool_call events
	Family     string // dialects of one family share their opening markers; the content decides
	NeedsTools bool   // read only for declared tools (off by default without them)
	Example    string // a canonical input holding one call
}

// DescribeDialects returns every dialect the parser knows, in table order
// (the order of Dialects).
func DescribeDialects() []DialectInfo {
	specs := fsm.Dialects()
	out := make([]DialectInfo, len(specs))
	for i := range specs {
		s := &specs[i]
		out[i] = DialectInfo{Name: s.Name, Family: s.Family, NeedsTools: s.NeedsTools, Example: s.Example}
	}
	return out
}

// Options configure a Parser. The zero value is a good default.
type Options struct {
	// Tools declared by the request. With tools declared, the tool_tag and
	// json dialects are enabled, calls to other names are kept as text with
	// an error event, and argument values are typed by the tools' schemas.
	Tools *Tools
	// Dialects to recognise, exactly (names from Dialects); nil means all
	// that are safe without declared tools, plus those that need them
	// (tool_tag, json, tgi, granite_pythonic, ...: marked "tools" by
	// `toolsieve dialects`) with them. An unknown name is an error: see
	// Validate.
	Dialects []string
	// MaxCallBytes caps the bytes buffered for one call (default 1 MiB).
	// A call growing past it is reported as a runaway.
	MaxCallBytes int
	// MarkupInCode parses markup inside backtick code spans and fences too.
	// By default such markup is quoted text, not a call.
	MarkupInCode bool
	// Runaway sets the loop detector's thresholds.
	Runaway RunawayLimits
	// IDPrefix starts generated call ids (default "call_").
	IDPrefix string
	// CallID, when set, makes each call's id from its index (0, 1, ...)
	// instead of IDPrefix and the index, and replaces ids written in the
	// markup: for providers that accept only their own format.
	CallID func(index int) string
	// NoCalls reads no markup as a call: every byte is text (a request
	// whose tool_choice is "none" asked for no call).
	NoCalls bool
	// MaxCalls, when positive, passes on at most that many calls; each
	// further one comes as a discard event with ReasonParallelCall that
	// keeps its name, id and arguments (a request that turned parallel
	// calls off). Its start and deltas are not sent.
	MaxCalls int
	// Strict, when set, refuses calls that needed a repair outside
	// Strict.Allow: their markup is passed on as text, followed by an error
	// event with Reason ReasonRefused.
	Strict *Strict
	// StreamCalls sends each call as it is read: a tool_call_start with its
	// index, id and name as soon as the name is known, then tool_call_delta
	// events whose Arguments, concatenated, are the call's arguments object
	// as JSON text, then its tool_call. A started call that does not
	// complete is followed by a runaway, or by its markup as text and an
	// error event. See docs/contract.md, "Streamed calls".
	StreamCalls bool
	// KeepReasoning leaves reasoning markup (<think>...</think> and the
	// dialects' reasoning blocks) in the text: what would be reasoning
	// events come out as text events holding the markup as written, so
	// that the chat rewriters keep it in the content instead of moving it
	// to reasoning_content or a thinking block.
	KeepReasoning bool
}

// Validate reports an error (matching fsm.ErrUnknownDialect) when
// Dialects names a dialect the parser does not know.
func (o *Options) Validate() error {
	fo := machineOptions(*o)
	return fo.Validate()
}

// Parser is a push parser for one content stream. It is not safe for
// concurrent use.
type Parser struct {
	keepReasoning bool // Options.KeepReasoning
	m             *fsm.Machine
	b             emitter.Builder
	plain         []Event // the result of a chunk of plain text (two text events)
	err           error   // an invalid option, reported by the first Feed or Close
	done          bool    // Close was called
	slow          bool    // err or done: Feed may not take the fast path
	// maxCalls is Options.MaxCalls: calls from that index on are dropped.
	maxCalls int
}

// NewParser returns a parser configured by opt. Options that do not
// validate (an unknown dialect name) make the first Feed or Close return an
// error event before any other; the parser then runs with the rest.
func NewParser(opt Options) *Parser {
	p := &Parser{err: opt.Validate(), keepReasoning: opt.KeepReasoning}
	p.slow = p.err != nil
	p.b.Tools = opt.Tools
	p.b.IDPrefix = opt.IDPrefix
	p.b.NewID = opt.CallID
	p.maxCalls = opt.MaxCalls
	p.b.Stream = opt.StreamCalls
	p.b.Reset()
	var sink fsm.Sink = &p.b
	if opt.Strict != nil {
		sink = &strictSink{Builder: &p.b, allow: opt.Strict.Allow, tools: opt.Tools}
	}
	p.m = fsm.New(machineOptions(opt), sink)
	p.m.DeclareNames(opt.Tools.Names()) // fsm/toolline.go
	return p
}

// reportErr puts the options error, once, before the events of a call.
func (p *Parser) reportErr() {
	if p.err != nil {
		p.b.Error(p.err.Error(), 0)
		p.err = nil
		p.slow = p.done
	}
}

// machineOptions maps Options to the state machine's options.
func machineOptions(opt Options) fsm.Options {
	fo := fsm.Options{MaxCall: opt.MaxCallBytes, MarkupInCode: opt.MarkupInCode, Runaway: opt.Runaway, Stream: opt.StreamCalls}
	if opt.NoCalls {
		fo.Dialects = map[string]bool{} // none enabled
	} else if opt.Dialects != nil {
		fo.Dialects = make(map[string]bool, len(opt.Dialects))
		for _, d := range opt.Dialects {
			fo.Dialects[d] = true
		}
	}
	if opt.Tools.Len() > 0 {
		tools := opt.Tools
		fo.Declared = func(name []byte) bool {
			_, ok := tools.Lookup(string(name))
			return ok
		}
		fo.HasParam = func(tool, param []byte) bool { return tools.HasParam(string(tool), string(param)) }
		fo.Fits = tools.Fit
		fo.FitsTool = func(tool []byte, keys []string) bool { return tools.FitsTool(string(tool), keys) }
	}
	return fo
}

// Feed consumes the next chunk of content and returns the events it
// completed. The events and their byte slices (which may alias chunk) are
// valid until the next call to Feed or Close and must not be modified; use
// Event.Clone to keep them longer.
//
// Feed after Close parses nothing: it returns one error event whose raw
// bytes are the chunk.
func (p *Parser) Feed(chunk []byte) []Event {
	if !p.slow { // the common case: prose that cannot be markup
		if held, n, ok := p.m.WritePlain(chunk); ok {
			if held == nil && n == len(chunk) {
				ev := p.plainEvents(1)
				ev[0].Text, ev[0].Offset = chunk, p.b.Plain(n)
				return ev
			}
			if n < len(chunk) && p.m.Stopped() { // a loop began in chunk
				ev := append([]Event(nil), p.plainText(held, chunk[:n])...)
				return append(ev, p.feed(chunk[n:])...)
			}
			return p.plainText(held, chunk[:n])
		}
	}
	return p.feed(chunk)
}

// plainEvents returns the first n of the two text events plain text is
// reported in.
func (p *Parser) plainEvents(n int) []Event {
	if p.plain == nil {
		p.plain = []Event{{Type: Text}, {Type: Text}}
	}
	return p.plain[:n]
}

// plainText reports the text of a plain chunk that released or held back
// bytes: as one or two events, or none.
func (p *Parser) plainText(held, text []byte) []Event {
	ev := p.plainEvents(0)
	for _, b := range [2][]byte{held, text} {
		if len(b) > 0 {
			ev = append(ev, Event{Type: Text, Text: b, Offset: p.b.Plain(len(b))})
		}
	}
	return ev
}

// feed is Feed's long way.
func (p *Parser) feed(chunk []byte) []Event {
	p.b.Reset()
	if p.done {
		p.b.Rejected(chunk, "Feed after Close: input ignored")
		return p.b.Events()
	}
	if p.err != nil {
		p.reportErr()
	}
	p.m.Write(chunk)
	rel := p.m.Release() // the events hold what they reference: a large call's room can go
	evs := p.limit(p.events())
	p.b.Release(rel)
	return evs
}

// limit drops the calls past MaxCalls from evs, in place: their start and
// delta events go, their tool_call becomes a parallel_call discard (the
// bytes stay accounted for in its raw).
func (p *Parser) limit(evs []Event) []Event {
	if p.maxCalls <= 0 {
		return evs
	}
	out := evs[:0]
	for _, e := range evs {
		switch {
		case e.Index < p.maxCalls:
		case e.Type == ToolCallStart || e.Type == ToolCallDelta:
			continue
		case e.Type == ToolCall:
			e.Type, e.Reason = Discard, ReasonParallelCall
		}
		out = append(out, e)
	}
	return out
}

// Close ends the stream and returns the last events: held-back bytes, and
// markup left open, closed (calls carry the closed_at_eof repair).
// Closing again returns nothing.
func (p *Parser) Close() []Event {
	p.b.Reset()
	if p.done {
		return nil
	}
	p.done, p.slow = true, true
	p.reportErr()
	p.m.Close()
	return p.limit(p.events())
}

// events returns the builder's events, reasoning made text when the
// options keep it: the markup it stood for, as written.
func (p *Parser) events() []Event {
	ev := p.b.Events()
	if !p.keepReasoning {
		return ev
	}
	out := ev[:0]
	for _, e := range ev {
		if e.Type == Reasoning {
			if len(e.Raw) == 0 {
				continue
			}
			e = Event{Type: Text, Text: e.Raw, Offset: e.Offset}
		}
		out = append(out, e)
	}
	return out
}

// Holding reports how many input bytes the parser holds back: a possible
// marker's start or opener's word, a line that may be a word line or a
// harness label, the markup of a call in progress, and calls held while
// they may belong to a loop (at most the larger of the openers and
// repeated-calls thresholds, each within MaxCallBytes).
func (p *Parser) Holding() int { return p.m.Holding() }

// Parse runs a parser over a whole input and returns all its events.
func Parse(data []byte, opt Options) []Event {
	p := NewParser(opt)
	var out []Event
	for _, e := range p.Feed(data) {
		out = append(out, e.Clone())
	}
	for _, e := range p.Close() {
		out = append(out, e.Clone())
	}
	return out
}
