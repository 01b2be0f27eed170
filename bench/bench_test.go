// Package bench measures the toolsieve parser: cost per byte of one large
// call, of plain and code-heavy text, and of whole mixed streams.
//
// Run:
//
//	go test ./bench -run XXX -bench . -benchtime 3x
//
// Every benchmark reports MB/s (b.SetBytes), allocations, and a custom
// "ns/B" metric. Linearity is read from the output: for BenchmarkCallScaling
// and BenchmarkStreamScaling, ns/B should stay flat as the size grows (the
// ratio of ns/B at 16 MiB to ns/B at 64 KiB is the scaling factor; 1 means
// linear). The unit tests here (TestPlainTextZeroAllocs,
// TestIdleParserMemory, TestGenerators) are not timed.
package bench

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/toolsieve/toolsieve"
)

// tally counts the events a benchmark run produced.
type tally struct {
	calls, runaways, errors int
}

func (t *tally) add(evs []toolsieve.Event) {
	for i := range evs {
		switch evs[i].Type {
		case toolsieve.ToolCall:
			t.calls++
		case toolsieve.Runaway:
			t.runaways++
		case toolsieve.Error:
			t.errors++
		}
	}
}

// feedFixed feeds in to a new parser in chunk-byte pieces and closes it.
func feedFixed(opt toolsieve.Options, in []byte, chunk int) tally {
	var t tally
	p := toolsieve.NewParser(opt)
	for i := 0; i < len(in); i += chunk {
		t.add(p.Feed(in[i:min(i+chunk, len(in))]))
	}
	t.add(p.Close())
	return t
}

// feedCuts feeds in to a new parser in pieces whose sizes cycle through
// sizes, and closes it.
func feedCuts(opt toolsieve.Options, in []byte, sizes []int) tally {
	var t tally
	p := toolsieve.NewParser(opt)
	k := 0
	for i := 0; i < len(in); {
		n := min(sizes[k], len(in)-i)
		k++
		if k == len(sizes) {
			k = 0
		}
		t.add(p.Feed(in[i : i+n]))
		i += n
	}
	t.add(p.Close())
	return t
}

// deltaSizes are chunk sizes like those of streamed deltas: mostly a few
// bytes (one token), sometimes more.
func deltaSizes(seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, 1))
	s := make([]int, 4096)
	for i := range s {
		if rng.IntN(10) == 0 {
			s[i] = 16 + rng.IntN(112)
		} else {
			s[i] = 1 + rng.IntN(12)
		}
	}
	return s
}

func reportNsPerByte(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/B")
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

// BenchmarkCallScaling measures one call whose parameter value is N bytes,
// fed in 4-byte chunks. ns/B should not grow with N. allocB/B is the bytes
// a new parser allocates per input byte (B/op over the input's size).
func BenchmarkCallScaling(b *testing.B) {
	for _, dialect := range []string{"anthropic", "qwen3_coder", "dsml", "llama4_pythonic", "gemma4"} {
		for _, n := range []int{64 << 10, 1 << 20, 8 << 20, 16 << 20} {
			in := singleCall(dialect, fileContent(n))
			opt := toolsieve.Options{MaxCallBytes: len(in) + 64<<10} // escaped values are longer than n
			b.Run(dialect+"/"+sizeName(n), func(b *testing.B) {
				b.SetBytes(int64(len(in)))
				b.ReportAllocs()
				var t tally
				var before runtime.MemStats
				runtime.ReadMemStats(&before)
				for b.Loop() {
					t = feedFixed(opt, in, 4)
				}
				if t.calls != 1 || t.runaways != 0 || t.errors != 0 {
					b.Fatalf("got %d calls, %d runaways, %d errors; want one call", t.calls, t.runaways, t.errors)
				}
				reportNsPerByte(b, len(in))
				reportAllocPerByte(b, &before, len(in))
			})
		}
	}
}

// reportAllocPerByte reports the bytes allocated since before, per op and
// per input byte (n bytes an op).
func reportAllocPerByte(b *testing.B, before *runtime.MemStats, n int) {
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(n), "allocB/B")
}

// BenchmarkPlainText measures text without calls (prose, then code-heavy
// text full of '<', '[', backticks and HTML) and tool-dense text (fixture
// inputs of every dialect between prose), fed in fixed-size chunks.
func BenchmarkPlainText(b *testing.B) {
	const size = 256 << 10
	rng := rand.New(rand.NewPCG(1, 2))
	dense, denseCalls := toolDense(size)
	kinds := []struct {
		name  string
		in    []byte
		calls int
	}{
		{"prose", prose(rng, size), 0},
		{"code", code(rng, size), 0},
		{"tools", dense, denseCalls},
	}
	for _, k := range kinds {
		for _, chunk := range []int{1, 4, 64, 4096} {
			b.Run(fmt.Sprintf("%s/chunk=%d", k.name, chunk), func(b *testing.B) {
				b.SetBytes(int64(len(k.in)))
				b.ReportAllocs()
				var t tally
				for b.Loop() {
					t = feedFixed(toolsieve.Options{}, k.in, chunk)
				}
				if t.calls != k.calls || t.runaways != 0 {
					b.Fatalf("got %d calls, %d runaways; want %d calls", t.calls, t.runaways, k.calls)
				}
				reportNsPerByte(b, len(k.in))
			})
		}
	}
}

