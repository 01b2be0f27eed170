package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
)

const parseUsage = `Usage: toolsieve parse [--input auto|text|sse|json] [--chunk N] [--tools FILE] [--dialects LIST] [--quiet] [FILE]

Reads FILE (or standard input when FILE is absent or "-"), runs the parser
over the content the model wrote in it and prints every event as one JSON
object per line. Then prints a summary line on standard error: calls,
repairs, runaways (and errors), bytes read.

Flags:
  --input KIND  what the input is (default auto):
                  auto  decided from the input, and said on standard error:
                        HTTP response headers at the start (as curl -i
                        writes them) are skipped and their Content-Type
                        used; then sse when the body starts like an event
                        stream, json when it is a JSON chat response or
                        request, else text
                  text  the model's content itself
                  sse   a streamed chat response (Server-Sent Events) of
                        OpenAI (choice 0's content) or Anthropic (the
                        text deltas); reasoning deltas become reasoning
                        events
                  json  a whole chat response (OpenAI: choice 0's message;
                        Anthropic: the text blocks) or request (each
                        assistant message, parsed on its own: call ids
                        start with call_mN_ for message N, indexes restart)
  --chunk N     feed the parser N-byte pieces (default 0: as read, up to 32 KiB)
  --tools FILE  JSON file with declared tools: an OpenAI or Anthropic "tools"
                array, or a whole request body holding one; enables the
                dialects that need declared tools ("tools" in toolsieve
                dialects), keeps calls to other names as text (with an
                error event) and types arguments by schema
  --dialects LIST  comma-separated dialect names: recognise exactly these
                (default: every dialect that is safe without declared
                tools, plus those that need them with --tools); an unknown
                name is bad usage. "toolsieve dialects" lists them.
  --stream-calls  print each call as it is read: tool_call_start once
                its name is known and an argument opened, tool_call_delta
                events whose arguments, concatenated, are the call's
                arguments object, then its tool_call
  --quiet       print neither the summary nor what --input auto found
                (warnings are still printed)

For text input, the text of text events and the raw of the other events
give back the input byte for byte; for sse and json, the content read.

Exit status: 0 when the input was read (malformed markup is data, not an
error; so is input that is not what --input says, with a warning); 1 for
I/O errors (FILE cannot be opened or read, output cannot be written, a JSON
document over 64 MiB); 2 for bad usage, including a --tools file that
cannot be read or is not valid JSON tool declarations (one that declares no
tools, such as a request body without "tools", is accepted with a warning).
`

// readBufSize is the size of the buffer the input is read with.
const readBufSize = 32 << 10

// A source is the content stream of one input, read piece by piece. For
// plain text the content is the input itself; an input decoder (SSE) takes
// the content out of its frames.
type source interface {
	// Next returns the next piece of content to feed the parser, and the
	// events the decoder made itself (reasoning from a separate channel,
	// malformed frames), which are printed before the piece. The piece is
	// valid until the next call. At the end of the input Next returns
	// io.EOF; any other error is an I/O error. A piece and events may come
	// with an error and are used first.
	Next() (content []byte, events []toolsieve.Event, err error)
}

// textSource is plain text input: the content is the bytes as read.
type textSource struct {
	r   io.Reader
	buf []byte
}

func newTextSource(r io.Reader) *textSource { return &textSource{r: r, buf: make([]byte, readBufSize)} }

func (s *textSource) Next() ([]byte, []toolsieve.Event, error) {
	for range 100 {
		n, err := s.r.Read(s.buf)
		if n > 0 || err != nil {
			return s.buf[:n], nil, err
		}
	}
	return nil, nil, io.ErrNoProgress
}

