package toolsieve

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"hash"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// Bad input must give events: never a panic, a hang or unbounded memory.
// These tests feed malformed, hostile and huge inputs and check, at every
// step, the bounds (Holding at most the call cap plus the longest marker,
// plus the calls held as a possible loop)
// and, at the end, the accounting (invariant 1) by length and hash, so that
// nothing large is kept. Run with -short to shrink the largest inputs.

const robustMarker = 1024 // the longest marker the lexer holds back

// robustHeld is how many calls, each within the cap, may be held as a
// possible loop: the larger default runaway threshold.
const robustHeld = 4

// robustStream feeds one parser and checks it as it goes. Its methods
// return the first failure as an error instead of calling t, so that the
// feeding can run under a watchdog goroutine.
type robustStream struct {
	way      string // how the input is fed, for messages
	p        *Parser
	cap      int // the call cap in force
	heapMax  uint64
	heapStep int // sample heap in use every heapStep feeds (0: never)

	in, out       hash.Hash
	fed, back     int64
	feeds         int
	maxHold       int
	maxHeap       uint64
	types         map[EventType]int
	reasons       []string // runaway reasons, in order
	runawayAt     int64    // bytes fed when the first runaway came, -1 if none
	runawayRaw    int      // length of the first runaway's raw bytes
	holdAfterStop int      // the largest Holding after the first runaway
	calls         []string // name, arguments, dialect of the first calls
	ncalls        int
	text          hash.Hash
	textHead      []byte // the text, while it is short
	textLen       int64
	err           error
}

func newRobustStream(opt Options) *robustStream {
	c := opt.MaxCallBytes
	if c <= 0 {
		c = 1 << 20
	}
	return &robustStream{p: NewParser(opt), cap: c, in: sha256.New(), out: sha256.New(),
		text: sha256.New(), types: map[EventType]int{}, runawayAt: -1}
}

func (s *robustStream) fail(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf(format, args...)
	}
}

func (s *robustStream) take(evs []Event) {
	for i := range evs {
		e := &evs[i]
		s.types[e.Type]++
		if e.Type == Text {
			s.out.Write(e.Text)
			s.text.Write(e.Text)
			s.textLen += int64(len(e.Text))
			if s.textLen <= 512 {
				s.textHead = append(s.textHead, e.Text...)
			}
			s.back += int64(len(e.Text))
			continue
		}
		s.out.Write(e.Raw)
		s.back += int64(len(e.Raw))
		switch e.Type {
		case Runaway:
			if len(s.reasons) < 8 {
				s.reasons = append(s.reasons, e.Reason.String())
			}
			if s.runawayAt < 0 {
				s.runawayAt = s.fed
				s.runawayRaw = len(e.Raw)
			}
		case ToolCall:
			s.ncalls++
			if len(s.calls) < 64 {
				s.calls = append(s.calls, fmt.Sprintf("%q %s %s", e.Name, e.Arguments, e.Dialect))
			}
			if len(e.Raw) > s.cap+robustMarker {
				s.fail("tool_call %q of %d raw bytes, past the cap %d", e.Name, len(e.Raw), s.cap)
			}
			if !robustJSONObject(e.Arguments) {
				s.fail("tool_call %q arguments are not a UTF-8 JSON object: %.200q", e.Name, e.Arguments)
			}
		}
	}
	if s.back > s.fed {
		s.fail("events gave back %d bytes, only %d fed", s.back, s.fed)
	}
}

