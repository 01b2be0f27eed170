package sievehttp

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// metricLine is a sample line of the text exposition format.
var metricLine = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*"(,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*")*\})? [0-9]+(\.[0-9]+)?(e[-+][0-9]+)?$`)

// scrape reads /metrics and returns its samples by name{labels} (sums of
// histograms truncated to integers).
func scrape(t *testing.T, c *http.Client, base string) map[string]int64 {
	resp, err := c.Get(base + "/metrics")
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/plain; version=0.0.4; charset=utf-8", resp.Header.Get("Content-Type"))
	out := map[string]int64{}
	typed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if strings.HasPrefix(line, "# TYPE ") {
			f := strings.Fields(line)
			require.Len(t, f, 4, line)
			require.False(t, typed[f[2]], "TYPE twice: %s", line)
			typed[f[2]] = true
			continue
		}
		if strings.HasPrefix(line, "# HELP ") {
			continue
		}
		require.Regexp(t, metricLine, line)
		i := strings.LastIndexByte(line, ' ')
		name := line[:i]
		base, _, _ := strings.Cut(name, "{")
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if h := strings.TrimSuffix(base, suffix); h != base && typed[h] {
				base = h
			}
		}
		require.True(t, typed[base], "sample before its TYPE: %s", line)
		_, dup := out[name]
		require.False(t, dup, "sample twice: %s", line)
		v, err := strconv.ParseFloat(line[i+1:], 64)
		require.NoError(t, err)
		out[name] = int64(v)
	}
	return out
}

// TestMetricsCount: the metrics say what happened.
func TestMetricsCount(t *testing.T) {
	chattest.NoLeaks(t)
	env := newPolEnv(t, &Policy{NoBuiltin: true, Backoff: 1, ClientOverrides: true}, polGood, polCut, polLoop, polGood, polLoop, "fine")
	env.send(t, chat.APIOpenAI, false, "x")                         // request 0: a call
	env.send(t, chat.APIAnthropic, true, "x", HeaderMode, "strict") // 1: a call refused
	env.send(t, chat.APIOpenAI, false, "x", HeaderRetries, "1")     // 2 and 3: a runaway, retried; a call
	env.send(t, chat.APIOpenAI, true, "x", HeaderDialects, "dsml")  // 4: a streamed runaway, passed on
	// 5: leftover markup in the history.
	_, body := chatBody(chat.APIOpenAI, false, "x")
	cleaned := strings.Replace(body, `"messages":[`, `"messages":[{"role":"assistant","content":"a</tool_call>"},`, 1)
	resp, err := env.client.Post(env.proxy.URL+"/v1/chat/completions", "application/json", strings.NewReader(cleaned))
	require.NoError(t, err)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	resp, err = env.client.Get(env.proxy.URL + "/v1/models") // 6: passed through
	require.NoError(t, err)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	m := scrape(t, env.client, env.proxy.URL)
	require.Equal(t, 7, env.up.requests(), "/metrics is not forwarded")
	for name, want := range map[string]int64{
		`toolsieve_requests_total{api="openai",model="other",code="200"}`:      4,
		`toolsieve_requests_total{api="anthropic",model="other",code="200"}`:   1,
		`toolsieve_requests_total{api="other",model="other",code="200"}`:       1,
		`toolsieve_request_duration_seconds_count{api="openai"}`:               4,
		`toolsieve_time_to_first_byte_seconds_count{api="anthropic"}`:          1,
		`toolsieve_requests_in_flight`:                                         0, // /metrics is not counted
		`toolsieve_recovered_calls_total{dialect="dsml",model="other"}`:        2, // requests 0 and 3; the loop in 4 passes no call on
		`toolsieve_refused_calls_total`:                                        1,
		`toolsieve_runaways_total{reason="unclosed_openers",model="other"}`:    2,
		`toolsieve_retries_total{reason="runaway",model="other"}`:              1,
		`toolsieve_retries_exhausted_total`:                                    0,
		`toolsieve_history_messages_rewritten_total`:                           1,
		`toolsieve_history_calls_total`:                                        0,
		`toolsieve_history_calls_dropped_total`:                                0,
		`toolsieve_call_repairs_total{dialect="dsml",repair="missing_closer"}`: 0,
	} {
		require.Equal(t, want, m[name], name)
	}
	require.Positive(t, m["toolsieve_unrecovered_markup_total"])
	require.Positive(t, m["toolsieve_runaway_upstream_bytes_total"])
	saved := m["toolsieve_runaway_estimated_saved_tokens_total"]
	require.Positive(t, saved)
	require.Less(t, saved, int64(1000), "max_tokens less the events read")
}

// TestMetricsOff: without Metrics, /metrics is forwarded like any path.
func TestMetricsOff(t *testing.T) {
	chattest.NoLeaks(t)
	env := newPolEnv(t, nil, "x")
	u := env.proxy.URL
	env.proxy.Config.Handler.(*Proxy).Metrics = nil
	resp, err := env.client.Get(u + "/metrics")
	require.NoError(t, err)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.Equal(t, 1, env.up.requests())
}

func TestMetricsLabelEscaping(t *testing.T) {
	m := &Metrics{}
	m.call("other", "a\"b\\c\nd", []string{"r"})
	var b strings.Builder
	m.WriteTo(&b)
	require.Contains(t, b.String(), `toolsieve_recovered_calls_total{dialect="a\"b\\c\nd",model="other"} 1`)
	var nilM *Metrics
	nilM.call("other", "x", nil) // a nil Metrics counts nothing
	n, err := nilM.WriteTo(&b)
	require.Zero(t, n)
	require.NoError(t, err)
}

// series sums the samples of metric name whose labels start with labels,
// whatever the model label that follows them.
func series(m map[string]int64, name, labels string) int64 {
	var n int64
	for k, v := range m {
		if strings.HasPrefix(k, name+"{"+labels+",") || k == name+"{"+labels+"}" {
			n += v
		}
	}
	return n
}
