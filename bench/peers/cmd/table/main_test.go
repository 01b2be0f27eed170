package main

import (
	"bytes"
	"strings"
	"testing"
)

const sample = `goos: linux
goarch: amd64
pkg: github.com/toolsieve/toolsieve/bench/peers
cpu: AMD EPYC
BenchmarkPeers/plain/size=1MiB/chunk=4/toolsieve-2         	     100	   9551892 ns/op	 109.78 MB/s	         2.000 ns/B	    2176 B/op	       5 allocs/op
BenchmarkPeers/plain/size=1MiB/chunk=4/ollama-qwen3-coder-2         	       1	  82889875 ns/op	  12.65 MB/s	        90.00 ns/B	23781504 B/op	 1617411 allocs/op
BenchmarkPeers/plain/size=1MiB/chunk=4/ollama-deepseek3-2           	       1	  43850229 ns/op	  25.00 MB/s	1310721 allocs/op
BenchmarkPeers/plain/size=1MiB/chunk=4/floor-2                      	     300	   1572864 ns/op	 666.67 MB/s	         1.500 ns/B	       0 B/op	       0 allocs/op
BenchmarkPeers/call-qwen3coder/size=1MiB/chunk=4/toolsieve-2                   	       1	  19083294 ns/op	  54.96 MB/s	        20.00 ns/B	14080912 B/op	      88 allocs/op
BenchmarkPeers/call-qwen3coder/size=1MiB/chunk=4/ollama-qwen3-coder-2          	       1	2117613254 ns/op	   0.50 MB/s	      2000 ns/B	21065736 B/op	     303 allocs/op
BenchmarkOther-2 	 10	 100 ns/op
PASS
ok  	github.com/toolsieve/toolsieve/bench/peers	63.911s
`

func TestTable(t *testing.T) {
	tb := newTable()
	if err := tb.read(strings.NewReader(sample), nil); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if rows := tb.write(&out); rows != 4 {
		t.Fatalf("%d rows:\n%s", rows, out.String())
	}
	tb.writeTargets(&out)
	s := out.String()
	for _, want := range []string{
		"cpu: AMD EPYC",
		"| plain | 1MiB | 4 | ollama-qwen3-coder | 2.00 | 90.0 | 45.0× | 5 | 1617411 | 1 |",
		"| plain | 1MiB | 4 | ollama-deepseek3 | 2.00 | 40.0 | 20.0× | 5 | 1310721 | 1 |", // from MB/s
		"| call-qwen3coder | 1MiB | 4 | ollama-qwen3-coder | 20.0 | 2000 | 100× |",
		"a Feed that does nothing, in the same harness, is 60.0× faster than ollama-qwen3-coder)",
		"≥ 40× faster than ollama's qwen3-coder parser: 45.0× — met",
		"≥ 500× faster than ollama's qwen3-coder parser: 100× — NOT met",
		"(the peer's best case): not measured",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in:\n%s", want, s)
		}
	}
	if len(tb.failed) != 0 {
		t.Errorf("failures: %v", tb.failed)
	}
	tb.line("--- FAIL: BenchmarkPeers/plain/size=1MiB/chunk=4/naive")
	if len(tb.failed) != 1 {
		t.Errorf("a failure was not noticed")
	}
}
