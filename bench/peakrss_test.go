package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/toolsieve/toolsieve"
)

// The peak resident memory of one large call (issue 31, item 3), measured in
// a process of its own: a process's high-water mark keeps what earlier work
// in it touched.

// peakRSSEnv, set to a size in bytes, makes TestCallPeakRSS the child that
// feeds one call of that size and prints its figure.
const peakRSSEnv = "TOOLSIEVE_PEAK_RSS_CALL"

// TestCallPeakRSS, in the child peakRSS starts, builds a qwen3_coder call
// of the size asked, then feeds it in 4096-byte chunks to a new parser and
// prints the resident memory the process peaked at while doing so, above
// what it held before (the input itself), over the call's size.
func TestCallPeakRSS(t *testing.T) {
	size, err := strconv.Atoi(os.Getenv(peakRSSEnv))
	if err != nil {
		t.Skip("run by make bench in a process of its own (" + peakRSSEnv + ")")
	}
	in := singleCall("qwen3_coder", fileContent(size))
	runtime.GC()
	before, err := procStatusKB("VmRSS")
	if err != nil {
		t.Skip(err)
	}
	// Writing 5 to clear_refs resets the high-water mark (Linux).
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skip("cannot reset the peak: ", err)
	}
	p := toolsieve.NewParser(toolsieve.Options{MaxCallBytes: len(in) + 64<<10})
	calls := 0
	for i := 0; i < len(in); i += 4096 {
		calls += feedCount(p.Feed(in[i:min(i+4096, len(in))]))
	}
	calls += feedCount(p.Close())
	peak, err := procStatusKB("VmHWM")
	if err != nil {
		t.Skip(err)
	}
	if calls != 1 {
		t.Fatalf("%d calls, want 1", calls)
	}
	fmt.Printf("peak-rss %d %d\n", (peak-before)<<10, len(in))
}

// peakRSS runs TestCallPeakRSS in a child process for a call of size bytes
// and returns the peak resident memory above the input over the call's size.
func peakRSS(size int) (float64, error) {
	cmd := exec.Command(os.Args[0], "-test.run", "^TestCallPeakRSS$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", peakRSSEnv, size))
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%v: %s", err, out)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var above, n int64
		if _, err := fmt.Sscanf(sc.Text(), "peak-rss %d %d", &above, &n); err == nil && n > 0 {
			return float64(above) / float64(n), nil
		}
	}
	return 0, fmt.Errorf("no figure from the child: %s", strings.TrimSpace(string(out)))
}

// procStatusKB reads a field of /proc/self/status given in kB.
func procStatusKB(field string) (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/self/status", field)
}
