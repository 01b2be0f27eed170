package sievehttp

// History pairing (issue 29): with history cleaning on, orphaned native
// calls and results in the request's history are mended before it goes
// upstream (chat.PairHistory), and the answer says so.

import (
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/toolsieve/toolsieve/chat"
)

// HeaderHistoryRepairs lists what history pairing mended in the request:
// calls_restored=N,calls_dropped=N,results_dropped=N (the non-zero ones).
const HeaderHistoryRepairs = "X-Toolsieve-History-Repairs"

// pairHistory mends the orphans of the request's history.
func (x *chatExchange) pairHistory(body []byte) []byte {
	body, x.pairing = chat.PairHistory(body, x.api)
	x.metrics.paired(x.pairing)
	return body
}

// pairValue is the X-Toolsieve-History-Repairs value, "" when nothing was
// mended.
func pairValue(r chat.PairResult) string {
	var parts []string
	for _, f := range [...]struct {
		name string
		n    int
	}{{"calls_restored", r.CallsRestored}, {"calls_dropped", r.CallsDropped}, {"results_dropped", r.ResultsDropped}} {
		if f.n > 0 {
			parts = append(parts, f.name+"="+strconv.Itoa(f.n))
		}
	}
	return strings.Join(parts, ",")
}

// pairSignals sets X-Toolsieve-History-Repairs on the response.
func (x *chatExchange) pairSignals(h http.Header) {
	if v := pairValue(x.pairing); v != "" {
		h.Set(HeaderHistoryRepairs, v)
	}
}

// pairAttrs are the log attributes of the pairing.
func (x *chatExchange) pairAttrs() []slog.Attr {
	if v := pairValue(x.pairing); v != "" {
		return []slog.Attr{slog.String("history_paired", v)}
	}
	return nil
}

// paired counts what history pairing mended.
func (m *Metrics) paired(r chat.PairResult) {
	if !r.Changed() || !m.lock() {
		return
	}
	if m.choice.pairing == nil {
		m.choice.pairing = map[string]uint64{}
	}
	m.choice.pairing["calls_restored"] += uint64(r.CallsRestored)
	m.choice.pairing["calls_dropped"] += uint64(r.CallsDropped)
	m.choice.pairing["results_dropped"] += uint64(r.ResultsDropped)
	m.mu.Unlock()
}
