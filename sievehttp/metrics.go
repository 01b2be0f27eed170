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
	"time"

	"github.com/toolsieve/toolsieve/chat"
)

// Metrics counts requests (by API and status code, with latency
// histograms), recovered calls, runaways, retries, refusals, history
// rewrites, upstream failures and the memory budget. It is safe for
// concurrent use; a nil *Metrics counts nothing. Serve it with ServeHTTP
// (the proxy does on /metrics when Proxy.Metrics is set).
type Metrics struct {
	// Version, when set before the first scrape, is the version label of
	// toolsieve_build_info (default: the main module's version).
	Version string

	mu          sync.Mutex
	models      []string             // the model labels, shown at zero from the start
	requests    map[[3]string]uint64 // by api, model, code
	inFlight    int64
	durations   map[string]*histogram // by api
	firstBytes  map[string]*histogram // by api
	failures    map[string]uint64     // by reason
	hdrRefused  map[string]uint64     // by header
	budgetOut   [2]uint64             // refused, unheld
	mem         *budget
	calls       map[[2]string]uint64 // by dialect, model
	repairs     map[[2]string]uint64 // by dialect, repair
	runaways    map[[2]string]uint64 // by reason, model
	retries     map[[2]string]uint64 // by reason, model
	exhausted   uint64
	refused     uint64
	truncated   uint64
	unrecovered uint64
	histMsgs    uint64
	histCalls   uint64
	histDropped uint64
	cutBytes    uint64
	savedTokens uint64
	choice      choiceCounters
}

// NewMetrics returns empty counters (the zero Metrics is ready to use too).
func NewMetrics() *Metrics { return &Metrics{} }

func (m *Metrics) lock() bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	if m.requests == nil { // the zero Metrics
		m.requests, m.repairs = map[[3]string]uint64{}, map[[2]string]uint64{}
		m.calls, m.runaways, m.retries = map[[2]string]uint64{}, map[[2]string]uint64{}, map[[2]string]uint64{}
		m.durations, m.firstBytes = map[string]*histogram{}, map[string]*histogram{}
		m.failures, m.hdrRefused = map[string]uint64{}, map[string]uint64{}
		for _, a := range apiLabels { // every API's histograms from the start
			m.durations[a], m.firstBytes[a] = &histogram{}, &histogram{}
		}
	}
	return true
}

// started counts a request in flight (until finished).
func (m *Metrics) started() {
	if m.lock() {
		m.inFlight++
		m.mu.Unlock()
	}
}

// finished counts a request of the proxy for api ("openai", "anthropic"
// or "other") and model label that ended with status code after d, its
// first byte written after first (0: none).
func (m *Metrics) finished(api, model string, code int, d, first time.Duration) {
	if m.lock() {
		m.inFlight--
		m.requests[[3]string{api, model, strconv.Itoa(code)}]++
		observe(m.durations, api, d)
		if first > 0 {
			observe(m.firstBytes, api, first)
		}
		m.mu.Unlock()
	}
}

// roundTripped counts a request of a Transport, which sees no more than
// its status (or the status its failure maps to).
func (m *Metrics) roundTripped(api, model string, code int) {
	if m.lock() {
		m.requests[[3]string{api, model, strconv.Itoa(code)}]++
		m.mu.Unlock()
	}
}

// failure counts an exchange that failed for a reason not the model's.
func (m *Metrics) failure(f failure) {
	if f == failMemoryBudget {
		m.budgetRefused()
		return
	}
	if m.lock() {
		m.failures[f.String()]++
		m.mu.Unlock()
	}
}

// budgetRefused counts a request body or whole answer refused for the
// memory budget; budgetSpent a held stream let go for it.
func (m *Metrics) budgetRefused() { m.budgetExceeded(0) }
func (m *Metrics) budgetSpent()   { m.budgetExceeded(1) }

func (m *Metrics) budgetExceeded(i int) {
	if m.lock() {
		m.budgetOut[i]++
		m.mu.Unlock()
	}
}

// headersRefused counts request headers ignored because they would have
// loosened the policy.
func (m *Metrics) headersRefused(names []string) {
	if m.lock() {
		for _, n := range names {
			m.hdrRefused[n]++
		}
		m.mu.Unlock()
	}
}

// setBudget makes the metrics report b's use.
func (m *Metrics) setBudget(b *budget) {
	if m.lock() {
		m.mem = b
		m.mu.Unlock()
	}
}

// call counts one call delivered as a native call.
func (m *Metrics) call(model, dialect string, repairs []string) {
	if m.lock() {
		m.calls[[2]string{dialect, model}]++
		for _, r := range repairs {
			m.repairs[[2]string{dialect, r}]++
		}
		m.mu.Unlock()
	}
}

// answer counts what one upstream answer held (retried or delivered).
func (m *Metrics) answer(model string, st chat.RewriteStats, runaway string, cutBytes, saved int64) {
	if m.lock() {
		if st.Runaway {
			m.runaways[[2]string{runaway, model}]++
			m.cutBytes += uint64(cutBytes)
			m.savedTokens += uint64(saved)
		}
		m.refused += uint64(st.Refused)
		m.truncated += uint64(st.Truncated)
		m.unrecovered += uint64(st.Unrecovered)
		m.mu.Unlock()
	}
}