// robustJSONObject reports whether b is a JSON object in valid UTF-8.
func robustJSONObject(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{' && json.Valid(b) && utf8.Valid(b)
}

func (s *robustStream) feed(chunk []byte) {
	s.in.Write(chunk)
	s.fed += int64(len(chunk))
	s.take(s.p.Feed(chunk))
	s.feeds++
	h := s.p.Holding()
	s.maxHold = max(s.maxHold, h)
	if bound := (1+robustHeld)*s.cap + robustMarker; h > bound {
		s.fail("after %d bytes: holding %d bytes, bound %d (cap %d, %d held calls, + %d)", s.fed, h, bound, s.cap, robustHeld, robustMarker)
	}
	if s.runawayAt >= 0 {
		s.holdAfterStop = max(s.holdAfterStop, h)
	}
	if s.heapStep > 0 && s.feeds%s.heapStep == 0 {
		s.sampleHeap()
	}
}

func (s *robustStream) sampleHeap() {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	s.maxHeap = max(s.maxHeap, ms.HeapInuse)
	if s.heapMax > 0 && ms.HeapInuse > s.heapMax {
		s.fail("after %d bytes: heap in use %d MiB, limit %d MiB", s.fed, ms.HeapInuse>>20, s.heapMax>>20)
	}
}

// close ends the stream and checks the accounting.
func (s *robustStream) close() {
	s.take(s.p.Close())
	// Holding after Close is not checked: it may still count the bytes of
	// the last marker, which have been reported (the accounting below is
	// what matters).
	if s.back != s.fed {
		s.fail("accounting: events gave back %d bytes, %d fed", s.back, s.fed)
	} else if !bytes.Equal(s.in.Sum(nil), s.out.Sum(nil)) {
		s.fail("accounting: events gave back %d bytes as fed, but different ones", s.back)
	}
}

// summary is what must not depend on chunking.
func (s *robustStream) summary() string {
	if s.textLen <= 512 {
		return fmt.Sprintf("calls %d %v text %q", s.ncalls, s.calls, s.textHead)
	}
	return fmt.Sprintf("calls %d %v text of %d bytes, sha256 %x", s.ncalls, s.calls, s.textLen, s.text.Sum(nil))
}

func (s *robustStream) typeCounts() string {
	var b strings.Builder
	for t := Text; t <= Error; t++ {
		if n := s.types[t]; n > 0 {
			fmt.Fprintf(&b, "%s:%d ", t, n)
		}
	}
	return strings.TrimSpace(b.String())
}

// robustRun runs feed (which calls s.feed) and s.close under a watchdog:
// the test fails if they take longer than limit.
func robustRun(t *testing.T, s *robustStream, limit time.Duration, feed func(s *robustStream)) {
	t.Helper()
	done := make(chan any, 1)
	start := time.Now()
	go func() {
		defer func() { done <- recover() }()
		feed(s)
		s.close()
	}()
	select {
	case r := <-done:
		if r != nil {
			t.Fatalf("%s: panic after %d bytes fed: %v", s.way, s.fed, r)
		}
	case <-time.After(limit):
		t.Fatalf("%s: hang: still running after %v, %d bytes fed", s.way, limit, s.fed)
	}
	if s.err != nil {
		t.Fatalf("%s: %v", s.way, s.err)
	}
	t.Logf("%s: %d bytes in %d feeds, %v: %s; max holding %d; runaway %v at %d bytes",
		s.way, s.fed, s.feeds, time.Since(start).Round(time.Millisecond), s.typeCounts(), s.maxHold, s.reasons, s.runawayAt)
}

// robustChunks feeds in in pieces of n bytes (n <= 0: whole).
func robustChunks(in []byte, n int) func(s *robustStream) {
	return func(s *robustStream) {
		if n <= 0 {
			s.feed(in)
			return
		}
		for i := 0; i < len(in); i += n {
			s.feed(in[i:min(i+n, len(in))])
		}
	}
}

// robustRandom feeds in in pieces of 1 to 64 bytes.
func robustRandom(in []byte, seed uint64) func(s *robustStream) {
	return func(s *robustStream) {
		rng := rand.New(rand.NewPCG(seed, 99))
		for i := 0; i < len(in); {
			n := min(1+rng.IntN(64), len(in)-i)
			s.feed(in[i : i+n])
			i += n
		}
	}
}

// robustAllWays runs in whole, in 1-byte chunks, in 64 KiB chunks and in
// random pieces, checks each run, and checks that the calls and the text do
// not depend on the chunking. It returns the whole-input run.
func robustAllWays(t *testing.T, opt Options, in []byte) *robustStream {
	t.Helper()
	return robustAllWaysWithin(t, opt, in, 2*time.Minute)
}

// robustAllWaysWithin is robustAllWays with a watchdog limit for each run.
func robustAllWaysWithin(t *testing.T, opt Options, in []byte, limit time.Duration) *robustStream {
	t.Helper()
	ways := []struct {
		name string
		feed func(*robustStream)
	}{
		{"whole", robustChunks(in, 0)},
		{"1-byte", robustChunks(in, 1)},
		{"64KiB", robustChunks(in, 64<<10)},
		{"random", robustRandom(in, uint64(len(in)))},
	}
	var first *robustStream
	for _, w := range ways {
		s := newRobustStream(opt)
		s.way = w.name
		robustRun(t, s, limit, w.feed)
		if first == nil {
			first = s
		} else if got, want := s.summary(), first.summary(); got != want {
			t.Fatalf("chunk invariance: %s gives %.500s\nwhole gives %.500s", w.name, got, want)
		}
	}
	return first
}

func robustTools(t *testing.T) *Tools {
	tools, err := ParseTools([]byte(`[
 {"type":"function","function":{"name":"read_file","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}},
 {"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}}}}}]`))
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

// TestBadInvalidUTF8 feeds invalid UTF-8 in text, names, values, JSON and
// inside multi-byte markers.
func TestBadInvalidUTF8(t *testing.T) {
	inputs := map[string]string{
		"text":          "\xff\xfe\xfd plain \x80\x80 text \xc3 end \xed\xa0\x80 \xf4\x90\x80\x80 \xc0\xaf",
		"anthropic":     "<function_calls>\n<invoke name=\"get_\xffweather\">\n<parameter name=\"ci\xc0ty\">S\xe2\x82F\xff</parameter>\n</invoke>\n</function_calls>\nafter",
		"dsml":          "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"x\xfe\">\n<｜DSML｜parameter name=\"v\" string=\"true\">\xed\xa0\x80 surrogate \xff</｜DSML｜parameter>\n<｜DSML｜parameter name=\"n\" string=\"false\">{\"a\":\"\xff\"}</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
		"broken bar":    "<\xef\xbdDSML\xef\xbd\x9cinvoke name=\"x\">\n<\xef\xbd\x9cDSML\xefparameter name=\"v\">1</｜DSML｜parameter>\n</｜DSML\xbd｜invoke>",
		"qwen3_coder":   "<tool_call>\n<function=f\xff>\n<parameter=p\xfe>\n\xf8\x88\x80\x80\x80\n</parameter>\n</function>\n</tool_call>",
		"hermes":        "<tool_call>\n{\"name\": \"f\xff\", \"arguments\": {\"x\": \"\xff\xfe\", \"\xc3\": 1}}\n</tool_call>",
		"glm":           "<tool_call>f\xff\n<arg_key>k\xfe</arg_key>\n<arg_value>\xc3\x28</arg_value>\n</tool_call>",
		"kimi":          "<|tool_calls_section_begin|><|tool_call_begin|>functions.f\xff:0<|tool_call_argument_begin|>{\"a\":\"\xc3\"}<|tool_call_end|><|tool_calls_section_end|>",
		"harmony":       "<|start|>assistant<|channel|>commentary to=functions.g\xff <|constrain|>json<|message|>{\"c\":\"\xfe\"}<|call|>",
		"mistral":       "[TOOL_CALLS][{\"name\": \"g\xff\", \"arguments\": {\"c\": \"\xfe\"}}]",
		"cut at end":    "text and a bar ｜"[:len("text and a bar ｜")-1],
		"tool_tag":      "<read_file>\n<path>a\xff.go</path>\n</read_file>",
		"json":          "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"\xffParis\"}}",
		"itc":           "<invoke_tool_call>\n<tool name=\"shell\xff\" args=\"{\\\"c\\\": \\\"\xfe\\\"}\"/>\n</invoke_tool_call>",
		"think":         "<think>\xff\xfe</think><function_calls><invoke name=\"a\"><parameter name=\"b\">\xff</parameter></invoke></function_calls>",
		"ascii folding": "<FUNCTION_CALLS>\n<INVOKE NAME=\"\xe2\x80\x9cx\xe2\x80\x9d\xff\">\n</INVOKE>\n</FUNCTION_CALLS>",
	}
	rng := rand.New(rand.NewPCG(5, 5))
	var noise []byte
	pieces := []string{"<function_calls>", "<invoke name=\"", "\">", "</invoke>", "<tool_call>", "<｜DSML｜", "｜", "<|", "|>", "[TOOL_CALLS]", "{\"", "\":", "}", "</parameter>", "```"}
	for len(noise) < 8<<10 {
		if rng.IntN(3) == 0 {
			noise = append(noise, pieces[rng.IntN(len(pieces))]...)
		} else {
			noise = append(noise, byte(rng.IntN(256)))
		}
	}
	inputs["random bytes"] = string(noise)
	tools := robustTools(t)
	for name, in := range inputs {
		for _, withTools := range []bool{false, true} {
			opt := Options{}
			if withTools {
				opt.Tools = tools
			}
			t.Run(fmt.Sprintf("%s/tools=%v", name, withTools), func(t *testing.T) {
				s := robustAllWays(t, opt, []byte(in))
				t.Logf("calls: %v", s.calls)
			})
		}
	}
}

// TestBadNULBytes puts NUL bytes in text, tags, names and values.
func TestBadNULBytes(t *testing.T) {
	inputs := map[string]string{
		"text":      "a\x00b\x00\x00c",
		"in tag":    "<\x00function_calls>\n<invoke\x00name=\"a\">\n</invoke>\n</function_calls\x00>",
		"in name":   "<function_calls>\n<invoke name=\"a\x00b\">\n<parameter name=\"k\x00\">\x00v\x00</parameter>\n</invoke>\n</function_calls>",
		"qwen":      "<tool_call>\n<function=f\x00>\n<parameter=p>\n\x00\n</parameter>\n</function>\n</tool_call>",
		"hermes":    "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"x\": \"a\x00b\"}}\n</tool_call>",
		"dsml json": "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"x\">\n<｜DSML｜parameter name=\"n\" string=\"false\">\x00{\"a\":\x001}</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
		"only NUL":  strings.Repeat("\x00", 4096),
		"NUL mixed": strings.Repeat("<\x00|\x00｜\x00[\x00`\x00", 512),
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			s := robustAllWays(t, Options{}, []byte(in))
			t.Logf("calls: %v", s.calls)
		})
	}
}

