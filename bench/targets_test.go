package bench

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/internal/cputime"
)

// The targets of issue 31, measured in one run against two floors (`make
// bench` runs TestTargets with -targets): CPU time per byte, the minimum of
// several rounds, so that ratios hold on a shared machine.
var (
	targetsOn   = flag.Bool("targets", false, "measure issue 31's targets (make bench)")
	targetsOut  = flag.String("targets.out", "", "write the targets' report to this file (bench/RESULTS.md)")
	targetsRev  = flag.String("targets.commit", "unknown", "the commit measured, for the report")
	targetsRnds = flag.Int("targets.rounds", 5, "rounds per figure; the minimum is kept")
	targetsSDK  = flag.String("targets.openai", "", "the figures of TestOpenAIRatio (module bench/peers), which make bench runs first")
)

// floorSink keeps the floors' results alive.
var floorSink int

//go:noinline
func emptyFeed(p []byte) {}

//go:noinline
func indexFeed(p []byte) { floorSink += bytes.IndexByte(p, '<') }

// cpuPerByte returns the least CPU ns per byte of op over the rounds, op
// handling n bytes; each round repeats op for at least 40 ms of CPU time.
func cpuPerByte(n int, op func()) float64 {
	return cputime.Least(*targetsRnds, 40*time.Millisecond, op) / float64(n)
}

// floorOp feeds in to f in chunk-byte pieces.
func floorOp(f func([]byte), in []byte, chunk int) func() {
	return func() {
		for i := 0; i < len(in); i += chunk {
			f(in[i:min(i+chunk, len(in))])
		}
	}
}

// allocPerByte returns the bytes one op allocates per input byte.
func allocPerByte(n int, op func()) float64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	op()
	runtime.ReadMemStats(&b)
	return float64(b.TotalAlloc-a.TotalAlloc) / float64(n)
}

// eventBytesPerByte returns the bytes of the tool_call events' Raw and
// Arguments per input byte when in is fed in 4096-byte pieces: a floor
// for the bytes a parser allocates, each event holding its own copy of
// both (Raw is a copy of input the caller may reuse, Arguments the values
// as JSON, with escapes), whatever the buffers that lead to them.
func eventBytesPerByte(opt toolsieve.Options, in []byte) float64 {
	p := toolsieve.NewParser(opt)
	n := 0
	count := func(evs []toolsieve.Event) {
		for _, e := range evs {
			if e.Type == toolsieve.ToolCall {
				n += len(e.Raw) + len(e.Arguments)
			}
		}
	}
	for i := 0; i < len(in); i += 4096 {
		count(p.Feed(in[i:min(i+4096, len(in))]))
	}
	count(p.Close())
	return float64(n) / float64(len(in))
}

// idleAfterCall returns the heap bytes a parser keeps, idle, after it
// parsed in (fed in 4096-byte pieces) and a line of text, not closed.
func idleAfterCall(opt toolsieve.Options, in []byte) int64 {
	used := make([]*toolsieve.Parser, 20)
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	for i := range used {
		used[i] = toolsieve.NewParser(opt)
		for j := 0; j < len(in); j += 4096 {
			used[i].Feed(in[j:min(j+4096, len(in))])
		}
		used[i].Feed([]byte("The file is written; next, the tests.\n"))
	}
	runtime.GC()
	runtime.ReadMemStats(&b)
	runtime.KeepAlive(used)
	return (int64(b.HeapAlloc) - int64(a.HeapAlloc)) / int64(len(used))
}

// target is one line of the report: a measured figure, its limit, and
// whether it was met; measured false prints "not measured".
type target struct {
	item, what string
	value      float64
	unit       string
	limit      float64
	measured   bool
	note       string
}

func (t target) verdict() string {
	switch {
	case !t.measured:
		return "not measured"
	case t.atLeast() && t.value >= t.limit, !t.atLeast() && t.value <= t.limit:
		return "met"
	}
	return "not met"
}

// rssTarget is the peak resident memory of a 100 MiB call over its size,
// measured in a process of its own (TestCallPeakRSS).
func rssTarget() target {
	tg := target{"3", "peak RSS of a 100 MiB call over its size (qwen3_coder, 4096-byte chunks, above the input held)", 0, "×", 2.5, false, ""}
	v, err := peakRSS(100 << 20)
	if err != nil {
		tg.note = "not measured: " + strings.ReplaceAll(err.Error(), "\n", " ")
		return tg
	}
	tg.value, tg.measured, tg.note = v, true, "TestCallPeakRSS in a child process (VmHWM after clear_refs, less VmRSS before)"
	return tg
}

