package sievehttp

import (
	"io"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// TestMetricsZeroSeries: before any request, every labelled series whose
// values are known is there at zero, each family has one label set, the
// model label takes the policy's values only, and the names follow the
// Prometheus conventions (counters end in _total, the unit last before it).
func TestMetricsZeroSeries(t *testing.T) {
	chattest.NoLeaks(t)
	pol, err := ParsePolicy([]byte(`{"rules": [{"model": "deepseek-*", "name": "ds"}, {"model": "local/*"}]}`))
	require.NoError(t, err)
	u, _ := url.Parse("http://127.0.0.1:1")
	p := NewProxy(u, toolsieve.Options{})
	p.Policy, p.Metrics = pol, NewMetrics()
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	client := chattest.LoopbackClient(t, nil)
	m := scrape(t, client, srv.URL)

	labels := pol.ModelLabels()
	require.Equal(t, []string{"ds", "local/*", "deepseek", "qwen", "glm", LabelOther}, uniq(labels))
	for _, api := range apiLabels {
		for _, l := range labels {
			key := `toolsieve_requests_total{api="` + api + `",model="` + escapeLabel(l) + `",code="200"}`
			v, ok := m[key]
			require.True(t, ok, key)
			require.Zero(t, v)
		}
		_, ok := m[`toolsieve_request_duration_seconds_count{api="`+api+`"}`]
		require.True(t, ok, api)
	}
	for _, d := range toolsieve.Dialects() {
		for _, l := range labels {
			_, ok := m[`toolsieve_recovered_calls_total{dialect="`+d+`",model="`+l+`"}`]
			require.True(t, ok, d+" "+l)
		}
	}
	for _, reason := range retryReasons {
		_, ok := m[`toolsieve_retries_total{reason="`+reason+`",model="ds"}`]
		require.True(t, ok, reason)
	}
	for _, reason := range []string{"unclosed_openers", "repeated_call"} {
		_, ok := m[`toolsieve_runaways_total{reason="`+reason+`",model="glm"}`]
		require.True(t, ok, reason)
	}
	for _, f := range []string{"header_timeout", "idle_timeout", "unreachable", "reset"} {
		_, ok := m[`toolsieve_upstream_failures_total{reason="`+f+`"}`]
		require.True(t, ok, f)
	}
	_, ok := m[`toolsieve_request_headers_refused_total{header="X-Toolsieve-Mode"}`]
	require.True(t, ok)

	// One label set per family; the model label only takes the policy's labels.
	sets := map[string][]string{}
	label := regexp.MustCompile(`([a-z_]+)="((?:[^"\\]|\\.)*)"`)
	for key := range m {
		name, rest, _ := strings.Cut(key, "{")
		name = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")
		var names []string
		for _, mm := range label.FindAllStringSubmatch(rest, -1) {
			if mm[1] == "le" {
				continue
			}
			names = append(names, mm[1])
			if mm[1] == "model" {
				require.Contains(t, labels, mm[2], key)
			}
		}
		if prev, seen := sets[name]; seen {
			require.Equal(t, prev, names, "label set of %s", key)
		}
		sets[name] = names
	}
	require.Equal(t, []string{"api", "model", "code"}, sets["toolsieve_requests_total"])
	require.Equal(t, []string{"dialect", "model"}, sets["toolsieve_recovered_calls_total"])
	require.Equal(t, []string{"reason", "model"}, sets["toolsieve_runaways_total"])
	for name := range sets {
		require.Regexp(t, `^toolsieve_[a-z][a-z_]*[a-z]$`, name)
		for _, unit := range []string{"seconds", "bytes", "tokens"} {
			if i := strings.Index(name, "_"+unit); i >= 0 {
				rest := name[i+1+len(unit):]
				require.Contains(t, []string{"", "_total"}, rest, "%s: nothing but _total after the unit", name)
			}
		}
	}

	// A request for a model no rule names counts under its family or other.
	resp, err := client.Get(srv.URL + "/v1/models")
	require.NoError(t, err)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	m = scrape(t, client, srv.URL)
	require.EqualValues(t, 1, m[`toolsieve_requests_total{api="other",model="other",code="502"}`])
}

func uniq(s []string) []string {
	out := slices.Clone(s)
	return slices.Compact(out)
}