// TestBadNestedOpeners repeats an opener 100,000 times: a runaway must be
// reported, once, and the parser must stay bounded afterwards.
func TestBadNestedOpeners(t *testing.T) {
	const n = 100000
	cases := []struct {
		name, prefix, opener string
		runaway              bool
	}{
		{"function_calls", "", "<function_calls>", true},
		{"invoke", "", "<invoke name=\"a\">", true},
		{"tool_call", "", "<tool_call>", true},
		{"dsml invoke", "", "<｜DSML｜invoke name=\"x\">", true},
		{"invoke in block", "<function_calls>\n", "<invoke name=\"a\">\n", true},
		{"dsml block", "", "<｜DSML｜function_calls>\n", true},
		// Not required to be runaways; bounds and accounting only.
		{"parameter", "<function_calls>\n<invoke name=\"a\">\n", "<parameter name=\"p\">", false},
		{"qwen parameter", "<tool_call>\n<function=f>\n", "<parameter=p>\n", false},
		{"think", "", "<think>", false},
		{"stray closers", "", "</invoke>\n", true},
		{"kimi", "", "<|tool_calls_section_begin|>", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := []byte(c.prefix + strings.Repeat(c.opener, n))
			s := robustAllWays(t, Options{}, in)
			if !c.runaway {
				return
			}
			if got := s.types[Runaway]; got != 1 {
				t.Errorf("%d runaway events, want 1", got)
			}
			if s.runawayAt < 0 {
				return
			}
			// Whole-input run: the runaway came in the only Feed; check with
			// small chunks that it comes early and the parser then holds
			// little.
			sc := newRobustStream(Options{})
			sc.way = "16-byte chunks"
			robustRun(t, sc, time.Minute, robustChunks(in, 16))
			if sc.runawayAt > 64<<10 {
				t.Errorf("runaway only after %d bytes", sc.runawayAt)
			}
			if sc.holdAfterStop > robustMarker {
				t.Errorf("holding %d bytes after the runaway", sc.holdAfterStop)
			}
		})
	}
}

