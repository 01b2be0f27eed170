package sievehttp

// Latency histograms for the metrics, in the Prometheus text format, and
// the build information they are labelled with.

import (
	"bufio"
	"maps"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"time"
)

// latencyBuckets are the upper bounds, in seconds, of the latency
// histograms: from a few milliseconds (a small answer, the proxy's own
// cost) to the ten minutes a long agent turn can stream.
var latencyBuckets = [...]float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}

// histogram counts observations per bucket (not cumulative), their sum and
// their number.
type histogram struct {
	counts [len(latencyBuckets) + 1]uint64 // the last: over every bound
	sum    float64
	n      uint64
}

// observe adds d to the histogram of label in hs.
func observe(hs map[string]*histogram, label string, d time.Duration) {
	h := hs[label]
	if h == nil {
		h = &histogram{}
		hs[label] = h
	}
	v := d.Seconds()
	i, _ := slices.BinarySearch(latencyBuckets[:], v)
	h.counts[i]++
	h.sum += v
	h.n++
}

// writeHistograms writes the histograms of hs, labelled api, as samples of
// name: cumulative buckets with le, then the sum and the count.
func writeHistograms(w *bufio.Writer, name string, hs map[string]*histogram) {
	for _, api := range slices.Sorted(maps.Keys(hs)) {
		h := hs[api]
		lbl := `{api="` + escapeLabel(api) + `",le="`
		var c uint64
		for i, b := range latencyBuckets {
			c += h.counts[i]
			w.WriteString(name + "_bucket" + lbl + strconv.FormatFloat(b, 'g', -1, 64) + `"} ` + strconv.FormatUint(c, 10) + "\n")
		}
		w.WriteString(name + "_bucket" + lbl + `+Inf"} ` + strconv.FormatUint(h.n, 10) + "\n")
		w.WriteString(name + `_sum{api="` + escapeLabel(api) + `"} ` + strconv.FormatFloat(h.sum, 'g', -1, 64) + "\n")
		w.WriteString(name + `_count{api="` + escapeLabel(api) + `"} ` + strconv.FormatUint(h.n, 10) + "\n")
	}
}

// buildLabels are the version, VCS revision and Go version of the binary.
var buildLabels = sync.OnceValue(func() [3]string {
	out := [3]string{"unknown", "unknown", "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return out
	}
	out[0], out[2] = bi.Main.Version, bi.GoVersion
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			out[1] = s.Value
		}
	}
	if out[0] == "" {
		out[0] = "unknown"
	}
	return out
})
