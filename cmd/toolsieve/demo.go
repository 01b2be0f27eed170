package main

import (
	"bufio"
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolsieve/toolsieve"
)

const demoUsage = `Usage: toolsieve demo [--json] [--chunk N] [SAMPLE...]

Runs the parser on the sample streams bundled in the binary, feeding each in
small pieces as a model's stream would arrive, and shows each sample broken
input beside fixed output: every piece of the input (a run of text, or the
markup of a call, a dropped closer, a runaway; abbreviated to one column)
next to what it became (text, a call with its arguments, repairs, dialect
and when it came out, dropped markup, a runaway), and a check that every
input byte was accounted for. Then runs the proxy demos: a proxy and a scripted upstream,
in-process on loopback, show a retry of a runaway answer and a cleaned
history. SAMPLE names (see below) pick samples and demos; default all.
With --json only the samples run.

Flags:
  --json     print the events as JSON lines instead, each sample introduced
             by a line {"sample": NAME, "title": ..., "bytes": N, "chunk": N}
  --chunk N  feed N-byte pieces (default 7; 0 feeds each sample whole)

Samples:
`

// samplesFS holds the bundled sample streams: NAME.txt is the stream, and
// NAME.tools.json, when present, the tools its request declared.
//
//go:embed samples
var samplesFS embed.FS

// demoSample is one bundled stream.
type demoSample struct {
	file  string // in samples/
	title string
	tools string // declared tools file in samples/, if any
}

var demoSamples = []demoSample{
	{file: "01_deepseek_dsml.txt", title: "DeepSeek V3.2 DSML: two calls with text before and after"},
	{file: "02_seed_invfunction_calls.txt", title: "the seed case: JSON body cut short by a corrupted closer `invfunction_calls>`"},
	{file: "03_qwen3_coder_write_file.txt", title: "Qwen3-Coder writing a multi-line file"},
	{file: "04_glm_search.txt", title: "GLM-4.5: a call with three arguments, then one with none"},
	{file: "05_cut_off_mid_call.txt", title: "Hermes call cut off by the end of the stream (max tokens)"},
	{file: "06_runaway_dsml_openers.txt", title: "runaway loop: the same DSML invoke opener repeated 20 times"},
	{file: "07_markup_in_code_fence.txt", title: "markup quoted in a code fence and a code span: stays text"},
	{file: "08_roo_read_file.txt", title: "Roo/Cline tool tag <read_file> with declared tools", tools: "08_roo_read_file.tools.json"},
	{file: "09_kimi_k2_parallel.txt", title: "Kimi K2: two parallel calls with their own ids"},
	{file: "10_qwen3_coder_xml_content.txt", title: "Qwen3-Coder writing an XML file whose content holds </parameter>"},
}

// name is the sample's name on the command line: its file name without the
// number and extension.
func (s demoSample) name() string {
	n := strings.TrimSuffix(s.file, ".txt")
	if i := strings.IndexByte(n, '_'); i >= 0 {
		n = n[i+1:]
	}
	return n
}

func (s demoSample) load() (input []byte, tools *toolsieve.Tools, err error) {
	input, err = samplesFS.ReadFile(path.Join("samples", s.file))
	if err != nil || s.tools == "" {
		return input, nil, err
	}
	data, err := samplesFS.ReadFile(path.Join("samples", s.tools))
	if err != nil {
		return nil, nil, err
	}
	tools, err = toolsieve.ParseTools(data)
	return input, tools, err
}

// demoEvent is an event with the number of input bytes fed when it came out.
type demoEvent struct {
	toolsieve.Event
	fed int
}

