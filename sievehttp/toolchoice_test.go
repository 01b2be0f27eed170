package sievehttp

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// Contents for the tool_choice tests.
const (
	choicePlain = "I would rather not."
	// choiceTwo calls read_file, then list_dir.
	choiceTwo = "Two.\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"read_file\">\n" +
		"<｜DSML｜parameter name=\"path\" string=\"true\">a.go</｜DSML｜parameter>\n</｜DSML｜invoke>\n" +
		"<｜DSML｜invoke name=\"list_dir\">\n<｜DSML｜parameter name=\"path\" string=\"true\">.</｜DSML｜parameter>\n" +
		"</｜DSML｜invoke>\n</｜DSML｜function_calls>"
	// choiceOther calls list_dir.
	choiceOther = "Listing.\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"list_dir\">\n" +
		"<｜DSML｜parameter name=\"path\" string=\"true\">.</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"
	// choiceBare is a bare JSON call: the json dialect reads it only for
	// declared tools.
	choiceBare = `{"name": "read_file", "arguments": {"path": "main.go"}}`
)

// choicePolicy holds text back (so that a stream whose text went nowhere
// yet can be retried) and grants retries.
func choicePolicy(retries int) *Policy {
	hold := true
	return &Policy{NoBuiltin: true, Default: Rule{Retries: &retries, HoldText: &hold}, Backoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond}
}

// forEachAPI runs f for the three APIs, streamed and whole.
func forEachAPI(t *testing.T, f func(t *testing.T, api chat.API, stream bool)) {
	for _, api := range allAPIs {
		for _, stream := range []bool{false, true} {
			t.Run(modeName(api, stream), func(t *testing.T) { f(t, api, stream) })
		}
	}
}

// TestToolChoiceNone: the markup of a call stays text, byte for byte; one
// request, no signal.
func TestToolChoiceNone(t *testing.T) {
	chattest.NoLeaks(t)
	forEachAPI(t, func(t *testing.T, api chat.API, stream bool) {
		env := newAPIEnv(t, choicePolicy(2), scriptOf(polGood))
		path, body := apiRequest(api, stream, "read main.go", choiceMember(api, "none"))
		a := env.post(t, api, stream, path, body)
		require.Empty(t, a.got.Calls)
		require.Equal(t, polGood, a.got.Text)
		require.Equal(t, 1, env.up.requests())
		require.Equal(t, "0", a.resp.Header.Get(HeaderRetriesOut))
		require.Empty(t, a.signal(HeaderToolChoice))
		m := scrape(t, env.client, env.proxy.URL)
		require.EqualValues(t, 0, series(m, "toolsieve_recovered_calls_total", `dialect="dsml"`))
		require.Contains(t, env.logs.String(), "tool_choice=none")
		// The same request without tool_choice gets the call.
		path, body = apiRequest(api, stream, "read main.go", "")
		a = env.post(t, api, stream, path, body)
		require.Len(t, a.got.Calls, 1)
	})
}