func runParse(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "parse"
	fs := newFlagSet(name)
	kindName := fs.String("input", "auto", "")
	chunk := fs.Int("chunk", 0, "")
	toolsFile := fs.String("tools", "", "")
	dialects := fs.String("dialects", "", "")
	quiet := fs.Bool("quiet", false, "")
	streamCalls := fs.Bool("stream-calls", false, "")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(err, name, parseUsage, stdout, stderr)
	}
	kind, ok := parseInputKind(*kindName)
	if !ok {
		return usageError(stderr, name, parseUsage, fmt.Sprintf("bad --input value %q (want auto, text, sse or json)", *kindName))
	}
	if *chunk < 0 {
		return usageError(stderr, name, parseUsage, fmt.Sprintf("bad --chunk value %d (want 0 or more)", *chunk))
	}
	if len(pos) > 1 {
		return usageError(stderr, name, parseUsage, fmt.Sprintf("too many arguments: %q (want at most one FILE)", pos))
	}
	opt := toolsieve.Options{StreamCalls: *streamCalls}
	if *dialects != "" {
		for _, d := range strings.Split(*dialects, ",") {
			opt.Dialects = append(opt.Dialects, strings.TrimSpace(d))
		}
		if err := opt.Validate(); err != nil {
			return usageError(stderr, name, parseUsage, "--dialects: "+err.Error()+" (see toolsieve dialects)")
		}
	}
	if *toolsFile != "" {
		tools, err := loadTools(*toolsFile)
		if err != nil {
			return usageError(stderr, name, parseUsage, "--tools: "+err.Error())
		}
		if tools.Len() == 0 { // a request body without tools: allowed, but say so
			fmt.Fprintf(stderr, "toolsieve parse: warning: --tools %s declares no tools\n", *toolsFile)
		}
		opt.Tools = tools
	}

	var in io.Reader = stdin
	if len(pos) == 1 && pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			fmt.Fprintf(stderr, "toolsieve parse: %v\n", err)
			return exitIO
		}
		defer f.Close()
		in = f
	}
	counted := &countingReader{r: in}
	pin, err := openInput(kind, counted)
	if err != nil {
		fmt.Fprintf(stderr, "toolsieve parse: reading input: %v\n", err)
		return exitIO
	}
	if pin.note != "" && !*quiet {
		fmt.Fprintf(stderr, "toolsieve parse: %s\n", pin.note)
	}
	if pin.warning != "" {
		fmt.Fprintf(stderr, "toolsieve parse: warning: %s\n", pin.warning)
	}

	out := newEventWriter(stdout)
	var tl tally
	emit := func(e *toolsieve.Event) bool {
		tl.add(e)
		return out.write(e)
	}
	var readErr error
	fed := 0
	if pin.doc != nil {
		fed = parseDocument(pin.doc, opt, *chunk, emit)
	} else {
		fed, readErr = parseStream(pin.src, toolsieve.NewParser(opt), *chunk, emit)
	}
	if err := out.flush(); err != nil {
		fmt.Fprintf(stderr, "toolsieve parse: writing output: %v\n", err)
		return exitIO
	}
	if readErr != nil {
		fmt.Fprintf(stderr, "toolsieve parse: reading input: %v\n", readErr)
		return exitIO
	}
	if pin.sse != nil && pin.sse.Frames() == 0 {
		fmt.Fprintf(stderr, "toolsieve parse: warning: no SSE events with data in the input (is it an event stream? try --input auto)\n")
	}
	if !*quiet {
		line := tl.String("call") + "; " + plural(int(counted.n), "byte") + " read"
		if pin.kind != kindText {
			line += fmt.Sprintf(" (%s of content)", plural(fed, "byte"))
		}
		fmt.Fprintf(stderr, "toolsieve parse: %s\n", line)
	}
	return exitOK
}

// parseInput is an input opened for parse: a stream of content (text or
// SSE), or a whole document.
type parseInput struct {
	kind    inputKind // as read
	src     source
	sse     *chat.ContentReader // src, for SSE
	doc     *chat.Document
	note    string // what --input auto found, for standard error
	warning string // the input is not what --input says
}

// openInput opens r as an input of the given kind, deciding it for
// kindAuto. Errors are read errors (a JSON document is read whole first).
func openInput(kind inputKind, r io.Reader) (parseInput, error) {
	if kind == kindText {
		return parseInput{kind: kindText, src: newTextSource(r)}, nil
	}
	h := newHead(r)
	hh := skipHTTPHeaders(h)
	k, how := kind, ""
	if k == kindAuto {
		if k = kindOfMediaType(hh.contentType); k != kindAuto {
			how = "from their Content-Type"
		} else {
			k = sniffBody(h)
		}
	}
	pin := parseInput{kind: k}
	switch k {
	case kindSSE:
		pin.sse = chat.NewContentReader(h.rest(), chat.InputSSE, chat.APIAuto)
		pin.src = pin.sse
		pin.note = "an SSE stream"
	case kindJSON:
		body, err := h.all(maxDocBytes)
		if errors.Is(err, errDocTooLarge) && kind == kindAuto {
			// Text that starts with "{" may be long: read it as it comes.
			pin.kind, pin.src = kindText, newTextSource(h.rest())
			pin.note = fmt.Sprintf("text: it starts like JSON but is over %d MiB", maxDocBytes>>20)
			break
		}
		if err != nil {
			return pin, err
		}
		d, ok := chat.ReadDocument(body)
		switch {
		case ok:
			pin.doc = &d
			pin.note = describeDoc(&d)
		case kind == kindAuto:
			pin.kind, pin.src = kindText, newTextSource(bytes.NewReader(body))
			pin.note = "JSON that is not a chat response or request: read as text"
		default:
			pin.doc = &chat.Document{}
			pin.warning = "--input json: not a JSON chat response or request: no content"
		}
	default:
		pin.src = newTextSource(h.rest())
		pin.note = "plain text"
	}
	if kind != kindAuto {
		pin.note = ""
		return pin, nil
	}
	pin.note = "detected " + pin.note
	if hh.n > 0 {
		pin.note += fmt.Sprintf(" after %s of HTTP response headers", plural(hh.n, "byte"))
	}
	if how != "" {
		pin.note += " (" + how + ")"
	}
	pin.note += "; --input chooses"
	return pin, nil
}