// runSample feeds input to a new parser in chunk-byte pieces (whole when
// chunk is 0) and returns the events, kept beyond the parser's buffers.
func runSample(input []byte, opt toolsieve.Options, chunk int) []demoEvent {
	p := toolsieve.NewParser(opt)
	var out []demoEvent
	fed := 0
	keep := func(evs []toolsieve.Event) {
		for _, e := range evs {
			out = append(out, demoEvent{e.Clone(), fed})
		}
	}
	for rest := input; len(rest) > 0; {
		n := len(rest)
		if chunk > 0 && n > chunk {
			n = chunk
		}
		fed += n
		keep(p.Feed(rest[:n]))
		rest = rest[n:]
	}
	keep(p.Close())
	return out
}

// demoTotals sums up the samples.
type demoTotals struct {
	samples, calls, repairs, runaways, discards, errors, balanced int
}

func runDemo(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	const name = "demo"
	usage := demoUsageText()
	fs := newFlagSet(name)
	asJSON := fs.Bool("json", false, "")
	chunk := fs.Int("chunk", 7, "")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(err, name, usage, stdout, stderr)
	}
	if *chunk < 0 {
		return usageError(stderr, name, usage, fmt.Sprintf("bad --chunk value %d (want 0 or more)", *chunk))
	}
	scenarios, rest := pickScenarios(pos)
	samples, err := pickSamples(rest)
	if err != nil {
		return usageError(stderr, name, usage, err.Error())
	}
	switch {
	case len(pos) == 0:
		scenarios = demoScenarios
	case len(rest) == 0:
		samples = nil
	}

	w := bufio.NewWriter(stdout)
	var tot demoTotals
	for i, s := range samples {
		input, tools, err := s.load()
		if err != nil { // the samples are part of the binary: a bug
			fmt.Fprintf(stderr, "toolsieve demo: sample %s: %v\n", s.name(), err)
			return exitIO
		}
		opt := toolsieve.Options{Tools: tools, IDPrefix: "demo_"}
		evs := runSample(input, opt, *chunk)
		if *asJSON {
			writeSampleJSON(w, s, input, *chunk, evs)
		} else {
			if i > 0 {
				w.WriteByte('\n')
			}
			writeSampleSummary(w, s, input, *chunk, evs, &tot)
		}
	}
	if !*asJSON {
		for i, sc := range scenarios {
			if i > 0 || len(samples) > 0 {
				w.WriteByte('\n')
			}
			fmt.Fprintf(w, "== %s: %s\n", sc.name, sc.title)
			if err := sc.run(w); err != nil {
				w.Flush()
				fmt.Fprintf(stderr, "toolsieve demo: %s: %v\n", sc.name, err)
				return exitIO
			}
		}
		fmt.Fprintf(w, "\ntotal: %s, %s recovered, %s made, %s, %s, %s; bytes accounted for in %d/%d samples\n",
			plural(tot.samples, "sample"), plural(tot.calls, "call"), plural(tot.repairs, "repair"),
			plural(tot.runaways, "runaway"), plural(tot.discards, "discard"), plural(tot.errors, "error"),
			tot.balanced, tot.samples)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(stderr, "toolsieve demo: writing output: %v\n", err)
		return exitIO
	}
	return exitOK
}

func demoUsageText() string {
	var b strings.Builder
	b.WriteString(demoUsage)
	for _, s := range demoSamples {
		fmt.Fprintf(&b, "  %-26s %s\n", s.name(), s.title)
	}
	b.WriteString("\nProxy demos:\n")
	for _, s := range demoScenarios {
		fmt.Fprintf(&b, "  %-26s %s\n", s.name, s.title)
	}
	return b.String()
}