// TestToolChoiceRequired: an answer without a call is retried; once the
// budget is spent it is passed on with X-Toolsieve-Tool-Choice: unmet.
func TestToolChoiceRequired(t *testing.T) {
	chattest.NoLeaks(t)
	forEachAPI(t, func(t *testing.T, api chat.API, stream bool) {
		env := newAPIEnv(t, choicePolicy(2), scriptOf(choicePlain, polGood))
		path, body := apiRequest(api, stream, "read main.go", choiceMember(api, "required"))
		a := env.post(t, api, stream, path, body)
		require.Len(t, a.got.Calls, 1, a.body)
		require.Equal(t, "read_file", a.got.Calls[0].Name)
		require.Equal(t, "Reading it.\n", a.got.Text)
		require.Equal(t, 2, env.up.requests())
		require.Equal(t, "1", a.resp.Header.Get(HeaderRetriesOut))
		require.Empty(t, a.signal(HeaderToolChoice))
		m := scrape(t, env.client, env.proxy.URL)
		require.EqualValues(t, 1, series(m, "toolsieve_retries_total", `reason="tool_choice"`))
		require.EqualValues(t, 0, m[`toolsieve_tool_choice_unmet_total{tool_choice="required"}`])

		env = newAPIEnv(t, choicePolicy(1), scriptOf(choicePlain))
		a = env.post(t, api, stream, path, body)
		require.Empty(t, a.got.Calls)
		require.Equal(t, choicePlain, a.got.Text)
		require.Equal(t, 2, env.up.requests())
		require.Equal(t, "1", a.resp.Header.Get(HeaderRetriesOut))
		require.Equal(t, "unmet", a.signal(HeaderToolChoice))
		m = scrape(t, env.client, env.proxy.URL)
		require.EqualValues(t, 1, series(m, "toolsieve_retries_total", `reason="tool_choice"`))
		require.EqualValues(t, 1, m[`toolsieve_tool_choice_unmet_total{tool_choice="required"}`])
		require.EqualValues(t, 1, m[`toolsieve_retries_exhausted_total`])
		require.Contains(t, env.logs.String(), "bad_answer=tool_choice tool_choice=required tool_choice_unmet=true")
	})
}

// TestToolChoiceRequiredNoHold: a stream whose text went out is not
// retried (the hold rules apply); the signal comes as a trailer.
func TestToolChoiceRequiredNoHold(t *testing.T) {
	chattest.NoLeaks(t)
	for _, api := range allAPIs {
		env := newAPIEnv(t, polRetries(2), scriptOf(choicePlain, polGood))
		path, body := apiRequest(api, true, "x", choiceMember(api, "required"))
		a := env.post(t, api, true, path, body)
		require.Empty(t, a.got.Calls, api.String())
		require.Equal(t, 1, env.up.requests(), api.String())
		require.Empty(t, a.resp.Header.Get(HeaderToolChoice), api.String())
		require.Equal(t, "unmet", a.resp.Trailer.Get(HeaderToolChoice), api.String())
	}
}

// TestToolChoiceNamed: a call to another tool is a bad answer; without
// declared tools the named tool's calls are read by the dialects that
// need declared tools, and calls to other names stay text.
func TestToolChoiceNamed(t *testing.T) {
	chattest.NoLeaks(t)
	forEachAPI(t, func(t *testing.T, api chat.API, stream bool) {
		// Declared tools: list_dir is a call, to the wrong tool.
		env := newAPIEnv(t, choicePolicy(2), scriptOf(choiceOther, polGood))
		extra := choiceMember(api, "read_file") + "," + toolsMember(api, "read_file", "list_dir")
		path, body := apiRequest(api, stream, "read main.go", extra)
		a := env.post(t, api, stream, path, body)
		require.Len(t, a.got.Calls, 1, a.body)
		require.Equal(t, "read_file", a.got.Calls[0].Name)
		require.Equal(t, 2, env.up.requests())
		m := scrape(t, env.client, env.proxy.URL)
		require.EqualValues(t, 1, series(m, "toolsieve_retries_total", `reason="tool_choice"`))

		// Spent: passed on, signalled.
		env = newAPIEnv(t, choicePolicy(1), scriptOf(choiceOther))
		a = env.post(t, api, stream, path, body)
		require.Len(t, a.got.Calls, 1)
		require.Equal(t, "list_dir", a.got.Calls[0].Name)
		require.Equal(t, 2, env.up.requests())
		require.Equal(t, "unmet", a.signal(HeaderToolChoice))
		m = scrape(t, env.client, env.proxy.URL)
		require.EqualValues(t, 1, m[`toolsieve_tool_choice_unmet_total{tool_choice="tool"}`])

		// No declared tools: the bare JSON call is read for the tool named.
		env = newAPIEnv(t, choicePolicy(0), scriptOf(choiceBare))
		path, body = apiRequest(api, stream, "read main.go", choiceMember(api, "read_file"))
		a = env.post(t, api, stream, path, body)
		require.Len(t, a.got.Calls, 1, a.body)
		require.JSONEq(t, `{"path":"main.go"}`, a.got.Calls[0].Args)
		require.Empty(t, a.signal(HeaderToolChoice))
		path, body = apiRequest(api, stream, "read main.go", "")
		a = env.post(t, api, stream, path, body)
		require.Empty(t, a.got.Calls, "without the name the json dialect is off")
		require.Equal(t, choiceBare, a.got.Text)

		// No declared tools: a call to another name stays text, the
		// answer is retried.
		env = newAPIEnv(t, choicePolicy(1), scriptOf(choiceOther, polGood))
		path, body = apiRequest(api, stream, "read main.go", choiceMember(api, "read_file"))
		a = env.post(t, api, stream, path, body)
		require.Len(t, a.got.Calls, 1)
		require.Equal(t, "read_file", a.got.Calls[0].Name)
		require.Equal(t, 2, env.up.requests())
	})
}

