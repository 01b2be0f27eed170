// Command table reads `go test -bench` output of the peers benchmarks
// (BenchmarkPeers/INPUT/size=SIZE/chunk=N/PARSER) from stdin and prints one
// markdown table: per input, size and chunk size, the cost per byte of
// toolsieve and of each peer, and the ratio peer/toolsieve (how many times
// faster toolsieve is). Then it checks the targets of the benchmark issue.
//
// The input is copied to stderr as it is read, so the raw benchmark output
// stays visible. The exit status is 1 when the input shows a failure or
// holds no benchmark of toolsieve and a peer.
//
//	cd bench/peers && go test -run '^$' -bench . | go run ./cmd/table
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// base is the parser every other one is compared with.
const base = "toolsieve"

// measure is one benchmark result line.
type measure struct {
	nsPerB float64 // from the ns/B metric, else from MB/s
	allocs float64 // allocs/op, -1 if not reported
	n      int     // iterations
}

// key identifies one input fed in one way.
type key struct {
	input, size, chunk string
}

type table struct {
	keys    []key                      // in order of first appearance
	parsers map[key][]string           // peers per key, in order
	results map[key]map[string]measure // parser -> measure
	cpu     string
	failed  []string
}

func newTable() *table {
	return &table{parsers: map[key][]string{}, results: map[key]map[string]measure{}}
}

// read parses go test output.
func (t *table) read(r io.Reader, echo io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if echo != nil {
			fmt.Fprintln(echo, line)
		}
		t.line(line)
	}
	return sc.Err()
}

func (t *table) line(line string) {
	trimmed := strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(line, "cpu: "):
		t.cpu = strings.TrimPrefix(line, "cpu: ")
		return
	case strings.HasPrefix(trimmed, "--- FAIL"), strings.HasPrefix(line, "FAIL"),
		strings.HasPrefix(line, "panic:"), strings.HasPrefix(line, "fatal error:"):
		t.failed = append(t.failed, trimmed)
		return
	case !strings.HasPrefix(line, "Benchmark"):
		return
	}
	f := strings.Fields(line)
	if len(f) < 4 {
		return // a name printed before its result, or a log line
	}
	k, parser, ok := splitName(f[0])
	if !ok {
		return
	}
	n, err := strconv.Atoi(f[1])
	if err != nil {
		return
	}
	m := measure{n: n, allocs: -1}
	var mbs float64
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			continue
		}
		switch f[i+1] {
		case "ns/B":
			m.nsPerB = v
		case "MB/s":
			mbs = v
		case "allocs/op":
			m.allocs = v
		}
	}
	if m.nsPerB == 0 && mbs > 0 {
		m.nsPerB = 1000 / mbs
	}
	if m.nsPerB == 0 {
		return // no per-byte figure: not a peers benchmark
	}
	if _, seen := t.results[k]; !seen {
		t.keys = append(t.keys, k)
		t.results[k] = map[string]measure{}
	}
	if _, seen := t.results[k][parser]; !seen && parser != base {
		t.parsers[k] = append(t.parsers[k], parser)
	}
	t.results[k][parser] = m
}

// splitName splits BenchmarkPeers/INPUT/size=SIZE/chunk=N/PARSER-P.
func splitName(name string) (key, string, bool) {
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			name = name[:i]
		}
	}
	parts := strings.Split(name, "/")
	if len(parts) != 5 || !strings.HasPrefix(parts[2], "size=") || !strings.HasPrefix(parts[3], "chunk=") {
		return key{}, "", false
	}
	return key{parts[1], strings.TrimPrefix(parts[2], "size="), strings.TrimPrefix(parts[3], "chunk=")}, parts[4], true
}

// ratio returns peer ns/B over toolsieve ns/B for one row.
func (t *table) ratio(k key, peer string) (float64, bool) {
	b, ok1 := t.results[k][base]
	p, ok2 := t.results[k][peer]
	if !ok1 || !ok2 || b.nsPerB <= 0 {
		return 0, false
	}
	return p.nsPerB / b.nsPerB, true
}

