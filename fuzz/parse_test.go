package fuzz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/fsm"
)

const (
	// parseMaxCall is the call cap of the fuzzed parser: small, so that
	// inputs reach it; parseSmallCall, chosen by bit 4 of the seed, is
	// smaller still, for short inputs.
	parseMaxCall   = 4096
	parseSmallCall = 256
	// parseMaxMarker is the longest marker: Holding after every Feed is at
	// most this plus the call cap, plus the calls held as a possible loop.
	parseMaxMarker = 1024
	// parseHeldCalls is how many calls may be held as a possible loop, each
	// within the cap: the largest default runaway threshold (the repetition
	// guard's, for a unit of markup).
	parseHeldCalls = 8
	// parseCorpusSeeds is how many files each go-fuzz-corpus folder gives.
	parseCorpusSeeds = 100
	// parseHang is how long one input may take before it counts as a hang.
	parseHang = 10 * time.Second
)

// parseTools are the tools declared when the fuzz seed asks for them.
const parseTools = `[
 {"type":"function","function":{"name":"read_file","parameters":{"type":"object","properties":{"path":{"type":"string"},"line":{"type":"integer"}},"required":["path"]}}},
 {"type":"function","function":{"name":"write_to_file","parameters":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}}}},
 {"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"},"metric":{"type":"boolean"}}}}}
]`

// parseOutcome is what chunking must not change.
type parseOutcome struct {
	calls []string // name, arguments and dialect of each tool_call
	text  string   // concatenated text events
}

// parseRun feeds data to a new parser in the given pieces and checks, after
// every Feed and Close, the bounds and the accounting so far: the bytes
// given back are a prefix of the input, and every call's arguments are a
// JSON object in UTF-8. It returns the outcome, or the first failure.
func parseRun(opt toolsieve.Options, data []byte, pieces [][]byte, how string) (parseOutcome, error) {
	p := toolsieve.NewParser(opt)
	validUTF8 := utf8.Valid(data) // then every event's bytes are whole characters
	var out parseOutcome
	var text []byte
	var back []byte      // text of text events and raw of the others, in order
	fed, checked := 0, 0 // bytes fed; bytes of back already compared
	var st streamCheck
	take := func(evs []toolsieve.Event, step string) error {
		for _, e := range evs {
			if opt.StreamCalls {
				if err := st.event(&e); err != nil {
					return fmt.Errorf("%s, %s: streamed calls: %v", how, step, err)
				}
			}
			if e.Type == toolsieve.Error && e.Message == fsm.ErrNoProgress {
				return fmt.Errorf("%s, %s: the machine made no progress at offset %d", how, step, e.Offset)
			}
			if validUTF8 && (!utf8.Valid(e.Text) || !utf8.Valid(e.Raw)) {
				return fmt.Errorf("%s, %s: %s event splits a character: text %q raw %q", how, step, e.Type, e.Text, e.Raw)
			}
			if e.Type != toolsieve.Error && e.Offset != int64(len(back)) {
				return fmt.Errorf("%s, %s: %s event at offset %d, %d bytes accounted before it", how, step, e.Type, e.Offset, len(back))
			}
			if e.Type == toolsieve.Text {
				back = append(back, e.Text...)
				text = append(text, e.Text...)
				continue
			}
			back = append(back, e.Raw...)
			if e.Type != toolsieve.ToolCall {
				continue
			}
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(e.Arguments, &obj); err != nil || obj == nil || !utf8.Valid(e.Arguments) {
				return fmt.Errorf("%s, %s: tool_call %q arguments are not a UTF-8 JSON object (%v): %q", how, step, e.Name, err, e.Arguments)
			}
			out.calls = append(out.calls, fmt.Sprintf("%q %s %s", e.Name, e.Arguments, e.Dialect))
		}
		if len(back) > fed || !bytes.Equal(back[checked:], data[checked:len(back)]) {
			return fmt.Errorf("%s, %s: accounting: events give back %q, not a prefix of the %d bytes fed %q", how, step, back, fed, data[:fed])
		}
		checked = len(back)
		return nil
	}
	for i, c := range pieces {
		fed += len(c)
		if err := take(p.Feed(c), fmt.Sprintf("feed %d", i)); err != nil {
			return out, err
		}
		if h, bound := p.Holding(), parseMaxMarker+(1+parseHeldCalls)*opt.MaxCallBytes; h > bound {
			return out, fmt.Errorf("%s, feed %d: holding %d bytes, bound %d", how, i, h, bound)
		}
	}
	if err := take(p.Close(), "close"); err != nil {
		return out, err
	}
	if !bytes.Equal(back, data) {
		return out, fmt.Errorf("%s: accounting: events give back %q, input %q", how, back, data)
	}
	out.text = string(text)
	return out, nil
}