// TestBadHugeAttribute writes a 10 MiB attribute value or name: the parser
// must give it back (as text, discard or runaway) within its bounds.
func TestBadHugeAttribute(t *testing.T) {
	big := bytes.Repeat([]byte("abcdefgh "), (10<<20)/9)
	cases := []struct{ name, before, after string }{
		{"invoke name", "<invoke name=\"", "\">\n<parameter name=\"x\">1</parameter>\n</invoke>\n"},
		{"invoke name in block", "<function_calls>\n<invoke name=\"", "\">\n</invoke>\n</function_calls>\n"},
		{"parameter name", "<function_calls>\n<invoke name=\"a\">\n<parameter name=\"", "\">1</parameter>\n</invoke>\n</function_calls>\n"},
		{"dsml invoke name", "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"", "\">\n</｜DSML｜invoke>\n</｜DSML｜function_calls>\n"},
		{"qwen function", "<tool_call>\n<function=", ">\n</function>\n</tool_call>\n"},
		{"itc args", "<invoke_tool_call>\n<tool name=\"shell\" args=\"", "\"/>\n</invoke_tool_call>\n"},
		{"unquoted", "<invoke name=", ">\n</invoke>\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := append(append([]byte(c.before), big...), c.after...)
			in = append(in, "Text after.\n<function_calls>\n<invoke name=\"after\">\n<parameter name=\"k\">v</parameter>\n</invoke>\n</function_calls>\n"...)
			ways := []struct {
				name string
				feed func(*robustStream)
			}{
				{"whole", robustChunks(in, 0)},
				{"64KiB", robustChunks(in, 64<<10)},
				{"4KiB", robustChunks(in, 4<<10)},
				{"7B", robustChunks(in, 7)},
			}
			var want string
			for _, w := range ways {
				s := newRobustStream(Options{})
				s.way = w.name
				robustRun(t, s, 2*time.Minute, w.feed)
				if want == "" {
					want = s.summary()
					t.Logf("calls: %.300v", s.calls)
				} else if got := s.summary(); got != want {
					t.Errorf("chunk invariance: %s gives %.300s\nwhole gives %.300s", w.name, got, want)
				}
			}
		})
	}
}

