package chat_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

var streamAPIs = []chat.API{chat.APIOpenAI, chat.APIAnthropic, chat.APIResponses}

// upstreamOf is content as a stream of api, cut into pieces.
func upstreamOf(api chat.API, pieces []string) []byte {
	switch api {
	case chat.APIAnthropic:
		return chattest.AnthropicStream(pieces)
	case chat.APIResponses:
		return chattest.ResponsesStream(pieces)
	}
	return chattest.OpenAIStream(pieces)
}

func accumulate(t *testing.T, api chat.API, out []byte) chattest.Response {
	switch api {
	case chat.APIAnthropic:
		return chattest.AccumulateAnthropic(t, out)
	case chat.APIResponses:
		return chattest.AccumulateResponses(t, out)
	}
	return chattest.AccumulateOpenAI(t, out)
}

// accumulateCut is accumulate for a stream that may have been cut (see
// chattest.AccumulateResponsesCut).
func accumulateCut(t *testing.T, api chat.API, out []byte) chattest.Response {
	if api == chat.APIResponses {
		return chattest.AccumulateResponsesCut(t, out)
	}
	return accumulate(t, api, out)
}

// rewriteStreamed rewrites in with streamed calls; err is the error the
// rewritten body ended with.
func rewriteStreamed(in []byte, opt toolsieve.Options, chunk int) (out []byte, st chat.RewriteStats, errs []string, err error) {
	opt.StreamCalls = true
	return chattest.RewriteNotes(in, chat.APIAuto, opt, chunk)
}

// TestRewriteStreamedCalls rewrites every fixture with streamed calls, in
// the three APIs' streams cut at random: the client gets what the parser
// reads, as without streaming; where a call had started to go out and then
// turned out a loop's or lost its arguments, the stream ends with an error.
func TestRewriteStreamedCalls(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	streamed, failed := 0, 0
	for _, c := range chattest.LoadCases(t, "../testdata/cases") {
		if strings.Contains(c.Input, "\x00") {
			continue
		}
		opt := c.ParserOptions(t)
		want := chattest.Expected(c.Input, opt)
		for _, api := range streamAPIs {
			for k := range 3 {
				pieces := chattest.SplitContent(rng, c.Input, 1+k*5, k%2 == 1)
				msg := fmt.Sprintf("%s/%s %s split %d", c.File, c.Name, api, k)
				out, _, _, err := rewriteStreamed(upstreamOf(api, pieces), opt, 1+rng.IntN(64))
				if err != nil {
					require.True(t, errors.Is(err, chat.ErrStreamedLoop) || errors.Is(err, chat.ErrStreamedLost) || errors.Is(err, chat.ErrStreamedUnread), "%s: %v", msg, err)
					require.True(t, want.Runaway || len(want.Calls) == 0 || strings.Contains(c.File, "unread"), "%s: %v", msg, err)
					failed++
					continue
				}
				if want.Runaway {
					continue // as without streaming: TestRewriteRunaway
				}
				chattest.CheckResponse(t, api, c.Input, opt, accumulate(t, api, out), msg)
				streamed += len(want.Calls)
			}
		}
	}
	require.Greater(t, streamed, 500)
	require.Less(t, failed, streamed/20, "answers ended with an error")
}

