package toolsieve

import (
	"bytes"
	"runtime"
	"testing"
)

// TestSoak feeds 1 GiB of adversarial input per case in 64 KiB chunks:
// openers only, closers only, deep nesting and one endless call. The heap
// must stay bounded and a runaway must be reported. Skipped with -short.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("soak: 4 GiB of input")
	}
	const total = 1 << 30
	cases := []struct{ name, prefix, unit string }{
		{"openers only", "", `<｜DSML｜invoke name="read_file">` + "\n"},
		{"closers only", "text ", "</invoke>\n"},
		{"deep nesting", "", "<function_calls><tool_call>"},
		{"endless call", "<tool_call>\n<function=write>\n<parameter=content>\n", "0123456789abcdef<>\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			unit := []byte(c.unit)
			chunk := bytes.Repeat(unit, (64<<10)/len(unit))
			p := NewParser(Options{})
			var ms runtime.MemStats
			var fed, accounted int64
			runaways := 0
			count := func(evs []Event) {
				for i := range evs {
					if evs[i].Type == Text {
						accounted += int64(len(evs[i].Text))
					} else {
						accounted += int64(len(evs[i].Raw))
					}
					if evs[i].Type == Runaway {
						runaways++
					}
				}
			}
			count(p.Feed([]byte(c.prefix)))
			fed += int64(len(c.prefix))
			maxHeap := uint64(0)
			for i := 0; fed < total; i++ {
				count(p.Feed(chunk))
				fed += int64(len(chunk))
				if i%1024 == 0 {
					runtime.ReadMemStats(&ms)
					maxHeap = max(maxHeap, ms.HeapInuse)
				}
			}
			count(p.Close())
			if runaways != 1 {
				t.Errorf("%d runaway events, want 1", runaways)
			}
			if accounted != fed {
				t.Errorf("events account for %d bytes, %d fed", accounted, fed)
			}
			if maxHeap > 64<<20 {
				t.Errorf("heap in use reached %d MiB", maxHeap>>20)
			}
			t.Logf("%d MiB fed, max heap in use %d MiB", fed>>20, maxHeap>>20)
		})
	}
}
