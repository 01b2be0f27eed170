//go:build unix

package bench

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used (user and system): unlike
// the wall clock it does not grow when other processes share the machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