// robustUnclosed streams prefix and then size bytes of call content, never
// closed, in 64 KiB chunks, generating the content on the fly: numbered
// lines, so that no line repeats the one before (a loop, for the guard).
func robustUnclosed(prefix string, size int) func(s *robustStream) {
	return func(s *robustStream) {
		const chunk = 64 << 10
		var buf []byte
		line := 0
		s.feed([]byte(prefix))
		for sent := 0; sent < size; {
			for len(buf) < chunk {
				line++
				buf = fmt.Appendf(buf, "\tfor i := 0; i < n; i++ { total += xs[i] * %d } // line %d of a file that never ends\n", line%7, line)
			}
			n := min(chunk-line%5, size-sent) // vary the alignment of chunk and line
			s.feed(buf[:n])
			buf = append(buf[:0], buf[n:]...)
			sent += n
		}
	}
}

// TestRobustUnclosedCall streams a call that never closes: 100 MiB (4 MiB
// with -short) in 64 KiB chunks with the default 1 MiB cap. Holding must
// stay within the cap plus 1 KiB at every step, the heap in use below
// 64 MiB, and a runaway must come as soon as the call passes the cap.
func TestRobustUnclosedCall(t *testing.T) {
	size := 100 << 20
	if testing.Short() {
		size = 4 << 20
	}
	prefixes := map[string]string{
		"anthropic":   "Writing it.\n<function_calls>\n<invoke name=\"write_to_file\">\n<parameter name=\"content\">",
		"qwen3_coder": "Writing it.\n<tool_call>\n<function=write_to_file>\n<parameter=content>\n",
		"hermes":      "Writing it.\n<tool_call>\n{\"name\": \"write_to_file\", \"arguments\": {\"content\": \"",
		"dsml":        "Writing it.\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"write_to_file\">\n<｜DSML｜parameter name=\"content\" string=\"true\">",
		"json body":   "Writing it.\n<function_calls>\n<invoke name=\"write_to_file\">\n{\"content\": \"",
		"glm":         "Writing it.\n<tool_call>write_to_file\n<arg_key>content</arg_key>\n<arg_value>",
		"itc":         "Writing it.\n<invoke_tool_call>\n<tool name=\"write_to_file\" args=\"{\\\"content\\\": \\\"",
	}
	const cap = 1 << 20
	for name, prefix := range prefixes {
		t.Run(name, func(t *testing.T) {
			s := newRobustStream(Options{})
			s.way = "64 KiB chunks"
			s.heapStep = 16
			s.heapMax = 64 << 20
			robustRun(t, s, 5*time.Minute, robustUnclosed(prefix, size))
			s.sampleHeap()
			if s.err != nil {
				t.Fatal(s.err)
			}
			t.Logf("max heap in use %d MiB", s.maxHeap>>20)
			if s.maxHold > cap+robustMarker { // no call was held: one call in progress
				t.Errorf("holding %d bytes, past the cap %d plus %d", s.maxHold, cap, robustMarker)
			}
			if s.runawayAt < 0 {
				t.Fatalf("no runaway for an unclosed call of %d bytes (cap %d)", size, cap)
			}
			if s.reasons[0] != "call_too_large" {
				t.Errorf("runaway reason %q, want call_too_large", s.reasons[0])
			}
			// The call's bytes pass the cap in the chunk that brings the
			// total past len(prefix)+cap at the latest; it cannot before
			// the cap is reached.
			if s.runawayAt < cap || s.runawayAt > int64(len(prefix)+cap+64<<10) {
				t.Errorf("runaway after %d bytes fed, want between %d and %d", s.runawayAt, cap, len(prefix)+cap+64<<10)
			}
			// The runaway's raw holds the call's markup buffered so far (the
			// rest of the stream comes as after_runaway discards), so it is
			// bounded by the cap plus what one chunk added.
			t.Logf("runaway raw of %d bytes", s.runawayRaw)
			if s.runawayRaw > cap+64<<10+robustMarker {
				t.Errorf("runaway raw of %d bytes, past the cap %d plus one chunk", s.runawayRaw, cap)
			}
			if s.types[Runaway] != 1 {
				t.Errorf("%d runaway events, want 1", s.types[Runaway])
			}
			if s.holdAfterStop > robustMarker {
				t.Errorf("holding %d bytes after the runaway", s.holdAfterStop)
			}
		})
	}
}

