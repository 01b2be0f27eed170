package cputime

import (
	"runtime"
	"time"
)

// Least returns the least CPU time of one run of op, in nanoseconds, over
// rounds rounds; each round starts after a collection and repeats op for at
// least span of CPU time. The least is the figure other processes on a
// shared machine disturb least.
func Least(rounds int, span time.Duration, op func()) float64 {
	best := 0.0
	for r := range max(rounds, 1) {
		runtime.GC()
		ops := 0
		start := Self()
		var d time.Duration
		for d < span || ops == 0 {
			op()
			ops++
			d = Self() - start
		}
		if v := float64(d.Nanoseconds()) / float64(ops); r == 0 || v < best {
			best = v
		}
	}
	return best
}
