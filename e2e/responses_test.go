package e2e

// The Responses API end to end: openai-go's Responses client, streamed and
// not, through the proxy (and the Transport) in front of the echo upstream.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
	"github.com/toolsieve/toolsieve/sievehttp"
)

// responsesResult reads the SDK's view of a response.
func responsesResult(r *responses.Response) chattest.Response {
	var a chattest.Response
	for _, it := range r.Output {
		text := ""
		for _, c := range it.Content {
			text += c.Text
		}
		switch it.Type {
		case "message":
			a.Text += text
			a.Segments = append(a.Segments, text)
		case "reasoning":
			a.Reasoning += text
		case "function_call":
			a.Calls = append(a.Calls, chattest.Call{ID: it.CallID, Name: it.Name, Args: it.Arguments.OfString})
		}
	}
	a.Finish = string(r.Status)
	return a
}

func responsesParams(model, content string) responses.ResponseNewParams {
	return responses.ResponseNewParams{Model: model, Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(content)}}
}

func responsesUnary(ctx context.Context, c openai.Client, model, content string) (chattest.Response, error) {
	r, err := c.Responses.New(ctx, responsesParams(model, content))
	if err != nil {
		return chattest.Response{}, err
	}
	return responsesResult(r), nil
}

// responsesStreamed streams a response and puts its events together with
// the SDK's ResponseAccumulator, checking that the items as streamed (before
// the final event) are the final response's output.
func responsesStreamed(ctx context.Context, c openai.Client, model, content string) (chattest.Response, error) {
	s := c.Responses.NewStreaming(ctx, responsesParams(model, content))
	defer s.Close()
	var acc responses.ResponseAccumulator
	var streamed responses.ResponseAccumulatorSnapshot
	for s.Next() {
		var ev responses.ResponsesServerEventUnion
		if err := json.Unmarshal([]byte(s.Current().RawJSON()), &ev); err != nil {
			return chattest.Response{}, err
		}
		switch ev.Type {
		case "response.completed", "response.incomplete", "response.failed":
			streamed = acc.Snapshot()
		}
		if err := acc.AddEvent(ev); err != nil {
			return chattest.Response{}, fmt.Errorf("event refused by the accumulator: %w: %s", err, s.Current().RawJSON())
		}
	}
	if err := s.Err(); err != nil {
		return chattest.Response{}, err
	}
	final, err := acc.ReconstructedResponse()
	if err != nil {
		return chattest.Response{}, err
	}
	end := acc.Snapshot()
	if len(streamed.Output) != len(end.Output) {
		return chattest.Response{}, fmt.Errorf("%d items streamed, %d in the final output", len(streamed.Output), len(end.Output))
	}
	for i, it := range streamed.Output {
		f := end.Output[i]
		if it.Type != f.Type || it.ItemID != f.ItemID || it.CallID != f.CallID || it.Name != f.Name || it.Arguments != f.Arguments || fmt.Sprint(it.Text) != fmt.Sprint(f.Text) {
			return chattest.Response{}, fmt.Errorf("item %d streamed as %+v, final %+v", i, it, f)
		}
	}
	return responsesResult(final), nil
}

// checkResponses compares the SDK's result with the parser's reading.
func checkResponses(t *testing.T, content string, got chattest.Response, msg string) {
	t.Helper()
	chattest.CheckResponse(t, chat.APIResponses, content, toolsieve.Options{}, got, msg)
	for _, c := range got.Calls {
		require.NotEmpty(t, c.ID, msg)
	}
}

// responsesCases are the DSML, Qwen3-Coder and Hermes cases served end to
// end.
func responsesCases(t *testing.T) []chattest.Case {
	var out []chattest.Case
	for _, c := range e2eCases(t) {
		switch c.File {
		case "dsml", "qwen3_coder", "hermes":
			out = append(out, c)
		}
	}
	return out
}

// TestE2EResponses: DSML, Qwen3-Coder and Hermes markup through the proxy
// as openai-go's Responses client sees it, streamed and not.
func TestE2EResponses(t *testing.T) {
	chattest.NoLeaks(t)
	env := newE2E(t)
	ctx := context.Background()
	oc := openAIClient(t, env.proxy.URL+"/v1/")
	calls := map[string]int{}
	for _, c := range responsesCases(t) {
		for _, model := range []string{"echo", "bytes"} {
			msg := fmt.Sprintf("%s/%s (%s)", c.File, c.Name, model)
			got, err := responsesStreamed(ctx, oc, model, c.Input)
			require.NoError(t, err, msg)
			checkResponses(t, c.Input, got, msg+" stream")
			calls[c.File] += len(got.Calls)
			if model == "echo" {
				got, err = responsesUnary(ctx, oc, model, c.Input)
				require.NoError(t, err, msg)
				checkResponses(t, c.Input, got, msg)
			}
		}
	}
	for _, f := range []string{"dsml", "qwen3_coder", "hermes"} {
		require.NotZero(t, calls[f], "no call from %s", f)
	}
	require.Contains(t, env.logs.String(), "api=responses")
}