// TestBadMarkerFlood fills 10 MiB with marker starts that never complete:
// the hold-back must stay bounded and the time linear.
func TestBadMarkerFlood(t *testing.T) {
	size := 10 << 20
	if testing.Short() {
		size = 1 << 20
	}
	floods := map[string]string{
		"lt":            "<",
		"lt bar":        "<|",
		"lt fullwidth":  "<｜",
		"dsml prefix":   "<｜DSML",
		"tool_call pre": "<tool_cal",
		"brackets":      "[TOOL_CALL",
		"backticks":     "`",
		"lt quote":      "<invoke name=\"",
		"braces":        "{\"name\": ",
	}
	tools := robustTools(t)
	for name, unit := range floods {
		for _, withTools := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/tools=%v", name, withTools), func(t *testing.T) {
				opt := Options{}
				if withTools {
					opt.Tools = tools
				}
				in := bytes.Repeat([]byte(unit), size/len(unit))
				var want string
				for _, chunk := range []int{64 << 10, 5} {
					s := newRobustStream(opt)
					s.way = fmt.Sprintf("%d-byte chunks", chunk)
					robustRun(t, s, 2*time.Minute, robustChunks(in, chunk))
					if want == "" {
						want = s.summary()
					} else if got := s.summary(); got != want {
						t.Errorf("chunk invariance: chunk %d gives %.300s\n64 KiB chunks give %.300s", chunk, got, want)
					}
				}
			})
		}
	}
}

