package sievehttp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// TestProxyPairsHistory: a history with a result whose call is gone and a
// call with no result goes upstream mended, in the three APIs, streamed
// and whole; the answer says what was mended, as do the log and the
// metrics. With clean_history off it goes as it came.
func TestProxyPairsHistory(t *testing.T) {
	chattest.NoLeaks(t)
	hist := map[chat.API][2]string{
		chat.APIOpenAI: {`"messages":[{"role":"user","content":"a"},{"role":"tool","tool_call_id":"x","content":"r"},{"role":"assistant","content":"hi","tool_calls":[{"id":"y","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":"b"}]`,
			`"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"hi"},{"role":"user","content":"b"}]`},
		chat.APIAnthropic: {`"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"y","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"r"},{"type":"text","text":"b"}]}]`,
			`"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"text","text":"hi"}]},{"role":"user","content":[{"type":"text","text":"b"}]}]`},
		chat.APIResponses: {`"input":[{"role":"user","content":"a"},{"type":"function_call_output","call_id":"x","output":"r"},{"type":"function_call","call_id":"y","name":"f","arguments":"{}"},{"role":"user","content":"b"}]`,
			`"input":[{"role":"user","content":"a"},{"role":"user","content":"b"}]`},
	}
	forEachAPI(t, func(t *testing.T, api chat.API, stream bool) {
		env := newAPIEnv(t, choicePolicy(0), scriptOf("fine"))
		path, body := apiRequest(api, stream, "x", hist[api][0])
		a := env.post(t, api, stream, path, body)
		require.Equal(t, "fine", a.got.Text)
		_, want := apiRequest(api, stream, "x", hist[api][1])
		require.Equal(t, want, env.up.body(0))
		require.Equal(t, "calls_dropped=1,results_dropped=1", a.resp.Header.Get(HeaderHistoryRepairs))
		require.Contains(t, env.logs.String(), `history_paired="calls_dropped=1,results_dropped=1"`)
		m := scrape(t, env.client, env.proxy.URL)
		require.EqualValues(t, 1, m[`toolsieve_history_orphans_total{action="calls_dropped"}`])
		require.EqualValues(t, 1, m[`toolsieve_history_orphans_total{action="results_dropped"}`])
		require.EqualValues(t, 0, m[`toolsieve_history_orphans_total{action="calls_restored"}`])

		off := false
		pol := choicePolicy(0)
		pol.Default.CleanHistory = &off
		env = newAPIEnv(t, pol, scriptOf("fine"))
		a = env.post(t, api, stream, path, body)
		require.Equal(t, body, env.up.body(0))
		require.Empty(t, a.resp.Header.Get(HeaderHistoryRepairs))
	})
}