// BenchmarkStreamScaling measures whole streams of mixed content (prose,
// code, calls in several dialects) from 1 KiB to 16 MiB, fed in
// delta-like chunks. ns/B should not grow with the size.
func BenchmarkStreamScaling(b *testing.B) {
	sizes := deltaSizes(3)
	for _, n := range []int{1 << 10, 16 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20} {
		in, calls := mixed(uint64(n), n)
		b.Run(sizeName(n), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			var t tally
			for b.Loop() {
				t = feedCuts(toolsieve.Options{}, in, sizes)
			}
			if t.calls != calls || t.runaways != 0 {
				b.Fatalf("got %d calls, %d runaways; want %d calls", t.calls, t.runaways, calls)
			}
			reportNsPerByte(b, len(in))
		})
	}
}

// BenchmarkJSONArgument measures one hermes call whose JSON arguments hold
// a string of N bytes, fed in 4-byte chunks: the incremental JSON scanner
// must cost the same per byte at every size.
func BenchmarkJSONArgument(b *testing.B) {
	for _, n := range []int{256 << 10, 4 << 20} {
		value, err := json.Marshal(string(fileContent(n)))
		if err != nil {
			b.Fatal(err)
		}
		in := []byte("Writing.\n<tool_call>\n{\"name\": \"write_to_file\", \"arguments\": {\"path\": \"a.go\", \"content\": ")
		in = append(append(in, value...), "}}\n</tool_call>\nDone.\n"...)
		opt := toolsieve.Options{MaxCallBytes: 2*len(in) + 64<<10}
		b.Run(sizeName(n), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			var t tally
			for b.Loop() {
				t = feedFixed(opt, in, 4)
			}
			if t.calls != 1 || t.runaways != 0 || t.errors != 0 {
				b.Fatalf("got %d calls, %d runaways, %d errors; want one call", t.calls, t.runaways, t.errors)
			}
			reportNsPerByte(b, len(in))
		})
	}
}

// BenchmarkGuard measures what the repetition guard costs: prose and a
// 1 MiB qwen3_coder call, with the guard on and off, in one run (compare
// each on/off pair's ns/B).
func BenchmarkGuard(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	inputs := []struct {
		name  string
		in    []byte
		calls int
	}{
		{"prose", prose(rng, 256<<10), 0},
		{"call1MiB", singleCall("qwen3_coder", fileContent(1<<20)), 1},
	}
	for _, in := range inputs {
		for _, chunk := range []int{4, 64, 4096} {
			for _, off := range []bool{false, true} {
				name := fmt.Sprintf("%s/chunk=%d/guard=%s", in.name, chunk, map[bool]string{false: "on", true: "off"}[off])
				opt := toolsieve.Options{MaxCallBytes: len(in.in) + 64<<10, Runaway: toolsieve.RunawayLimits{NoGuard: off}}
				b.Run(name, func(b *testing.B) {
					b.SetBytes(int64(len(in.in)))
					b.ReportAllocs()
					var t tally
					for b.Loop() {
						t = feedFixed(opt, in.in, chunk)
					}
					if t.calls != in.calls || t.runaways != 0 {
						b.Fatalf("got %d calls, %d runaways; want %d calls", t.calls, t.runaways, in.calls)
					}
					reportNsPerByte(b, len(in.in))
				})
			}
		}
	}
}

// BenchmarkCodeText measures code-heavy text (HTML, generics, fences,
// brackets: many bytes that may begin a marker, none that does) on its own,
// for profiles of issue 31's code targets: BenchmarkPlainText builds its
// tool-dense input first, which a profiler pays for.
func BenchmarkCodeText(b *testing.B) {
	benchNoCalls(b, toolsieve.Options{}, code(rand.New(rand.NewPCG(1, 2)), 256<<10))
}

// benchNoCalls measures input in, which holds no call, at 4, 64 and
// 4096-byte chunks under opt.
func benchNoCalls(b *testing.B, opt toolsieve.Options, in []byte) {
	for _, chunk := range []int{4, 64, 4096} {
		b.Run(fmt.Sprintf("chunk=%d", chunk), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			var t tally
			for b.Loop() {
				t = feedFixed(opt, in, chunk)
			}
			if t.calls != 0 || t.runaways != 0 {
				b.Fatalf("got %d calls, %d runaways; want none", t.calls, t.runaways)
			}
			reportNsPerByte(b, len(in))
		})
	}
}
