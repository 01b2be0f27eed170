package sievehttp

// Metrics: counters of what the proxy (or a Transport) did, served in the
// Prometheus text exposition format (version 0.0.4), written by hand.

import (
	"bufio"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/toolsieve/toolsieve/chat"
)

// Metrics counts requests, recovered calls, runaways, retries, refusals
// and history rewrites. It is safe for concurrent use; a nil *Metrics
// counts nothing. Serve it with ServeHTTP (the proxy does on /metrics when
// Proxy.Metrics is set).
type Metrics struct {
	mu          sync.Mutex
	requests    map[string]uint64    // by api
	calls       map[string]uint64    // by dialect
	repairs     map[[2]string]uint64 // by dialect, repair
	runaways    map[string]uint64    // by reason
	retries     map[string]uint64    // by reason
	exhausted   uint64
	refused     uint64
	unrecovered uint64
	histMsgs    uint64
	histCalls   uint64
	histDropped uint64
	cutBytes    uint64
	savedTokens uint64
}

// NewMetrics returns empty counters (the zero Metrics is ready to use too).
func NewMetrics() *Metrics { return &Metrics{} }

func (m *Metrics) lock() bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	if m.requests == nil { // the zero Metrics
		m.requests, m.calls, m.runaways, m.retries = map[string]uint64{}, map[string]uint64{}, map[string]uint64{}, map[string]uint64{}
		m.repairs = map[[2]string]uint64{}
	}
	return true
}

// request counts one request for api ("openai", "anthropic" or "other").
func (m *Metrics) request(api string) {
	if m.lock() {
		m.requests[api]++
		m.mu.Unlock()
	}
}

// call counts one call delivered as a native call.
func (m *Metrics) call(dialect string, repairs []string) {
	if m.lock() {
		m.calls[dialect]++
		for _, r := range repairs {
			m.repairs[[2]string{dialect, r}]++
		}
		m.mu.Unlock()
	}
}

// answer counts what one upstream answer held (retried or delivered).
func (m *Metrics) answer(st chat.RewriteStats, runaway string, cutBytes, saved int64) {
	if m.lock() {
		if st.Runaway {
			m.runaways[runaway]++
			m.cutBytes += uint64(cutBytes)
			m.savedTokens += uint64(saved)
		}
		m.refused += uint64(st.Refused)
		m.unrecovered += uint64(st.Unrecovered)
		m.mu.Unlock()
	}
}

func (m *Metrics) retry(reason string) {
	if m.lock() {
		m.retries[reason]++
		m.mu.Unlock()
	}
}

func (m *Metrics) retriesExhausted() {
	if m.lock() {
		m.exhausted++
		m.mu.Unlock()
	}
}

func (m *Metrics) history(r chat.HistoryResult) {
	if r.Messages == 0 {
		return
	}
	if m.lock() {
		m.histMsgs += uint64(r.Messages)
		m.histCalls += uint64(r.Calls)
		m.histDropped += uint64(r.Dropped)
		m.mu.Unlock()
	}
}

// ServeHTTP writes the metrics in the Prometheus text format.
func (m *Metrics) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	if r.Method == http.MethodHead {
		return
	}
	m.WriteTo(w)
}

// WriteTo writes the metrics in the Prometheus text format.
func (m *Metrics) WriteTo(out io.Writer) (int64, error) {
	cw := &countWriter{w: out}
	w := bufio.NewWriter(cw)
	if !m.lock() {
		return 0, nil
	}
	family := func(name, typ, help string) {
		w.WriteString("# HELP " + name + " " + help + "\n# TYPE " + name + " " + typ + "\n")
	}
	sample := func(name string, v uint64, labels ...string) {
		w.WriteString(name)
		for i := 0; i+1 < len(labels); i += 2 {
			if i == 0 {
				w.WriteByte('{')
			} else {
				w.WriteByte(',')
			}
			w.WriteString(labels[i] + `="` + escapeLabel(labels[i+1]) + `"`)
			if i+2 >= len(labels) {
				w.WriteByte('}')
			}
		}
		w.WriteString(" " + strconv.FormatUint(v, 10) + "\n")
	}
	byLabel := func(name, label string, c map[string]uint64, always ...string) {
		for _, k := range always {
			if _, ok := c[k]; !ok {
				sample(name, 0, label, k)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(c)) {
			sample(name, c[k], label, k)
		}
	}

	family("toolsieve_requests_total", "counter", "Requests handled, by API (other: passed through unchanged).")
	byLabel("toolsieve_requests_total", "api", m.requests, "anthropic", "openai", "other")
	family("toolsieve_recovered_calls_total", "counter", "Calls recovered from markup (or native calls whose markup arguments were converted, dialect native) and delivered to clients as native calls, by dialect.")
	byLabel("toolsieve_recovered_calls_total", "dialect", m.calls)
	family("toolsieve_call_repairs_total", "counter", "Repairs carried by delivered calls, by dialect and repair (a call may carry several).")
	keys := slices.SortedFunc(maps.Keys(m.repairs), func(a, b [2]string) int {
		return strings.Compare(a[0]+"\x00"+a[1], b[0]+"\x00"+b[1])
	})
	for _, k := range keys {
		sample("toolsieve_call_repairs_total", m.repairs[k], "dialect", k[0], "repair", k[1])
	}
	family("toolsieve_runaways_total", "counter", "Upstream answers cut by a runaway (retried ones included), by reason.")
	byLabel("toolsieve_runaways_total", "reason", m.runaways)
	family("toolsieve_retries_total", "counter", "Requests re-issued upstream, by the signal that caused it.")
	byLabel("toolsieve_retries_total", "reason", m.retries)
	family("toolsieve_retries_exhausted_total", "counter", "Bad answers passed on because the retry budget was spent.")
	sample("toolsieve_retries_exhausted_total", m.exhausted)
	family("toolsieve_refused_calls_total", "counter", "Calls refused by strict mode (their markup went on as text), in every upstream answer.")
	sample("toolsieve_refused_calls_total", m.refused)
	family("toolsieve_unrecovered_markup_total", "counter", "Markup meant as a call that did not become one (parser error events, refusals included), in every upstream answer.")
	sample("toolsieve_unrecovered_markup_total", m.unrecovered)
	family("toolsieve_history_messages_rewritten_total", "counter", "Assistant messages of requests whose leaked tool markup was rewritten.")
	sample("toolsieve_history_messages_rewritten_total", m.histMsgs)
	family("toolsieve_history_calls_total", "counter", "Calls recovered from request history and sent upstream as native calls.")
	sample("toolsieve_history_calls_total", m.histCalls)
	family("toolsieve_history_calls_dropped_total", "counter", "Calls recovered from request history that no tool result answered, removed.")
	sample("toolsieve_history_calls_dropped_total", m.histDropped)
	family("toolsieve_runaway_upstream_bytes_total", "counter", "Upstream response bytes read from answers cut by a runaway, up to the cut (what the loops cost before they were stopped).")
	sample("toolsieve_runaway_upstream_bytes_total", m.cutBytes)
	family("toolsieve_runaway_saved_tokens_estimate_total", "counter", "Estimate of the completion tokens not generated because streamed runaways were cut: the request's max_tokens minus the stream events read before the cut; requests without max_tokens count 0.")
	sample("toolsieve_runaway_saved_tokens_estimate_total", m.savedTokens)
	m.mu.Unlock()
	err := w.Flush()
	return cw.n, err
}

// escapeLabel escapes a label value for the text format.
func escapeLabel(s string) string {
	if !strings.ContainsAny(s, "\\\"\n") {
		return s
	}
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
