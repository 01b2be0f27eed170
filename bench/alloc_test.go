package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/fsm"
	"github.com/toolsieve/toolsieve/lexer"
)

// TestPlainTextZeroAllocs checks that a warmed-up parser fed plain text in
// 4-byte chunks allocates nothing in steady state.
func TestPlainTextZeroAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	in := prose(rng, 64<<10)
	p := toolsieve.NewParser(toolsieve.Options{})
	pass := func() {
		for i := 0; i < len(in); i += 4 {
			p.Feed(in[i:min(i+4, len(in))])
		}
	}
	pass() // warm up: buffers reach their steady size
	chunks := (len(in) + 3) / 4
	// One run of pass makes the count exact (AllocsPerRun divides by runs).
	perPass := testing.AllocsPerRun(1, pass)
	t.Logf("plain text, 4-byte chunks: %v allocations over %d chunks", perPass, chunks)
	if perPass != 0 {
		t.Errorf("plain text in 4-byte chunks: %v allocations per %d chunks, want 0", perPass, chunks)
	}
	// The same, one chunk per run.
	i := 0
	perChunk := testing.AllocsPerRun(10000, func() {
		if i >= len(in) {
			i = 0
		}
		p.Feed(in[i:min(i+4, len(in))])
		i += 4
	})
	if perChunk != 0 {
		t.Errorf("plain text: %v allocations per 4-byte chunk, want 0", perChunk)
	}

	// Code-heavy text is reported, not asserted: markers' candidates may
	// cost something.
	codeIn := code(rng, 64<<10)
	q := toolsieve.NewParser(toolsieve.Options{})
	codePass := func() {
		for i := 0; i < len(codeIn); i += 4 {
			q.Feed(codeIn[i:min(i+4, len(codeIn))])
		}
	}
	codePass()
	t.Logf("code-heavy text, 4-byte chunks: %v allocations over %d chunks", testing.AllocsPerRun(1, codePass), (len(codeIn)+3)/4)
}

// TestIdleParserMemory measures the heap held by one idle parser right
// after construction: the Parser (240 bytes), the fsm.Machine, which must
// stay within 1,784 bytes so that with the allocator's 8-byte header it
// fills the 1,792-byte size class (fields that are rarely used are made
// when first needed), and the leftovers sink (112 bytes,
// fsm/leftover.go, since 2026-11-27; the bound was 2,048 bytes before it).
func TestIdleParserMemory(t *testing.T) {
	const maxIdleParser = 240 + 1792 + 112
	const n = 1000
	// The least of three rounds: what else the process allocates between
	// two reads (a test running in parallel, the runtime) only adds.
	per := int64(math.MaxInt64)
	var before, after runtime.MemStats
	for range 3 {
		ps := make([]*toolsieve.Parser, n)
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range ps {
			ps[i] = toolsieve.NewParser(toolsieve.Options{})
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		per = min(per, (int64(after.HeapAlloc)-int64(before.HeapAlloc))/n)
		runtime.KeepAlive(ps)
	}
	t.Logf("idle parser: %d heap bytes each (%d objects each; toolsieve.Parser %d bytes, fsm.Machine %d bytes, lexer.Lexer %d bytes)",
		per, (after.Mallocs-before.Mallocs)/n, unsafe.Sizeof(toolsieve.Parser{}), unsafe.Sizeof(fsm.Machine{}), unsafe.Sizeof(lexer.Lexer{}))
	if per > maxIdleParser {
		t.Errorf("idle parser holds %d bytes, want at most %d; largest fields:\n%s\n%s\n%s", per, maxIdleParser,
			bigFields(reflect.TypeOf(toolsieve.Parser{})), bigFields(reflect.TypeOf(fsm.Machine{})),
			bigFields(reflect.TypeOf(lexer.Lexer{})))
	}

	// What a parser keeps after it has parsed a 64 KiB call and gone back
	// to idle: the room the call grew is given back (Release), at most
	// 16 KiB is kept (issue 31).
	for _, d := range []string{"anthropic", "qwen3_coder", "dsml", "gemma4", "llama4_pythonic"} {
		in := singleCall(d, fileContent(64<<10))
		per := idleAfterCall(toolsieve.Options{MaxCallBytes: len(in) + 64<<10}, in)
		t.Logf("%s: parser idle after a 64 KiB call: %d heap bytes each", d, per)
		if per > 16<<10 {
			t.Errorf("%s: an idle parser after a 64 KiB call holds %d bytes, want at most 16 KiB", d, per)
		}
	}
}

// TestLargeCallPeakMemory measures the heap a parser needs for one large
// call with a large cap: the peak of the live heap between Feeds, over the
// call's size, must stay within 2.5 (its buffer, its arguments and the room
// they grow in). The collector runs after each Feed, so that the heap seen
// is what is live, whatever else ran before.
func TestLargeCallPeakMemory(t *testing.T) {
	for _, dialect := range []string{"qwen3_coder", "dsml"} {
		in := singleCall(dialect, fileContent(24<<20))
		opt := toolsieve.Options{MaxCallBytes: 128 << 20}
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		base, peak, total := ms.HeapAlloc, ms.HeapAlloc, ms.TotalAlloc
		p := toolsieve.NewParser(opt)
		calls := 0
		for i := 0; i < len(in); i += 256 << 10 {
			evs := p.Feed(in[i:min(i+256<<10, len(in))])
			calls += feedCount(evs)
			runtime.GC() // evs, still live, hold the call's arguments
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			runtime.KeepAlive(evs)
		}
		calls += feedCount(p.Close())
		runtime.KeepAlive(p)
		ratio := float64(peak-base) / float64(len(in))
		t.Logf("%s call of %d bytes: peak live heap %.2f× its size, %.2f bytes allocated per byte", dialect, len(in), ratio,
			float64(ms.TotalAlloc-total)/float64(len(in)))
		if calls != 1 {
			t.Fatalf("%s: %d calls, want 1", dialect, calls)
		}
		if ratio > 2.5 {
			t.Errorf("%s: peak live heap %.2f× the call's size, want at most 2.5×", dialect, ratio)
		}
	}
}

// feedCount counts the tool_call events in evs.
func feedCount(evs []toolsieve.Event) int {
	n := 0
	for _, e := range evs {
		if e.Type == toolsieve.ToolCall {
			n++
		}
	}
	return n
}

// bigFields lists the fields of struct type t of 64 bytes or more.
func bigFields(t reflect.Type) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d bytes):", t, t.Size())
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.Type.Size() >= 64 {
			fmt.Fprintf(&b, " %s %s %d;", f.Name, f.Type, f.Type.Size())
		}
	}
	return b.String()
}

