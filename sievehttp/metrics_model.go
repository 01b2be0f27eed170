package sievehttp

// The metrics' model label and their zero series. A model label is the
// name of the policy rule the request's model matched, else its built-in
// family, else "other" (Policy.ModelLabel): bounded by the policy, never
// the raw model string a client sends. Every labelled series whose label
// values are known in advance (APIs, model labels, dialects, repairs,
// reasons, headers) is written from the first scrape, at zero, so that
// rate() and alerts see a series before its first event.

import (
	"maps"
	"slices"
	"strings"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
)

// apiLabels are the api label's values: the chat APIs, and other for
// requests passed through.
var apiLabels = []string{"openai", "anthropic", "responses", "other"}

// retryReasons are the retries' reasons.
var retryReasons = []string{retryRunaway, retryRefused, retryTruncated, retryUnrecovered, retryEmptyBlock}

// policyHeaders are the X-Toolsieve-* headers a policy may refuse.
var policyHeaders = []string{HeaderMode, HeaderRetries, HeaderDialects, HeaderHoldText, HeaderCleanHistory}

// SetModels sets the model labels shown at zero from the first scrape
// (the proxy sets those of its policy, Policy.ModelLabels).
func (m *Metrics) SetModels(labels []string) {
	if m.lock() {
		m.models = slices.Clone(labels)
		m.mu.Unlock()
	}
}

// models returns the model labels to show: those set, else "other".
func (m *Metrics) modelLabels() []string {
	if len(m.models) == 0 {
		return []string{LabelOther}
	}
	return m.models
}

// zeroRequests returns the requests' keys to write: those counted, and
// code 200 of every API and model label.
func (m *Metrics) zeroRequests() map[[3]string]uint64 {
	out := maps.Clone(m.requests)
	for _, a := range apiLabels {
		for _, l := range m.modelLabels() {
			k := [3]string{a, l, "200"}
			out[k] += 0
		}
	}
	return out
}

// byModel writes the samples of a counter by label and model label: every
// value of always for every model label, then the other pairs counted.
func (m *Metrics) byModel(sample func(string, uint64, ...string), name, label string, c map[[2]string]uint64, always []string) {
	for _, k := range slices.SortedFunc(maps.Keys(zeroPairs(c, always, m.modelLabels())), compareKeys) {
		sample(name, c[k], label, k[0], "model", k[1])
	}
}

// zeroPairs returns the keys of c with every pair of firsts and seconds.
func zeroPairs(c map[[2]string]uint64, firsts, seconds []string) map[[2]string]uint64 {
	out := maps.Clone(c)
	for _, a := range firsts {
		for _, b := range seconds {
			out[[2]string{a, b}] += 0
		}
	}
	return out
}

// callDialects are the dialects a delivered call may come from: the
// table's, and native (markup arguments of a native call converted).
func callDialects() []string { return append(toolsieve.Dialects(), "native") }

// repairNames is the repairs' vocabulary.
func repairNames() []string { return toolsieve.RepairNames() }

// runawayReasons are the reasons a runaway is cut for.
func runawayReasons() []string {
	var out []string
	for _, r := range []toolsieve.Reason{toolsieve.ReasonCallTooLarge, toolsieve.ReasonUnclosedOpeners,
		toolsieve.ReasonNestedBlocks, toolsieve.ReasonRepeatedCall, toolsieve.ReasonStrayClosers} {
		out = append(out, r.String())
	}
	return out
}

// failureNames are the upstream failures counted by reason (the memory
// budget and refusals of the request have counters of their own).
func failureNames() []string {
	var out []string
	for _, f := range []failure{failHeaderTimeout, failIdleTimeout, failUnreachable, failReset,
		failEventTooLarge, failInternal, failStreamedCall, failTruncated} {
		out = append(out, f.String())
	}
	return out
}

// compareKeys3 orders label triples.
func compareKeys3(a, b [3]string) int {
	for i := range a {
		if c := strings.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// exchangeMetrics are the metrics of one exchange: its counters carry the
// exchange's model label; the others are the Metrics' own.
type exchangeMetrics struct {
	*Metrics
	model string
}

func (e exchangeMetrics) retry(reason string) { e.Metrics.retry(e.model, reason) }

func (e exchangeMetrics) call(dialect string, repairs []string) {
	e.Metrics.call(e.model, dialect, repairs)
}

func (e exchangeMetrics) answer(st chat.RewriteStats, runaway string, cutBytes, saved int64) {
	e.Metrics.answer(e.model, st, runaway, cutBytes, saved)
}

// setLabel sets the exchange's model label, in its metrics too.
func (x *chatExchange) setLabel(l string) { x.label, x.metrics.model = l, l }