// describeDoc names a document for the detection note.
func describeDoc(d *chat.Document) string {
	var s string
	if d.Request {
		s = fmt.Sprintf("a JSON chat request (%s with text", plural(len(d.Texts), "assistant message"))
	} else {
		s = fmt.Sprintf("a JSON chat response (%s", d.API)
	}
	if d.Model != "" {
		s += ", model " + d.Model
	}
	return s + ")"
}

// parseDocument parses the texts of d, each with a parser of its own, and
// returns the bytes of content fed. A request's calls get ids of their
// own message (call_mN_...), as each parser numbers its calls from 0.
func parseDocument(d *chat.Document, opt toolsieve.Options, chunk int, emit func(*toolsieve.Event) bool) int {
	fed := 0
	prefix := opt.IDPrefix
	if prefix == "" {
		prefix = "call_"
	}
	for _, t := range d.Texts {
		if len(t.Reasoning) > 0 {
			if !emit(&toolsieve.Event{Type: toolsieve.Reasoning, Text: t.Reasoning, Offset: -1}) {
				return fed
			}
		}
		o := opt
		if d.Request {
			o.IDPrefix = fmt.Sprintf("%sm%d_", prefix, t.Message)
		}
		p := toolsieve.NewParser(o)
		ok := feedChunks(p, t.Content, chunk, emit)
		fed += len(t.Content)
		if !ok || !emitEach(p.Close(), emit) {
			return fed
		}
	}
	return fed
}

// loadTools reads declared tools from a JSON file.
func loadTools(path string) (*toolsieve.Tools, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	tools, err := toolsieve.ParseTools(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return tools, nil
}

// emitEach passes evs to emit until it returns false, and reports whether
// the output is still good.
func emitEach(evs []toolsieve.Event, emit func(*toolsieve.Event) bool) bool {
	for i := range evs {
		if !emit(&evs[i]) {
			return false
		}
	}
	return true
}

// feedChunks feeds content to p in pieces of at most chunk bytes (when
// chunk > 0) and passes the events on; false when the output failed.
func feedChunks(p *toolsieve.Parser, content []byte, chunk int, emit func(*toolsieve.Event) bool) bool {
	for len(content) > 0 {
		n := len(content)
		if chunk > 0 && n > chunk {
			n = chunk
		}
		if !emitEach(p.Feed(content[:n]), emit) {
			return false
		}
		content = content[n:]
	}
	return true
}

// parseStream feeds the content of src to p, in pieces of at most chunk
// bytes when chunk > 0, and passes every event to emit, in order. The parser
// is closed at the end of the input, and also after a read error so that
// everything read is accounted for; it returns the bytes of content fed
// and the read error. When emit returns false (its output failed) the
// input is not read any further.
func parseStream(src source, p *toolsieve.Parser, chunk int, emit func(*toolsieve.Event) bool) (fed int, readErr error) {
	ok := true
	for ok {
		content, evs, err := src.Next()
		ok = emitEach(evs, emit) && feedChunks(p, content, chunk, emit)
		fed += len(content)
		if err != nil {
			if err != io.EOF {
				readErr = err
			}
			break
		}
	}
	if ok {
		emitEach(p.Close(), emit)
	}
	return fed, readErr
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// eventWriter prints events as JSON lines through a buffer and remembers
// the first write error.
type eventWriter struct {
	w       *bufio.Writer
	scratch []byte
	err     error
}

func newEventWriter(w io.Writer) *eventWriter {
	return &eventWriter{w: bufio.NewWriterSize(w, 64<<10)}
}

// write prints e and reports whether the output is still good.
func (o *eventWriter) write(e *toolsieve.Event) bool {
	if o.err == nil {
		o.scratch = append(e.AppendJSON(o.scratch[:0]), '\n')
		_, o.err = o.w.Write(o.scratch)
	}
	return o.err == nil
}

func (o *eventWriter) flush() error {
	if o.err != nil {
		return o.err
	}
	return o.w.Flush()
}