// streamCheck follows the streamed calls of one run (Options.StreamCalls):
// a tool_call comes after one tool_call_start of its index, id and name,
// and its tool_call_delta pieces concatenate to its arguments.
type streamCheck struct {
	open  bool
	start toolsieve.Event
	args  []byte
}

func (s *streamCheck) event(e *toolsieve.Event) error {
	switch e.Type {
	case toolsieve.ToolCallStart:
		if s.open {
			return fmt.Errorf("start of call %d while call %d is open", e.Index, s.start.Index)
		}
		s.open, s.start, s.args = true, e.Clone(), s.args[:0]
	case toolsieve.ToolCallDelta:
		if !s.open || e.Index != s.start.Index {
			return fmt.Errorf("delta of call %d without its start", e.Index)
		}
		s.args = append(s.args, e.Arguments...)
	case toolsieve.ToolCall:
		if !s.open || e.Index != s.start.Index || e.ID != s.start.ID || e.Name != s.start.Name {
			return fmt.Errorf("call %d %q (%s) without its start", e.Index, e.Name, e.ID)
		}
		if !bytes.Equal(s.args, e.Arguments) {
			return fmt.Errorf("call %d: deltas %q, arguments %q", e.Index, s.args, e.Arguments)
		}
		s.open = false
	case toolsieve.Text, toolsieve.Runaway, toolsieve.Error:
		s.open = false // a started call that will not complete
	}
	return nil
}

// sameDecoded compares the calls of a run with streamed calls to those of
// one without: the same names and dialects, and arguments that decode to
// the same values (a name written twice counts once, the last).
func sameDecoded(plain, streamed []string) bool {
	if len(plain) != len(streamed) {
		return false
	}
	for i := range plain {
		if decodeCall(plain[i]) != decodeCall(streamed[i]) {
			return false
		}
	}
	return true
}

// decodeCall decodes the arguments of a call as parseRun writes it.
func decodeCall(c string) string {
	var name string
	n, _ := fmt.Sscanf(c, "%q", &name)
	if n != 1 {
		return c
	}
	rest := c[len(fmt.Sprintf("%q", name))+1:]
	dec := json.NewDecoder(bytes.NewReader([]byte(rest)))
	var v any
	if dec.Decode(&v) != nil {
		return c
	}
	norm, _ := json.Marshal(v)
	return name + " " + string(norm) + rest[dec.InputOffset():]
}

// parseCuts splits data in pieces derived from seed: up to 2, 8, 64 or
// 1024 bytes each, with some empty pieces when the seed says so.
func parseCuts(data []byte, seed uint64) [][]byte {
	rng := rand.New(rand.NewPCG(seed, seed>>32|1))
	maxLen := []int{2, 8, 64, 1024}[seed>>1&3]
	empties := seed>>3&1 == 1
	var pieces [][]byte
	for len(data) > 0 {
		if empties && rng.IntN(8) == 0 {
			pieces = append(pieces, data[:0])
		}
		n := min(1+rng.IntN(maxLen), len(data))
		pieces = append(pieces, data[:n])
		data = data[n:]
	}
	return pieces
}

func parseSame(want, got parseOutcome, how string, data []byte) error {
	if fmt.Sprint(want.calls) != fmt.Sprint(got.calls) {
		return fmt.Errorf("chunk invariance, %s: calls differ for input %q\nwhole: %v\n%s: %v", how, data, want.calls, how, got.calls)
	}
	if want.text != got.text {
		return fmt.Errorf("chunk invariance, %s: text differs for input %q\nwhole: %q\n%s: %q", how, data, want.text, how, got.text)
	}
	return nil
}

// parseCheck runs the three feedings of data and compares them.
func parseCheck(opt toolsieve.Options, data []byte, seed uint64, mode string) error {
	whole, err := parseRun(opt, data, [][]byte{data}, mode+", whole")
	if err != nil {
		return err
	}
	ones := make([][]byte, len(data))
	for i := range data {
		ones[i] = data[i : i+1]
	}
	how := mode + ", 1-byte chunks"
	got, err := parseRun(opt, data, ones, how)
	if err != nil {
		return err
	}
	if err := parseSame(whole, got, how, data); err != nil {
		return err
	}
	cuts := parseCuts(data, seed)
	how = fmt.Sprintf("%s, random chunks %v", mode, parseLens(cuts))
	if got, err = parseRun(opt, data, cuts, how); err != nil {
		return err
	}
	if err := parseSame(whole, got, how, data); err != nil || !opt.StreamCalls {
		return err
	}
	opt.StreamCalls = false
	plain, err := parseRun(opt, data, [][]byte{data}, mode+", not streamed")
	if err != nil {
		return err
	}
	if !sameDecoded(plain.calls, whole.calls) || plain.text != whole.text {
		return fmt.Errorf("%s: streamed calls differ from calls not streamed for input %q\nnot streamed: %v %q\nstreamed: %v %q",
			mode, data, plain.calls, plain.text, whole.calls, whole.text)
	}
	return nil
}