// TestE2EResponsesTransport: the same through the Transport, without a
// proxy.
func TestE2EResponsesTransport(t *testing.T) {
	chattest.NoLeaks(t)
	up := chattest.NewEchoUpstream(t)
	ctx := context.Background()
	oc := openai.NewClient(ooption.WithBaseURL(up.Server.URL+"/v1/"), ooption.WithAPIKey("k"), ooption.WithMaxRetries(0),
		ooption.WithHTTPClient(chattest.LoopbackClient(t, &sievehttp.Transport{})))
	for _, c := range responsesCases(t) {
		got, err := responsesStreamed(ctx, oc, "bytes", c.Input)
		require.NoError(t, err, c.Name)
		checkResponses(t, c.Input, got, c.Name+" transport stream")
		got, err = responsesUnary(ctx, oc, "echo", c.Input)
		require.NoError(t, err, c.Name)
		checkResponses(t, c.Input, got, c.Name+" transport")
	}
}

// TestE2EResponsesPlainIdentical: plain text comes through the proxy byte
// for byte.
func TestE2EResponsesPlainIdentical(t *testing.T) {
	chattest.NoLeaks(t)
	env := newE2E(t)
	client := chattest.LoopbackClient(t, nil)
	text := "Plain answer.\nSecond line with 杭州 and 🙂 — nothing to recover.\n\nThe end"
	for _, body := range []string{
		`{"model":"echo","stream":true,"input":` + chattest.Quote(text) + `}`,
		`{"model":"echo","stream":true,"input":[{"role":"user","content":[{"type":"input_text","text":` + chattest.Quote(text) + `}]}]}`,
		`{"model":"echo","input":` + chattest.Quote(text) + `}`,
	} {
		direct := chattest.Post(t, client, env.up.Server.URL+"/v1/responses", body)
		proxied := chattest.Post(t, client, env.proxy.URL+"/v1/responses", body)
		require.Equal(t, string(direct), string(proxied), body)
	}
}

// TestE2EResponsesRunaway: a loop ends the streamed response as
// incomplete (max_output_tokens) with the calls before it, and the upstream
// stops generating.
func TestE2EResponsesRunaway(t *testing.T) {
	chattest.NoLeaks(t)
	env := newE2E(t)
	oc := openAIClient(t, env.proxy.URL+"/v1/")
	got, err := responsesStreamed(context.Background(), oc, "runaway", "x")
	require.NoError(t, err)
	require.NotEmpty(t, got.Calls)
	require.Equal(t, "incomplete", got.Finish)
	require.Equal(t, "Working.\n", got.Segments[0])
	select {
	case ev := <-env.up.Events:
		require.True(t, strings.HasPrefix(ev, "stopped after"), ev)
	case <-time.After(10 * time.Second):
		t.Fatal("upstream never stopped")
	}
	require.Less(t, env.up.Written.Load(), int64(200), "upstream went on generating")
	require.Contains(t, env.logs.String(), "runaway=true")
}

// TestE2EResponsesHistory: under a policy, the proxy cleans markup that an
// earlier turn left in the input's assistant message before the upstream
// sees it: the call becomes a function_call item paired with its output.
func TestE2EResponsesHistory(t *testing.T) {
	chattest.NoLeaks(t)
	seen := make(chan []byte, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		seen <- b
		w.Header().Set("Content-Type", "application/json")
		w.Write(chattest.ResponsesDoc("Thanks."))
	}))
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	p := sievehttp.NewProxy(u, toolsieve.Options{})
	p.Policy = &sievehttp.Policy{}
	p.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	ps := httptest.NewServer(p)
	t.Cleanup(ps.Close)
	oc := openAIClient(t, ps.URL+"/v1/")
	input := responses.ResponseInputParam{
		responses.ResponseInputItemParamOfMessage("read main.go", responses.EasyInputMessageRoleUser),
		responses.ResponseInputItemParamOfMessage(chattest.LeakedDSML, responses.EasyInputMessageRoleAssistant),
		responses.ResponseInputItemParamOfFunctionCallOutput[string]("package main"),
		responses.ResponseInputItemParamOfMessage("thanks", responses.EasyInputMessageRoleUser),
	}
	input[2].OfFunctionCallOutput.CallID = openai.String("call_abc")
	r, err := oc.Responses.New(context.Background(), responses.ResponseNewParams{Model: "m", Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}})
	require.NoError(t, err)
	require.Equal(t, "Thanks.", r.OutputText())
	var body struct {
		Input []map[string]any `json:"input"`
	}
	require.NoError(t, json.Unmarshal(<-seen, &body))
	require.Len(t, body.Input, 5)
	require.Equal(t, "I'll read it.", body.Input[1]["content"])
	require.Equal(t, map[string]any{"type": "function_call", "call_id": "call_abc", "name": "read_file", "arguments": `{"path":"main.go"}`}, body.Input[2])
	require.Equal(t, "function_call_output", body.Input[3]["type"])
}