// atLeast reports a target that is a floor, not a ceiling: item 5 keeps
// the rewriter at least limit times cheaper than openai-go.
func (t target) atLeast() bool { return t.item == "5" }

// sdkTarget is item 5 from the file TestOpenAIRatio (module bench/peers)
// wrote in this make bench run: the smaller of its ratios (plain text and
// calls), or not measured when there is no such file.
func sdkTarget(path string) target {
	tg := target{"5", "openai-go decoding over the rewriter, same stream (kept)", 0, "×", 30, false, ""}
	b, err := os.ReadFile(path)
	if path == "" || err != nil || len(b) == 0 {
		tg.note = "not in this run: make bench runs TestOpenAIRatio in bench/peers first (it needs openai-go)"
		return tg
	}
	var notes []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var name string
		var ratio float64
		var sdk, rw int64
		if _, err := fmt.Sscan(line, &name, &ratio, &sdk, &rw); err != nil {
			tg.note = fmt.Sprintf("unreadable figures in %s: %q", path, line)
			return tg
		}
		if !tg.measured || ratio < tg.value {
			tg.value = ratio
		}
		tg.measured = true
		notes = append(notes, fmt.Sprintf("%s: %.1f ms against %.2f ms", name, float64(sdk)/1e6, float64(rw)/1e6))
	}
	tg.note = "the smaller of plain text and calls (TestOpenAIRatio, CPU per answer): " + strings.Join(notes, "; ")
	return tg
}