// addParseFixtureSeeds adds every fixture input of ../testdata/cases.
func addParseFixtureSeeds(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "cases", "*.json"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no fixtures: %v", err)
	}
	sort.Strings(files)
	k := uint64(0)
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		var cases []struct {
			Input string `json:"input"`
		}
		if err := json.Unmarshal(b, &cases); err != nil {
			f.Fatalf("%s: %v", name, err)
		}
		for _, c := range cases {
			k++
			f.Add([]byte(c.Input), k<<1)        // without declared tools
			f.Add([]byte(c.Input), k<<1|1)      // with declared tools
			f.Add([]byte(c.Input), k<<1|1<<5|1) // with declared tools, streamed calls
		}
	}
}

// addParseCorpusSeeds adds up to limit files, spread over the sorted names,
// of a go-fuzz-corpus folder when it exists.
func addParseCorpusSeeds(f *testing.F, dir string, limit int) {
	var files []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, path)
		}
		return nil
	})
	if len(files) == 0 {
		return
	}
	sort.Strings(files)
	step := max(1, len(files)/limit)
	for i := 0; i < len(files); i += step {
		b, err := os.ReadFile(files[i])
		if err != nil || len(b) > 64<<10 {
			continue
		}
		f.Add(b, uint64(i))
	}
}

// FuzzParse checks the parser on any input, with and without declared
// tools (bit 0 of the seed), with MaxCallBytes 4096 or 256 (bit 4), with
// and without streamed calls (bit 5):
//
//   - no panic, no hang (10 s per input);
//   - accounting (docs/contract.md invariant 1): text of text events and raw of
//     the others give back the input, as a prefix after every Feed and
//     whole after Close, fed whole, in 1-byte chunks and in pieces derived
//     from the seed;
//   - chunk invariance (invariant 2): the tool_call events' name, arguments
//     and dialect, and the concatenated text, are the same for the three
//     ways of feeding;
//   - bounds (invariant 4): after every Feed, Holding() is at most
//     1024 + 5 × MaxCallBytes (the call in progress and up to 4 calls held
//     as a possible loop); every tool_call's arguments are a JSON object;
//   - streamed calls: each call after one start, its deltas concatenating
//     to its arguments, and the calls and text those of the same input
//     parsed without streaming (arguments compared decoded).
//
// Seeds: every fixture input of ../testdata/cases, and up to 100 files of
// each of the xml and htmltemplate corpora of ../../shared/go-fuzz-corpus
// when it exists. The seed's other bits choose the random chunking.
func FuzzParse(f *testing.F) {
	addParseFixtureSeeds(f)
	addParseCorpusSeeds(f, filepath.Join("..", "..", "shared", "go-fuzz-corpus", "xml", "corpus"), parseCorpusSeeds)
	addParseCorpusSeeds(f, filepath.Join("..", "..", "shared", "go-fuzz-corpus", "htmltemplate", "corpus"), parseCorpusSeeds)
	tools, err := toolsieve.ParseTools([]byte(parseTools))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		opt := toolsieve.Options{MaxCallBytes: parseMaxCall, IDPrefix: "id"}
		mode := "no tools"
		if seed&1 == 1 {
			opt.Tools = tools
			mode = "tools"
		}
		if seed>>4&1 == 1 {
			opt.MaxCallBytes = parseSmallCall
		}
		if seed>>5&1 == 1 {
			opt.StreamCalls = true
			mode += ", streamed calls"
		}
		mode += fmt.Sprintf(", cap %d", opt.MaxCallBytes)
		// The checks run under a watchdog so that an input that makes the
		// parser loop fails in seconds (its goroutine is left spinning).
		done := make(chan error, 1)
		go func() {
			defer func() {
				if r := recover(); r != nil {
					done <- fmt.Errorf("%s: panic on input %q: %v\n%s", mode, data, r, debug.Stack())
				}
			}()
			done <- parseCheck(opt, data, seed, mode)
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(parseHang):
			t.Fatalf("%s: hang: no result after %v on input %q", mode, parseHang, data)
		}
	})
}

func parseLens(pieces [][]byte) []int {
	n := make([]int, len(pieces))
	for i, p := range pieces {
		n[i] = len(p)
	}
	return n
}
