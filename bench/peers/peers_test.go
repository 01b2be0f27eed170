package peers

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/model/parsers"
	"github.com/toolsieve/toolsieve"
)

// Parser names, as they appear in benchmark names and in the table.
const (
	pToolsieve = "toolsieve"
	pNaive     = "naive"
	pQwen      = "ollama-qwen3-coder" // parsers.ParserForName("qwen3-coder"), *parsers.Qwen3CoderParser
	pDeepSeek  = "ollama-deepseek3"   // parsers.ParserForName("deepseek3"), *parsers.DeepSeek3Parser
	pFloor     = "floor"              // no parser: what the harness alone costs (floorParser)
)

// ollamaName maps a peer to its name in ollama's parser registry.
var ollamaName = map[string]string{pQwen: "qwen3-coder", pDeepSeek: "deepseek3"}

// result is what one run over one input found. The argument bytes of the
// last call are copied (events are valid only until the parser's next
// Feed), once per call, and decoded only by the check after the timing.
type result struct {
	calls   int    // complete tool calls
	bad     int    // toolsieve runaway and error events
	text    int    // bytes of text passed on (naive: of its last view)
	name    string // name of the last call
	args    []byte // its arguments as JSON (toolsieve, naive)
	content any    // or its decoded "content" argument (ollama)
	err     error
}

func (r result) String() string {
	return fmt.Sprintf("%d calls (last %q, %d argument bytes), %d runaway/error events, %d text bytes, err %v",
		r.calls, r.name, len(r.args), r.bad, r.text, r.err)
}

// contentArg returns the "content" argument of the last call.
func (r result) contentArg() string {
	if r.args != nil {
		var m map[string]any
		if err := json.Unmarshal(r.args, &m); err != nil {
			return "<bad JSON: " + err.Error() + ">"
		}
		s, _ := m["content"].(string)
		return s
	}
	s, _ := r.content.(string)
	return s
}

func (r *result) addToolsieve(evs []toolsieve.Event) {
	for i := range evs {
		switch evs[i].Type {
		case toolsieve.Text:
			r.text += len(evs[i].Text)
		case toolsieve.ToolCall:
			r.calls++
			r.name, r.args = evs[i].Name, append(r.args[:0], evs[i].Arguments...)
		case toolsieve.Runaway, toolsieve.Error:
			r.bad++
		}
	}
}

func toolsieveOptions(tb testing.TB) toolsieve.Options {
	tools, err := toolsieve.ParseTools([]byte(ToolsJSON))
	if err != nil {
		tb.Fatal(err)
	}
	// The same declared tool as the ollama parsers get; a cap above the
	// largest call (the default cap is 1 MiB, exactly the argument size).
	return toolsieve.Options{Tools: tools, MaxCallBytes: 4 << 20}
}

// runToolsieve feeds the chunks to a new toolsieve.Parser and closes it.
func runToolsieve(opt toolsieve.Options, chunks [][]byte) result {
	var r result
	p := toolsieve.NewParser(opt)
	for _, c := range chunks {
		r.addToolsieve(p.Feed(c))
	}
	r.addToolsieve(p.Close())
	return r
}

func ollamaTools(tb testing.TB) []api.Tool {
	var tools []api.Tool
	if err := json.Unmarshal([]byte(ToolsJSON), &tools); err != nil {
		tb.Fatal(err)
	}
	return tools
}

// floorParser is no parser: its Feed, which is not inlined, passes every
// chunk on as one text event, as a parser's short path for prose at best
// does. Its row is the least time any parser can take in this harness.
type floorParser struct {
	ev  []toolsieve.Event
	off int64
}

//go:noinline
func (f *floorParser) Feed(chunk []byte) []toolsieve.Event {
	f.ev[0].Text, f.ev[0].Offset = chunk, f.off
	f.off += int64(len(chunk))
	return f.ev
}

// runFloor feeds the chunks to a new floorParser.
func runFloor(chunks [][]byte) result {
	var r result
	f := &floorParser{ev: []toolsieve.Event{{Type: toolsieve.Text}}}
	for _, c := range chunks {
		r.addToolsieve(f.Feed(c))
	}
	return r
}

// runOllama feeds the chunks to a new ollama parser (ParserForName, then
// Init with the declared tool, no last message, no think value) with Add,
// the last chunk with done=true.
func runOllama(name string, tools []api.Tool, chunks []string) result {
	var r result
	p := parsers.ParserForName(name)
	p.Init(tools, nil, nil)
	for i, c := range chunks {
		content, _, calls, err := p.Add(c, i == len(chunks)-1)
		if err != nil {
			r.err = err
			return r
		}
		r.text += len(content)
		r.calls += len(calls)
		if len(calls) > 0 {
			last := calls[len(calls)-1].Function
			r.name = last.Name
			r.content, _ = last.Arguments.Get("content")
		}
	}
	return r
}

func (r *result) addNaive(view []byte, calls []NaiveCall) {
	r.text = len(view) // the whole visible text so far
	r.calls += len(calls)
	if len(calls) > 0 {
		r.name, r.args = calls[len(calls)-1].Name, calls[len(calls)-1].Arguments
	}
}

// runNaive feeds the chunks to a new Naive and closes it.
func runNaive(chunks [][]byte) result {
	var r result
	var n Naive
	for _, c := range chunks {
		r.addNaive(n.Feed(c))
	}
	r.addNaive(n.Close())
	return r
}