// TestGenerators checks that the benchmark inputs are what they claim:
// the right number of calls, no runaway, nothing left open, and plain text
// that comes back as text.
func TestGenerators(t *testing.T) {
	for _, dialect := range []string{"anthropic", "qwen3_coder"} {
		n := 64 << 10
		in := singleCall(dialect, fileContent(n))
		var got []toolsieve.Event
		for _, e := range toolsieve.Parse(in, toolsieve.Options{MaxCallBytes: n + 64<<10}) {
			if e.Type == toolsieve.ToolCall {
				got = append(got, e)
			}
		}
		if len(got) != 1 || got[0].Dialect != dialect || len(got[0].Repairs) != 0 {
			t.Fatalf("%s single call: got %d calls %v", dialect, len(got), got)
		}
		if len(got[0].Arguments) < n {
			t.Errorf("%s single call: arguments of %d bytes, want at least %d", dialect, len(got[0].Arguments), n)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for name, in := range map[string][]byte{"prose": prose(rng, 64<<10), "code": code(rng, 64<<10)} {
		var text []byte
		for _, e := range toolsieve.Parse(in, toolsieve.Options{}) {
			if e.Type != toolsieve.Text {
				t.Errorf("%s: unexpected %s event %q", name, e.Type, e.Raw)
				continue
			}
			text = append(text, e.Text...)
		}
		if string(text) != string(in) {
			t.Errorf("%s: text differs from input", name)
		}
	}
	dense, calls := toolDense(256 << 10)
	t.Logf("tool-dense text: %d calls in %d bytes", calls, len(dense))
	if calls < 100 {
		t.Errorf("tool-dense text has only %d calls in %d bytes", calls, len(dense))
	}
	if got := feedFixed(toolsieve.Options{}, dense, 7); got.calls != calls || got.runaways != 0 {
		t.Errorf("tool-dense: got %+v, want %d calls", got, calls)
	}
	for _, n := range []int{1 << 10, 256 << 10, 1 << 20} {
		in, want := mixed(uint64(n), n)
		got := feedCuts(toolsieve.Options{}, in, deltaSizes(3))
		if got.calls != want || got.runaways != 0 || got.errors != 0 {
			t.Errorf("mixed %d: got %+v, want %d calls", n, got, want)
		}
	}
}

// TestCallAtCapAllocs checks what a call near its cap allocates beyond
// its event's own bytes (Raw and Arguments, eventBytesPerByte): the
// buffers it grew through before the buffer took the cap (fsm/callbuf.go;
// less than 5/3 of the cap, growing by a quarter past 1 MiB up to a third
// of it), and the room left under the cap. Before the buffer went to the
// cap at once, a 1 MiB call allocated 2.1 bytes per byte more than its
// event, an 8 MiB one 4.3.
func TestCallAtCapAllocs(t *testing.T) {
	for _, dialect := range []string{"qwen3_coder", "anthropic", "dsml"} {
		for _, size := range []int{1 << 20, 8 << 20} {
			in := singleCall(dialect, fileContent(size))
			opt := toolsieve.Options{MaxCallBytes: len(in) + 64<<10}
			floor := eventBytesPerByte(opt, in)
			got := allocPerByte(len(in), func() { feedFixed(opt, in, 4096) })
			t.Logf("%s, %d bytes: %.2f B/B allocated, %.2f B/B in its event", dialect, len(in), got, floor)
			if got-floor > 1.5 {
				t.Errorf("%s, %d bytes: %.2f B/B allocated, %.2f more than its event's Raw and Arguments, want at most 1.5", dialect, len(in), got, got-floor)
			}
		}
	}
}