// TestParallelCallsOff: the first call goes out, the second is reported.
func TestParallelCallsOff(t *testing.T) {
	chattest.NoLeaks(t)
	forEachAPI(t, func(t *testing.T, api chat.API, stream bool) {
		env := newAPIEnv(t, choicePolicy(2), scriptOf(choiceTwo))
		path, body := apiRequest(api, stream, "x", noParallelMember(api))
		a := env.post(t, api, stream, path, body)
		require.Len(t, a.got.Calls, 1, a.body)
		require.Equal(t, "read_file", a.got.Calls[0].Name)
		require.JSONEq(t, `{"path":"a.go"}`, a.got.Calls[0].Args)
		require.Equal(t, "Two.\n", a.got.Text)
		require.NotContains(t, a.body, "list_dir")
		require.Equal(t, 1, env.up.requests(), "a dropped call is no reason to retry")
		require.Equal(t, "1", a.signal(HeaderDropped))
		m := scrape(t, env.client, env.proxy.URL)
		require.EqualValues(t, 1, m[`toolsieve_parallel_calls_dropped_total`])
		require.EqualValues(t, 1, series(m, "toolsieve_recovered_calls_total", `dialect="dsml"`))
		require.Contains(t, env.logs.String(), "dropped=1")

		path, body = apiRequest(api, stream, "x", "")
		a = env.post(t, api, stream, path, body)
		require.Len(t, a.got.Calls, 2)
		require.Empty(t, a.signal(HeaderDropped))
	})
}

// TestIDFormat: recovered calls get ids in the rule's format.
func TestIDFormat(t *testing.T) {
	chattest.NoLeaks(t)
	for _, tc := range []struct{ format, pattern string }{
		{"mistral", `^[a-zA-Z0-9]{9}$`},
		{"fc_", `^fc_[0-9]$`},
	} {
		forEachAPI(t, func(t *testing.T, api chat.API, stream bool) {
			pol := choicePolicy(0)
			pol.Default.IDFormat = tc.format
			env := newAPIEnv(t, pol, scriptOf(choiceTwo))
			path, body := apiRequest(api, stream, "x", "")
			a := env.post(t, api, stream, path, body)
			require.Len(t, a.got.Calls, 2)
			re := regexp.MustCompile(tc.pattern)
			for _, c := range a.got.Calls {
				require.Regexp(t, re, c.ID)
			}
			require.NotEqual(t, a.got.Calls[0].ID, a.got.Calls[1].ID)
		})
	}
	_, err := ParsePolicy([]byte(`{"default":{"id_format":"call id"}}`))
	require.ErrorContains(t, err, "id_format")
}