// TestBadFuzzFindings keeps the minimal inputs that broke an invariant when
// FuzzParse and the tests above first ran (also in
// fuzz/testdata/fuzz/FuzzParse), fed whole, in 1-byte chunks and in random
// pieces, each run under a 10 s watchdog.
func TestBadFuzzFindings(t *testing.T) {
	cases := []struct {
		name, in string
		cap      int
	}{
		// Chunk invariance: a JSON body that fails after two bytes, then
		// '>': whole input gives text ">", 1-byte chunks put it in the call.
		{"invoke json body junk then gt", "<invoke name=\"0\"{0A>", 0},
		{"hermes json junk then gt", "<toolCAll {\"nAme\":\"t\"0A>", 0},
		// Chunk invariance: the same, then text: 1-byte chunks discard it.
		{"tool_call json junk gt then text", "<tool_call>{0A>A", 0},
		// Arguments not a JSON object: invoke_tool_call args="5".
		{"itc args not an object", "<invoke_tool_call>\n<tool name=\"a\" args=\"5\"/>\n</invoke_tool_call>", 0},
		{"itc args array", "<invoke_tool_call>\n<tool name=\"a\" args=\"[1,2]\"/>\n</invoke_tool_call>", 0},
		// Hang: a deepseek call with an empty name before its JSON.
		{"deepseek empty name", "<｜tool▁call▁begin｜><｜tool▁sep｜>{", 0},
		{"deepseek empty name newline", "<｜tool▁call▁begin｜><｜tool▁sep｜>\ne", 0},
		// Accounting (bytes given back twice): a block opener right after
		// markup that is given back as text.
		{"unclosed invoke then opener", "<invoke name<calls>", 0},
		{"mistral marker then opener", "[TOOL_CALLS]<tool_call>", 0},
		{"unclosed invoke then wrapper", "<invoke name=\"a\"<function_calls>x", 0},
		// Panic: loose text in a block passing the cap in one Feed.
		{"loose text past cap", "<tool_call>" + strings.Repeat("x", 65), 64},
		{"loose text past cap in call", "<function_calls>\n<invoke name=\"a\">\n" + strings.Repeat("x", 100), 64},
		// Chunk invariance: a closer without '<' after a failed opener.
		{"closer without lt", "<tool_call {\"\":\"tool_call>", 0},
		{"closer without lt after failed invoke", "<calls<invoke {0function_calls>", 0},
		// Chunk invariance of a call's arguments: a closer without '<'
		// inside a JSON string of an unclosed invoke.
		{"json string closer without lt", "<calls<invoke name=\"a\"{\"\":\"function_calls>", 0},
		{"invoke empty name json junk closer", "<invoke nAme=\"\"{0invoke> ", 0},
		{"hermes name closer without lt", "<tool_call>{\"name\":\"/tool_call>", 0},
		// Hang: a kimi call with an empty name before its JSON.
		{"kimi empty name", "<|tool_call_begin|><|tool_call_argument_begin|>{", 0},
		{"deepseek v3 empty name", "<｜tool▁call▁begin｜>function<｜tool▁sep｜>{", 0},
		// Panic in 1-byte chunks: a closer without '<' in a JSON body.
		{"json body closer without lt", "<tool_call>{Atool_call>", 0},
	}
	tools := robustTools(t)
	for _, c := range cases {
		for _, withTools := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/tools=%v", c.name, withTools), func(t *testing.T) {
				opt := Options{MaxCallBytes: c.cap}
				if withTools {
					opt.Tools = tools
				}
				robustAllWaysWithin(t, opt, []byte(c.in), 2*time.Minute)
			})
		}
	}
}
