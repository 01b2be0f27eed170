//go:build unix

// Package cputime reads the CPU time this process has used, for the
// benchmarks that report ratios within one run (bench, bench/peers): unlike
// the wall clock it does not grow while other processes share the machine.
package cputime

import (
	"syscall"
	"time"
)

// Self is the CPU time this process has used (user and system).
func Self() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