// TestStreamedCallPieces: a long value goes out in many pieces, in each
// API's own events, and the client puts them back together.
func TestStreamedCallPieces(t *testing.T) {
	tools, err := toolsieve.ParseTools([]byte(`[{"type":"function","function":{"name":"write_file","parameters":{"type":"object",
		"properties":{"path":{"type":"string"},"content":{"type":"string"}}}}}]`))
	require.NoError(t, err)
	var lines strings.Builder
	for i := range 400 {
		fmt.Fprintf(&lines, "line %d \"quoted\" <b>ünïcode</b>\n", i)
	}
	body := lines.String()
	contents := []string{
		"Writing it.\n<tool_call>\n<function=write_file>\n<parameter=path>\na.txt\n</parameter>\n<parameter=content>\n" +
			body + "</parameter>\n</function>\n</tool_call>",
		"Writing it.\n<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": " +
			chattest.Quote(strings.TrimSuffix(body, "\n")) + "}}\n</tool_call>",
	}
	pieceEvent := map[chat.API]string{
		chat.APIOpenAI:    `"tool_calls":[{"index":0,"function":{"arguments":`,
		chat.APIAnthropic: `"type":"input_json_delta"`,
		chat.APIResponses: `event: response.function_call_arguments.delta`,
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, content := range contents {
		for _, api := range streamAPIs {
			in := upstreamOf(api, chattest.SplitContent(rng, content, 40, true))
			out, st, _, err := rewriteStreamed(in, toolsieve.Options{Tools: tools}, 97)
			require.NoError(t, err)
			got := accumulate(t, api, out)
			require.Len(t, got.Calls, 1, api)
			require.Equal(t, "write_file", got.Calls[0].Name)
			require.JSONEq(t, `{"path":"a.txt","content":`+chattest.Quote(strings.TrimSuffix(body, "\n"))+`}`, got.Calls[0].Args, api)
			require.Equal(t, 1, st.Calls)
			require.Greater(t, strings.Count(string(out), pieceEvent[api]), 100, "%s: argument pieces", api)
		}
	}
}

// TestStreamedCallCancelled: a call that started to go out and then does
// not complete. A loop's ends the answer with an error; one whose markup
// is given back as text after some arguments went out (strict mode refused
// it, the end of input cut its last value) too: it is never finished with
// the arguments sent.
func TestStreamedCallCancelled(t *testing.T) {
	start := "<tool_call>\n<function=write_file>\n<parameter=path>\na.txt\n</parameter>\n<parameter=content>\nabc"
	loop := start + "\n</parameter>\n" + strings.Repeat("<tool_call>\n<function=write_file>\n", 6)
	tools, err := toolsieve.ParseTools([]byte(`[{"type":"function","function":{"name":"write_file","parameters":{"type":"object",
		"properties":{"path":{"type":"string"},"content":{"type":"string"},"mode":{"type":"string"}},"required":["path","content","mode"]}}}]`))
	require.NoError(t, err)
	strict := toolsieve.Options{Tools: tools, Strict: &toolsieve.Strict{}}
	for _, api := range streamAPIs {
		_, _, _, err := rewriteStreamed(upstreamOf(api, chattest.SplitContent(rand.New(rand.NewPCG(1, 1)), loop, 7, false)), toolsieve.Options{}, 13)
		require.ErrorIs(t, err, chat.ErrStreamedLoop, api)

		// Refused by strict mode (a required parameter is missing) after
		// its path and content went out: the answer ends with an error.
		refused := start + "\n</parameter>\n</function>\n</tool_call>\nDone."
		out, st, errs, err := rewriteStreamed(upstreamOf(api, []string{refused[:60], refused[60:100], refused[100:]}), strict, 0)
		require.ErrorIs(t, err, chat.ErrStreamedUnread, api)
		got := accumulateCut(t, api, out)
		for _, c := range got.Calls {
			require.False(t, json.Valid([]byte(c.Args)), "%s: the refused call was finished: %s", api, c.Args)
		}
		require.Zero(t, st.Calls, api)
		require.NotContains(t, got.Text, "<function=", api)
		require.Contains(t, strings.Join(errs, "\n"), "could not complete", api)

		// Cut inside its last value by the end of the content, the model's
		// own stop after it: the value may be cut anywhere, so the same.
		cut := start + "\nde"
		_, st, _, err = rewriteStreamed(upstreamOf(api, []string{cut[:60], cut[60:]}), toolsieve.Options{Tools: tools}, 0)
		require.ErrorIs(t, err, chat.ErrStreamedUnread, api)
		require.Zero(t, st.Calls, api)
	}
}