func num(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func allocs(m measure) string {
	if m.allocs < 0 {
		return "–"
	}
	return strconv.FormatFloat(m.allocs, 'f', 0, 64)
}

// write prints the table and returns the number of rows.
func (t *table) write(w io.Writer) int {
	if t.cpu != "" {
		fmt.Fprintf(w, "cpu: %s\n\n", t.cpu)
	}
	fmt.Fprintln(w, "| input | size | chunk (bytes) | peer | toolsieve ns/B | peer ns/B | peer / toolsieve | toolsieve allocs/op | peer allocs/op | peer ops |")
	fmt.Fprintln(w, "|---|---|---:|---|---:|---:|---:|---:|---:|---:|")
	rows := 0
	for _, k := range t.keys {
		b, hasBase := t.results[k][base]
		for _, peer := range t.parsers[k] {
			p := t.results[k][peer]
			bns, r := "–", "–"
			ba := "–"
			if hasBase {
				bns, ba = num(b.nsPerB), allocs(b)
			}
			if v, ok := t.ratio(k, peer); ok {
				r = num(v) + "×"
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %d |\n",
				k.input, k.size, k.chunk, peer, bns, num(p.nsPerB), r, ba, allocs(p), p.n)
			rows++
		}
	}
	return rows
}

// target is a ratio the benchmark issue asks for.
type target struct {
	what string
	k    key
	peer string
	min  float64
}

var targets = []target{
	{"plain text, 4-byte chunks: toolsieve ≥ 40× faster than ollama's qwen3-coder parser",
		key{"plain", "1MiB", "4"}, "ollama-qwen3-coder", 40},
	{"one 1 MiB call, 4-byte chunks: toolsieve ≥ 500× faster than ollama's qwen3-coder parser",
		key{"call-qwen3coder", "1MiB", "4"}, "ollama-qwen3-coder", 500},
	{"the same, content without '<' (the peer's best case)",
		key{"call-qwen3coder-noangle", "1MiB", "4"}, "ollama-qwen3-coder", 500},
}

func (t *table) writeTargets(w io.Writer) {
	fmt.Fprintln(w)
	for _, tg := range targets {
		if f, ok := t.ratio(tg.k, "floor"); ok {
			if v, ok := t.ratio(tg.k, tg.peer); ok {
				fmt.Fprintf(w, "- (ceiling of the next line: a Feed that does nothing, in the same harness, is %s× faster than %s)\n", num(v/f), tg.peer)
			}
		}
		v, ok := t.ratio(tg.k, tg.peer)
		switch {
		case !ok:
			fmt.Fprintf(w, "- %s: not measured\n", tg.what)
		case v >= tg.min:
			fmt.Fprintf(w, "- %s: %s× — met\n", tg.what, num(v))
		default:
			fmt.Fprintf(w, "- %s: %s× — NOT met\n", tg.what, num(v))
		}
	}
}

func main() {
	quiet := flag.Bool("q", false, "do not copy the input to stderr")
	noTargets := flag.Bool("notargets", false, "print the table only")
	flag.Parse()
	t := newTable()
	var echo io.Writer = os.Stderr
	if *quiet {
		echo = nil
	}
	if err := t.read(os.Stdin, echo); err != nil {
		fmt.Fprintln(os.Stderr, "table:", err)
		os.Exit(1)
	}
	rows := t.write(os.Stdout)
	if !*noTargets {
		t.writeTargets(os.Stdout)
	}
	if len(t.failed) > 0 || rows == 0 {
		fmt.Fprintln(os.Stderr, "table: the benchmarks failed or produced no peer results:")
		for _, f := range t.failed {
			fmt.Fprintln(os.Stderr, "  ", f)
		}
		os.Exit(1)
	}
}