func (m *Metrics) retry(model, reason string) {
	if m.lock() {
		m.retries[[2]string{reason, model}]++
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

	family("toolsieve_build_info", "gauge", "Build of the running binary: its module version, VCS revision and Go version (always 1).")
	bi := buildLabels()
	if m.Version != "" {
		bi[0] = m.Version
	}
	sample("toolsieve_build_info", 1, "version", bi[0], "revision", bi[1], "goversion", bi[2])
	family("toolsieve_requests_total", "counter", "Requests handled, by API (other: passed through unchanged), model label (the policy rule's name, else the model family, else other) and HTTP status code (499: the client went away first).")
	for _, k := range slices.SortedFunc(maps.Keys(m.zeroRequests()), compareKeys3) {
		sample("toolsieve_requests_total", m.requests[k], "api", k[0], "model", k[1], "code", k[2])
	}
	family("toolsieve_requests_in_flight", "gauge", "Requests being handled by the proxy.")
	sample("toolsieve_requests_in_flight", uint64(max(m.inFlight, 0)))
	family("toolsieve_request_duration_seconds", "histogram", "Time from a request's arrival at the proxy to the end of its response (a stream's last byte), by API.")
	writeHistograms(w, "toolsieve_request_duration_seconds", m.durations)
	family("toolsieve_time_to_first_byte_seconds", "histogram", "Time from a request's arrival at the proxy to the first byte of its response (held streams included), by API.")
	writeHistograms(w, "toolsieve_time_to_first_byte_seconds", m.firstBytes)
	family("toolsieve_upstream_failures_total", "counter", "Exchanges that failed for a reason not the model's, by reason: header_timeout, idle_timeout, unreachable, reset, truncated, event_too_large, internal, streamed_call.")
	byLabel("toolsieve_upstream_failures_total", "reason", m.failures, failureNames()...)
	family("toolsieve_memory_budget_bytes", "gauge", "The memory budget for request bodies and held answers (0: unbounded).")
	used, limit := m.mem.inUse()
	sample("toolsieve_memory_budget_bytes", uint64(limit))
	family("toolsieve_memory_held_bytes", "gauge", "Bytes of the memory budget in use.")
	sample("toolsieve_memory_held_bytes", uint64(used))
	family("toolsieve_memory_budget_exceeded_total", "counter", "Times the memory budget was spent, by what was done: refused (503 for a request body or whole answer), unheld (a held stream went out as it came).")
	sample("toolsieve_memory_budget_exceeded_total", m.budgetOut[0], "action", "refused")
	sample("toolsieve_memory_budget_exceeded_total", m.budgetOut[1], "action", "unheld")
	family("toolsieve_request_headers_refused_total", "counter", "X-Toolsieve-* request headers ignored because they would have loosened the operator's policy, by header.")
	byLabel("toolsieve_request_headers_refused_total", "header", m.hdrRefused, policyHeaders...)
	family("toolsieve_recovered_calls_total", "counter", "Calls recovered from markup (or native calls whose markup arguments were converted, dialect native) and delivered to clients as native calls, by dialect and model label.")
	m.byModel(sample, "toolsieve_recovered_calls_total", "dialect", m.calls, callDialects())
	family("toolsieve_call_repairs_total", "counter", "Repairs carried by delivered calls, by dialect and repair (a call may carry several).")
	for _, k := range slices.SortedFunc(maps.Keys(zeroPairs(m.repairs, callDialects(), repairNames())), compareKeys) {
		sample("toolsieve_call_repairs_total", m.repairs[k], "dialect", k[0], "repair", k[1])
	}
	family("toolsieve_runaways_total", "counter", "Upstream answers cut by a runaway (retried ones included), by reason and model label.")
	m.byModel(sample, "toolsieve_runaways_total", "reason", m.runaways, runawayReasons())
	family("toolsieve_retries_total", "counter", "Requests re-issued upstream, by the signal that caused it and model label.")
	m.byModel(sample, "toolsieve_retries_total", "reason", m.retries, retryReasons)
	family("toolsieve_retries_exhausted_total", "counter", "Bad answers passed on because the retry budget was spent.")
	sample("toolsieve_retries_exhausted_total", m.exhausted)
	family("toolsieve_refused_calls_total", "counter", "Calls refused by strict mode (their markup went on as text), in every upstream answer.")
	sample("toolsieve_refused_calls_total", m.refused)
	family("toolsieve_truncated_calls_total", "counter", "Calls cut before the model finished them (the answer broke off, ended before its finish marker or by the token limit), not handed on as calls, in every upstream answer.")
	sample("toolsieve_truncated_calls_total", m.truncated)
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
	family("toolsieve_runaway_estimated_saved_tokens_total", "counter", "Estimate of the completion tokens not generated because streamed runaways were cut: the request's max_tokens minus the stream events read before the cut; requests without max_tokens count 0.")
	sample("toolsieve_runaway_estimated_saved_tokens_total", m.savedTokens)
	m.writeChoice(family, byLabel, sample)
	m.mu.Unlock()
	err := w.Flush()
	return cw.n, err
}

// compareKeys orders label pairs.
func compareKeys(a, b [2]string) int {
	if c := strings.Compare(a[0], b[0]); c != 0 {
		return c
	}
	return strings.Compare(a[1], b[1])
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
