package sievehttp

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// TestDiscardedTokens: the first answer (10 input, 20 output tokens) is
// discarded for a retry, the second (11, 21) delivered: the discarded
// tokens are counted in the header and the metrics, the client gets the
// final answer's usage, and an OpenAI stream's usage chunk that only the
// proxy asked for does not reach the client.
func TestDiscardedTokens(t *testing.T) {
	chattest.NoLeaks(t)
	for _, clientAsks := range []bool{false, true} {
		forEachAPI(t, func(t *testing.T, api chat.API, stream bool) {
			env := newAPIEnv(t, choicePolicy(1), scriptOf(choicePlain, polGood))
			env.up.tokens = func(i int) (int, int) { return 10 + i, 20 + i }
			extra := choiceMember(api, "required")
			if clientAsks {
				extra += `,"stream_options":{"include_usage":true}`
			}
			path, body := apiRequest(api, stream, "x", extra)
			a := env.post(t, api, stream, path, body)
			require.Len(t, a.got.Calls, 1)
			require.Equal(t, 2, env.up.requests())
			require.Equal(t, "30", a.resp.Header.Get(HeaderDiscardedTokens))
			m := scrape(t, env.client, env.proxy.URL)
			require.EqualValues(t, 10, m[`toolsieve_discarded_tokens_total{kind="input"}`])
			require.EqualValues(t, 20, m[`toolsieve_discarded_tokens_total{kind="output"}`])
			require.EqualValues(t, 0, m[`toolsieve_discarded_tokens_total{kind="output_estimate"}`])
			require.Contains(t, env.logs.String(), "discarded_tokens=30")
			asked := api == chat.APIOpenAI && stream && !clientAsks
			if asked {
				require.Contains(t, env.up.body(0), `"stream_options":{"include_usage":true}`)
				require.NotContains(t, a.body, "usage", "the chunk the proxy asked for")
				return
			}
			require.Equal(t, body, env.up.body(0), "the client's own request")
			in, out := "input_tokens", "output_tokens"
			if api == chat.APIOpenAI {
				in, out = "prompt_tokens", "completion_tokens"
			}
			require.Contains(t, a.body, `"`+in+`":11`, "the final answer's usage")
			require.Contains(t, a.body, `"`+out+`":21`)
			require.False(t, strings.Contains(a.body, `"`+in+`":10`) || strings.Contains(a.body, `"`+out+`":20`), "nothing of the first answer")
		})
	}
}

// TestDiscardedTokensEstimate: a stream cut by a runaway reported no
// output usage; its data events stand for its output tokens (Anthropic's
// input tokens come at its start).
func TestDiscardedTokensEstimate(t *testing.T) {
	chattest.NoLeaks(t)
	for _, api := range allAPIs {
		env := newAPIEnv(t, choicePolicy(1), scriptOf(polLoop, polGood))
		path, body := apiRequest(api, true, "x", "")
		a := env.post(t, api, true, path, body)
		require.Len(t, a.got.Calls, 1)
		m := scrape(t, env.client, env.proxy.URL)
		est := m[`toolsieve_discarded_tokens_total{kind="output_estimate"}`]
		require.Greater(t, est, int64(2), api.String())
		require.EqualValues(t, 0, m[`toolsieve_discarded_tokens_total{kind="output"}`])
		in := map[chat.API]int64{chat.APIAnthropic: 5}[api]
		require.EqualValues(t, in, m[`toolsieve_discarded_tokens_total{kind="input"}`], api.String())
		require.Equal(t, strconv.FormatInt(in+est, 10), a.resp.Header.Get(HeaderDiscardedTokens))
	}
}
