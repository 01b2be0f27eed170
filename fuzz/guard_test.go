package fuzz

import (
	"testing"

	"github.com/toolsieve/toolsieve/internal/repeat"
)

// FuzzGuard feeds the repetition guard a stream of text and markers, whole
// and cut at fuzzed places, with lines watched or not: where it fires (or
// that it does not) never depends on the cuts, and it never reports a fire
// past the bytes it saw.
func FuzzGuard(f *testing.F) {
	f.Add([]byte("I will now run the test.\n"), uint8(60), uint16(7), true)
	f.Add([]byte("<tool_call>x\n"), uint8(20), uint16(3), false)
	f.Add([]byte("Other; "), uint8(255), uint16(61), true)
	f.Add([]byte("☺☺☺\n"), uint8(200), uint16(1), true)
	f.Fuzz(func(t *testing.T, unit []byte, times uint8, cut uint16, lines bool) {
		if len(unit) == 0 || len(unit) > 512 {
			return
		}
		var in []byte
		for range int(times) {
			in = append(in, unit...)
		}
		whole, wholeAt := guardRun(in, 0, lines)
		got, at := guardRun(in, int(cut%97)+1, lines)
		if whole != got || wholeAt != at {
			t.Fatalf("whole: fired %v at %d; cut every %d: fired %v at %d", whole, wholeAt, cut%97+1, got, at)
		}
		if whole && (wholeAt <= 0 || wholeAt > int64(len(in))) {
			t.Fatalf("fired at %d of %d bytes", wholeAt, len(in))
		}
	})
}

// guardRun feeds in to a guard in pieces of n bytes (0: whole), each '<'
// starting a marker up to the next '>' (markup when it holds "tool").
func guardRun(in []byte, n int, lines bool) (bool, int64) {
	g := repeat.New(repeat.Limits{})
	g.InText(lines)
	var prev uint32
	text := func(p []byte) {
		for len(p) > 0 {
			k := len(p)
			if n > 0 {
				k = min(n, k)
			}
			g.Text(p[:k], prev)
			for _, c := range p[:k] {
				prev = prev<<8 | uint32(c)
			}
			p = p[k:]
		}
	}
	start := 0
	for i := 0; i < len(in); i++ {
		if in[i] != '<' {
			continue
		}
		j := i + 1
		for j < len(in) && in[j] != '>' && j-i < 64 {
			j++
		}
		if j == len(in) || in[j] != '>' {
			continue
		}
		text(in[start:i])
		raw := in[i : j+1]
		g.Marker(raw, len(raw) > 5 && string(raw[1:5]) == "tool", prev)
		for _, c := range raw {
			prev = prev<<8 | uint32(c)
		}
		start, i = j+1, j
	}
	text(in[start:])
	return g.Fired()
}