// pickSamples returns the samples named, in the order given, or all.
func pickSamples(names []string) ([]demoSample, error) {
	if len(names) == 0 {
		return demoSamples, nil
	}
	var out []demoSample
	for _, n := range names {
		found := false
		for _, s := range demoSamples {
			if n == s.name() || n == strings.TrimSuffix(s.file, ".txt") {
				out = append(out, s)
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown sample %q", n)
		}
	}
	return out, nil
}

func writeSampleJSON(w *bufio.Writer, s demoSample, input []byte, chunk int, evs []demoEvent) {
	enc := json.NewEncoder(w) // writes the line's newline
	enc.SetEscapeHTML(false)
	enc.Encode(struct {
		Sample string `json:"sample"`
		Title  string `json:"title"`
		Bytes  int    `json:"bytes"`
		Chunk  int    `json:"chunk"`
	}{s.name(), s.title, len(input), chunk})
	var buf []byte
	for i := range evs {
		buf = append(evs[i].AppendJSON(buf[:0]), '\n')
		w.Write(buf)
	}
}

// Layout of the summary: a label column, then the value.
const (
	indent   = "  "
	labelFmt = indent + "%-10s "
	contFmt  = indent + "           "
	maxShown = 160 // bytes of text or arguments shown before abbreviating
)

func writeSampleSummary(w *bufio.Writer, s demoSample, input []byte, chunk int, evs []demoEvent, tot *demoTotals) {
	tot.samples++
	fmt.Fprintf(w, "== %s: %s\n", s.name(), s.title)
	how := "whole"
	if chunk > 0 && chunk < len(input) {
		how = fmt.Sprintf("in %d chunks of %d bytes", (len(input)+chunk-1)/chunk, chunk)
	}
	fmt.Fprintf(w, indent+"%d bytes fed %s", len(input), how)
	if s.tools != "" {
		fmt.Fprintf(w, ", tools declared")
	}
	w.WriteString("\n")

	v := newViewBuilder(len(input))
	var out []byte // all output bytes: the text of text events, the raw of the others
	nText, nRaw := 0, 0
	for i := range evs {
		e := &evs[i]
		v.add(e)
		if e.Type == toolsieve.Text {
			out = append(out, e.Text...)
			nText += len(e.Text)
			continue
		}
		out = append(out, e.Raw...)
		nRaw += len(e.Raw)
		switch e.Type {
		case toolsieve.ToolCall:
			tot.calls++
			tot.repairs += len(e.Repairs)
		case toolsieve.Runaway:
			tot.runaways++
		case toolsieve.Error:
			tot.errors++
		case toolsieve.Discard:
			tot.discards++
		}
	}
	writeView(w, v.finish())
	mark := "ok"
	if bytes.Equal(out, input) {
		tot.balanced++
	} else {
		mark = "MISMATCH: the output does not give back the input"
	}
	fmt.Fprintf(w, labelFmt+"%d text + %d raw = %d bytes out, %d in: %s\n", "bytes", nText, nRaw, nText+nRaw, len(input), mark)
}

// quoteAbbrev quotes b as a Go string, keeping the start and the end when
// it is long.
func quoteAbbrev(b []byte) string {
	if len(b) <= maxShown {
		return strconv.Quote(string(b))
	}
	head, tail := cutRunes(b, maxShown*2/3, maxShown/3)
	return fmt.Sprintf("%s … %s (%d bytes)", strconv.Quote(string(head)), strconv.Quote(string(tail)), len(b))
}

// argsAbbrev shows call arguments as compact JSON, abbreviated when long.
func argsAbbrev(args json.RawMessage) string {
	var buf bytes.Buffer
	if len(args) == 0 {
		return "{}"
	}
	if err := json.Compact(&buf, args); err != nil {
		return fmt.Sprintf("%s (invalid JSON: %v)", quoteAbbrev(args), err)
	}
	b := buf.Bytes()
	if len(b) <= maxShown {
		return string(b)
	}
	head, tail := cutRunes(b, maxShown*2/3, maxShown/3)
	return fmt.Sprintf("%s … %s (%d bytes)", head, tail, len(b))
}

// cutRunes returns about the first h and last t bytes of b, on rune
// boundaries.
func cutRunes(b []byte, h, t int) (head, tail []byte) {
	for h > 0 && !utf8.RuneStart(b[h]) {
		h--
	}
	s := len(b) - t
	for s < len(b) && !utf8.RuneStart(b[s]) {
		s++
	}
	return b[:h], b[s:]
}

// plural returns "1 call", "2 calls".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