// TestToolChoiceWrappers: Transport and PolicyMiddleware under a policy
// retry an answer without a call; Middleware without a policy keeps markup
// text for tool_choice none and passes on one call with parallel calls
// off.
func TestToolChoiceWrappers(t *testing.T) {
	chattest.NoLeaks(t)
	base := &http.Transport{}
	t.Cleanup(base.CloseIdleConnections)
	for _, api := range allAPIs {
		up := newAPIUpstream(t, scriptOf(choicePlain, polGood))
		m := NewMetrics()
		tr := &Transport{Base: base, Policy: choicePolicy(1), Metrics: m}
		path, body := apiRequest(api, true, "x", choiceMember(api, "required"))
		got := accumulate(t, api, true, chattest.Post(t, &http.Client{Transport: tr}, up.srv.URL+path, body))
		require.Len(t, got.Calls, 1, api.String())
		require.Equal(t, 2, up.requests(), api.String())
		var sb strings.Builder
		m.WriteTo(&sb)
		require.Regexp(t, `(?m)^toolsieve_retries_total\{reason="tool_choice",model="[a-z0-9_:.-]+"\} 1$`, sb.String())

		up = newAPIUpstream(t, scriptOf(choicePlain, polGood))
		mw := PolicyMiddleware(toolsieve.Options{}, choicePolicy(1))
		path, body = apiRequest(api, false, "x", choiceMember(api, "required"))
		req, _ := http.NewRequest(http.MethodPost, up.srv.URL+path, strings.NewReader(body))
		resp, err := mw(req, base.RoundTrip)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Len(t, accumulate(t, api, false, b).Calls, 1, api.String())
		require.Equal(t, "1", resp.Header.Get(HeaderRetriesOut))
		require.Equal(t, 2, up.requests(), api.String())

		for _, tc := range []struct {
			extra, content, text string
			calls                int
		}{
			{choiceMember(api, "none"), polGood, polGood, 0},
			{noParallelMember(api), choiceTwo, "Two.\n", 1},
		} {
			up = newAPIUpstream(t, scriptOf(tc.content))
			plain := Middleware(toolsieve.Options{})
			path, body = apiRequest(api, true, "x", tc.extra)
			req, _ = http.NewRequest(http.MethodPost, up.srv.URL+path, strings.NewReader(body))
			resp, err = plain(req, base.RoundTrip)
			require.NoError(t, err)
			b, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			got = accumulate(t, api, true, b)
			require.Len(t, got.Calls, tc.calls, api.String())
			require.Equal(t, tc.text, got.Text, api.String())
			require.Equal(t, 1, up.requests())
		}
	}
}

// historyWithIDs is a history of api with a call and its result under the
// id "call_x_0", and a user turn.
func historyWithIDs(api chat.API) (key, hist string) {
	switch api {
	case chat.APIAnthropic:
		return "messages", `[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"call_x_0","name":"read_file","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_x_0","content":"ok"}]},{"role":"user","content":"next"}]`
	case chat.APIResponses:
		return "input", `[{"role":"user","content":"go"},{"type":"function_call","call_id":"call_x_0","name":"read_file","arguments":"{}"},` +
			`{"type":"function_call_output","call_id":"call_x_0","output":"ok"},{"role":"user","content":"next"}]`
	}
	return "messages", `[{"role":"user","content":"go"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_x_0","type":"function","function":{"name":"read_file","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"call_x_0","content":"ok"},{"role":"user","content":"next"}]`
}

// TestIDFormatHistory: with id_format mistral, the history's call and
// result get the same nine alphanumerics (the same in every request);
// other members stay byte for byte.
func TestIDFormatHistory(t *testing.T) {
	for _, api := range allAPIs {
		pol := choicePolicy(0)
		pol.Default.IDFormat = IDFormatMistral
		env := newAPIEnv(t, pol, scriptOf("fine"))
		key, hist := historyWithIDs(api)
		path, body := apiRequest(api, false, "x", `"`+key+`":`+hist)
		env.post(t, api, false, path, body)
		env.post(t, api, false, path, body)
		want := mistralFormat.From([]byte("call_x_0"))
		require.Regexp(t, `^[a-zA-Z0-9]{9}$`, want)
		require.Equal(t, strings.ReplaceAll(body, "call_x_0", want), env.up.body(0), api.String())
		require.Equal(t, env.up.body(0), env.up.body(1))
		require.Contains(t, env.logs.String(), "history_ids=2")

		env = newAPIEnv(t, choicePolicy(0), scriptOf("fine"))
		env.post(t, api, false, path, body)
		require.Equal(t, body, env.up.body(0), "without id_format the ids stay")
	}
}