// TestTargets measures issue 31's targets, and issue 23's guard cost, and prints them with their
// verdicts; with -targets.out it writes the report there.
func TestTargets(t *testing.T) {
	if !*targetsOn {
		t.Skip("run by make bench (-targets)")
	}
	began := time.Now()
	const size = 256 << 10
	proseIn := prose(rand.New(rand.NewPCG(1, 2)), size)
	codeIn := code(rand.New(rand.NewPCG(1, 2)), size)
	chunks := []int{4, 64, 4096}

	// Floors: per chunk size, over the prose input (the floors do not look
	// at the bytes' values, only IndexByte's length).
	empty, index := map[int]float64{}, map[int]float64{}
	for _, c := range chunks {
		empty[c] = cpuPerByte(len(proseIn), floorOp(emptyFeed, proseIn, c))
		index[c] = cpuPerByte(len(proseIn), floorOp(indexFeed, proseIn, c))
	}
	parse := func(opt toolsieve.Options, in []byte, chunk, calls int) float64 {
		if got := feedFixed(opt, in, chunk); got.calls != calls || got.runaways != 0 || got.errors != 0 {
			t.Fatalf("chunk %d: %+v, want %d calls", chunk, got, calls)
		}
		return cpuPerByte(len(in), func() { feedFixed(opt, in, chunk) })
	}
	tenTools := toolsieve.Options{Tools: codingTools(t)}
	type row struct {
		input string
		chunk int
		nsB   float64
	}
	var rows []row
	fig := map[string]float64{}
	measure := func(name string, opt toolsieve.Options, in []byte, chunk, calls int) float64 {
		v := parse(opt, in, chunk, calls)
		rows = append(rows, row{name, chunk, v})
		fig[fmt.Sprintf("%s/%d", name, chunk)] = v
		return v
	}
	for _, c := range chunks {
		measure("prose", toolsieve.Options{}, proseIn, c, 0)
		measure("prose, ten tools", tenTools, proseIn, c, 0)
		measure("code", toolsieve.Options{}, codeIn, c, 0)
	}
	call := singleCall("qwen3_coder", fileContent(1<<20))
	callOpt := toolsieve.Options{MaxCallBytes: len(call) + 64<<10}
	for _, c := range []int{4, 4096} {
		measure("1 MiB qwen3_coder call", callOpt, call, c, 1)
	}
	// Issue 23: the repetition guard's cost, each input with the guard on
	// against the same input with it off, measured in turns (on, off, on,
	// ...), the least of each over six times the usual rounds of a quarter
	// of their length: a figure taken far from its pair in the run moves
	// with the machine, and a 5% limit is within the noise of a few rounds.
	guardOver := func(in []byte, opt toolsieve.Options, cs []int, calls int) (worst float64, at int) {
		// The collector is off while the pair is timed (Least collects
		// before each round): its work, which the guard does not change,
		// moves a figure by more than the limit from one round to the next.
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		off := opt
		off.Runaway.NoGuard = true
		for _, c := range cs {
			parse(opt, in, c, calls) // checks the result
			on, without := math.Inf(1), math.Inf(1)
			for range 6 * *targetsRnds {
				on = min(on, cputime.Least(1, 10*time.Millisecond, func() { feedFixed(opt, in, c) }))
				without = min(without, cputime.Least(1, 10*time.Millisecond, func() { feedFixed(off, in, c) }))
			}
			if r := on / without; r > worst || at == 0 {
				worst, at = r, c
			}
		}
		return worst, at
	}
	guardProse, guardProseAt := guardOver(proseIn, toolsieve.Options{}, chunks, 0)
	guardCall, guardCallAt := guardOver(call, callOpt, []int{4, 4096}, 1)
	callAlloc := allocPerByte(len(call), func() { feedFixed(callOpt, call, 4) })
	callFloor := eventBytesPerByte(callOpt, call)
	small := singleCall("qwen3_coder", fileContent(64<<10))
	big := singleCall("qwen3_coder", fileContent(8<<20))
	smallNs := measure("64 KiB qwen3_coder call", toolsieve.Options{MaxCallBytes: len(small) + 64<<10}, small, 4, 1)
	bigNs := measure("8 MiB qwen3_coder call", toolsieve.Options{MaxCallBytes: len(big) + 64<<10}, big, 4, 1)
	var idle int64
	idleOf := ""
	for _, d := range []string{"anthropic", "qwen3_coder", "dsml", "gemma4", "llama4_pythonic"} {
		in := singleCall(d, fileContent(64<<10))
		v := idleAfterCall(toolsieve.Options{MaxCallBytes: len(in) + 64<<10}, in)
		if v > idle || idleOf == "" {
			idle, idleOf = v, d
		}
	}

	pc := proxyCost(t, 100)
	// The memory per stream of each route is the least of two rounds: the
	// first route held in a process pays for what stays allocated after it.
	mem := proxyStreamMemory(t)
	for i, v := range proxyStreamMemory(t) {
		mem[i] = min(mem[i], v)
	}

	ratio := func(key string, floor map[int]float64, c int) float64 {
		return fig[fmt.Sprintf("%s/%d", key, c)] / floor[c]
	}
	slowest := 0.0 // the largest ratio of a chunk size's ns/B to a smaller one's
	slowestOf := ""
	for _, k := range []string{"prose", "prose, ten tools", "code"} {
		for i := 1; i < len(chunks); i++ {
			for j := 0; j < i; j++ {
				r := fig[fmt.Sprintf("%s/%d", k, chunks[i])] / fig[fmt.Sprintf("%s/%d", k, chunks[j])]
				if r > slowest {
					slowest, slowestOf = r, fmt.Sprintf("%s: %d-byte chunks against %d", k, chunks[i], chunks[j])
				}
			}
		}
	}
	x := "× IndexByte floor"
	targets := []target{
		{"1", "prose, 4-byte chunks, no tools", ratio("prose", index, 4), x, 1.5, true, ""},
		{"1", "prose, 4-byte chunks, ten tools declared", ratio("prose, ten tools", index, 4), x, 1.6, true, ""},
		{"2", "prose, 4096-byte chunks", ratio("prose", index, 4096), x, 5, true, ""},
		{"2", "code, 4-byte chunks", ratio("code", index, 4), x, 4, true, ""},
		{"2", "code, 4096-byte chunks", ratio("code", index, 4096), x, 10, true, ""},
		{"2", "no chunk size slower per byte than a smaller one (worst ratio)", slowest, "×", 1, true, slowestOf},
		{"3", "1 MiB qwen3_coder call, 4-byte chunks", ratio("1 MiB qwen3_coder call", index, 4), x, 4, true, ""},
		{"3", "bytes allocated per input byte of that call", callAlloc, "B/B", 2, true,
			fmt.Sprintf("its event's Raw and Arguments alone are %.2f B/B", callFloor)},
		{"3", "flat: 8 MiB call's ns/B over the 64 KiB call's (4-byte chunks)", bigNs / smallNs, "×", 1.3, true, ""},
		rssTarget(),
		{"3", "idle parser after a 64 KiB call (worst of anthropic, qwen3_coder, dsml, gemma4, llama4_pythonic)", float64(idle), "bytes", 16 << 10, true, "worst: " + idleOf},
		{"4", "proxy CPU per streamed answer with calls, over httputil.ReverseProxy (same client and upstream in both)", pc.cpuRatio(), "×", 1.3, true,
			fmt.Sprintf("%.0f µs against %.0f µs per answer (BenchmarkProxyCost)", float64(pc.cpu[2].Microseconds())/100, float64(pc.cpu[1].Microseconds())/100)},
		{"4", "proxy memory in use per concurrent stream, over httputil.ReverseProxy (each less the direct route's)", memRatio(mem), "×", 1.3, true,
			fmt.Sprintf("%.0f, %.0f and %.0f KiB per stream direct, ReverseProxy, toolsieve (BenchmarkProxyStreamMemory, the least of two rounds; heap and stacks, not RSS)", mem[0]/1024, mem[1]/1024, mem[2]/1024)},
		{"4", "proxy TTFB p50 minus httputil.ReverseProxy's", pc.ttfbOver().Seconds() * 1000, "ms", 0.2, true,
			fmt.Sprintf("%.3f ms against %.3f ms", pc.ttfb[2].Seconds()*1000, pc.ttfb[1].Seconds()*1000)},
		sdkTarget(*targetsSDK),
		{"23", "repetition guard on over off: prose (worst of 4, 64 and 4096-byte chunks)", guardProse, "×", 1.05, true, fmt.Sprintf("worst at %d-byte chunks", guardProseAt)},
		{"23", "repetition guard on over off: 1 MiB qwen3_coder call (worst of 4 and 4096-byte chunks)", guardCall, "×", 1.05, true, fmt.Sprintf("worst at %d-byte chunks", guardCallAt)},
	}

	var sb strings.Builder
	fmt.Fprintf(&sb, "# Benchmark results: the targets of issue 31 (and issue 23's guard cost)\n\n")
	fmt.Fprintf(&sb, "Written by one `make bench` run at `%s` on %s (%d CPUs, %s, %s), in %.0f s.\n",
		*targetsRev, began.UTC().Format("2006-01-02 15:04 UTC"), runtime.NumCPU(), runtime.Version(), runtime.GOARCH, time.Since(began).Seconds())
	fmt.Fprintf(&sb, "Every ns/B is CPU time (user and system, this process) per input byte of one op (a new parser fed\n"+
		"the whole input chunk by chunk, then closed), the least of %d rounds of at least 40 ms each; ratios are\n"+
		"within this run. The peers comparison (ollama, the naive baseline) is `make bench-peers` (bench/RESULTS-peers.md).\n\n", *targetsRnds)
	fmt.Fprintf(&sb, "## Floors (256 KiB, ns/B)\n\n| chunk | empty non-inlined Feed | + bytes.IndexByte over the chunk |\n|---:|---:|---:|\n")
	for _, c := range chunks {
		fmt.Fprintf(&sb, "| %d | %.3f | %.3f |\n", c, empty[c], index[c])
	}
	fmt.Fprintf(&sb, "\n## Parser (ns/B)\n\n| input | chunk | ns/B | × empty floor | × IndexByte floor |\n|---|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&sb, "| %s | %d | %.3f | %.1f | %.1f |\n", r.input, r.chunk, r.nsB, r.nsB/empty[r.chunk], r.nsB/index[r.chunk])
	}
	fmt.Fprintf(&sb, "\n## Targets\n\n| item | target | measured | limit | verdict | note |\n|---|---|---:|---:|---|---|\n")
	for _, tg := range targets {
		v := "—"
		if tg.measured {
			v = fmt.Sprintf("%.2f %s", tg.value, tg.unit)
			if tg.unit == "bytes" {
				v = fmt.Sprintf("%.0f bytes", tg.value)
			}
		}
		lim := fmt.Sprintf("≤ %g %s", tg.limit, tg.unit)
		if tg.atLeast() {
			lim = fmt.Sprintf("≥ %g %s", tg.limit, tg.unit)
		}
		fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s | %s |\n", tg.item, tg.what, v, lim, tg.verdict(), tg.note)
	}
	fmt.Print(sb.String())
	if *targetsOut != "" {
		if err := os.WriteFile(*targetsOut, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