// benchCase is one input: plain prose of size bytes, or one call whose
// "content" argument is size bytes of content, written in markup.
type benchCase struct {
	input   string
	markup  Markup           // "" for plain prose
	content func(int) []byte // the call's content argument
	size    int
	peers   []string
	chunks  []int // chunk sizes (nil: 4 and 64)
}

// cases are all inputs. Each peer runs on the markup it reads: the ollama
// parsers at 1 MiB (the target size) and, for calls, also at 64 KiB, which
// shows how their cost per byte grows with the size; the naive baseline on
// plain prose at 16 KiB and 1 MiB, and on its own call markup at 4 and
// 16 KiB only (one op at 1 MiB would take hours); the floor (no parser) on
// plain prose at 1 MiB, where the ratio to ollama asked for is near it.
var cases = []benchCase{
	{"plain", "", nil, 16 << 10, []string{pNaive}, nil},
	{"plain", "", nil, 1 << 20, []string{pQwen, pDeepSeek, pNaive, pFloor}, nil},
	{"call-qwen3coder", Qwen3Coder, FileContent, 64 << 10, []string{pQwen}, nil},
	{"call-qwen3coder", Qwen3Coder, FileContent, 1 << 20, []string{pQwen}, nil},
	{"call-qwen3coder-noangle", Qwen3Coder, FileContentNoAngle, 1 << 20, []string{pQwen}, nil},
	{"call-deepseek", DeepSeek, FileContent, 64 << 10, []string{pDeepSeek}, nil},
	{"call-deepseek", DeepSeek, FileContent, 1 << 20, []string{pDeepSeek}, nil},
	{"call-anthropic", Anthropic, FileContent, 4 << 10, []string{pNaive}, nil},
	{"call-anthropic", Anthropic, FileContent, 16 << 10, []string{pNaive}, []int{64}},
}

var defaultChunks = []int{4, 64}

func (c benchCase) build() (in, content []byte) {
	if c.markup == "" {
		return Prose(c.size), nil
	}
	content = c.content(c.size)
	return Call(c.markup, content), content
}

func sizeName(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// runner returns a function that runs parser over the chunks.
func runner(tb testing.TB, parser string, chunks [][]byte) func() result {
	switch parser {
	case pToolsieve:
		opt := toolsieveOptions(tb)
		return func() result { return runToolsieve(opt, chunks) }
	case pNaive:
		return func() result { return runNaive(chunks) }
	case pFloor:
		return func() result { return runFloor(chunks) }
	case pQwen, pDeepSeek:
		tools := ollamaTools(tb)
		strs := Strings(chunks)
		name := ollamaName[parser]
		return func() result { return runOllama(name, tools, strs) }
	}
	tb.Fatalf("unknown parser %q", parser)
	return nil
}

// check verifies what a run found: no call in plain prose, and otherwise
// exactly one call of ToolName whose content argument is the input's.
func check(c benchCase, content []byte, r result) error {
	switch {
	case r.err != nil:
		return r.err
	case c.markup == "" && (r.calls != 0 || r.bad != 0):
		return fmt.Errorf("plain prose: %v", r)
	case c.markup != "" && (r.calls != 1 || r.bad != 0 || r.name != ToolName):
		return fmt.Errorf("want one %s call, got %v", ToolName, r)
	case c.markup != "" && r.contentArg() != string(content):
		return fmt.Errorf("the call's content argument is not the input's (%d bytes, want %d)", len(r.contentArg()), len(content))
	}
	return nil
}

// BenchmarkPeers runs toolsieve and the peers that read each input, on the
// same bytes cut into the same chunks (special tokens whole). Names:
// BenchmarkPeers/INPUT/size=SIZE/chunk=N/PARSER, SIZE being the prose's or
// the call argument's size. The result of the last timed run is checked
// (calls, name, the whole argument) after the timing; the metric ns/B is
// the time per op divided by the input's bytes (b.SetBytes).
func BenchmarkPeers(b *testing.B) {
	for _, c := range cases {
		in, content := c.build()
		sizes := c.chunks
		if sizes == nil {
			sizes = defaultChunks
		}
		for _, chunk := range sizes {
			chunks := Chunks(in, chunk, SpecialTokens[c.markup])
			for _, parser := range append([]string{pToolsieve}, c.peers...) {
				name := fmt.Sprintf("%s/size=%s/chunk=%d/%s", c.input, sizeName(c.size), chunk, parser)
				b.Run(name, func(b *testing.B) {
					run := runner(b, parser, chunks)
					b.SetBytes(int64(len(in)))
					b.ReportAllocs()
					var r result
					for b.Loop() {
						r = run()
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(in)), "ns/B")
					if err := check(c, content, r); err != nil {
						b.Fatal(err)
					}
				})
			}
		}
	}
}

// TestPeersAgree runs every parser of every case once, at small sizes, and
// checks the calls it finds.
func TestPeersAgree(t *testing.T) {
	for _, c := range cases {
		c.size = min(c.size, 2<<10)
		in, content := c.build()
		for _, chunk := range []int{3, 4, 64, 1 << 20} {
			chunks := Chunks(in, chunk, SpecialTokens[c.markup])
			for _, parser := range append([]string{pToolsieve}, c.peers...) {
				if err := check(c, content, runner(t, parser, chunks)()); err != nil {
					t.Errorf("%s/chunk=%d/%s: %v", c.input, chunk, parser, err)
				}
			}
		}
	}
}
