package sievehttp

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// cutContents are answers with calls for the proxy to cut: markup written
// as elements, and a JSON call object (its arguments stream as a string is
// read).
var cutContents = []string{
	"Let me look first.\n<tool_call>\n<function=list>\n<parameter=dir>\nsrc\n</parameter>\n</function>\n</tool_call>\n" +
		"Now the cleanup.\n<tool_call>\n<function=delete_path>\n<parameter=path>\n/home/user/tmp\n</parameter>\n</function>\n</tool_call>\nDone.",
	"Cleaning up.\n<tool_call>\n{\"name\": \"delete_path\", \"arguments\": {\"path\": \"/home/user/tmp\", \"recursive\": true}}\n</tool_call>\nDone.",
}

var cutAPIs = []chat.API{chat.APIOpenAI, chat.APIAnthropic, chat.APIResponses}

// cutRequest is a streamed chat request of api: its path and body.
func cutRequest(api chat.API) (path, body string) {
	switch api {
	case chat.APIAnthropic:
		return "/v1/messages", `{"model":"m","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"x"}]}`
	case chat.APIResponses:
		return "/v1/responses", `{"model":"m","stream":true,"input":"x"}`
	}
	return "/v1/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"x"}]}`
}

// cutStreams are the upstream streams of each API and content.
func cutStreams() map[chat.API][][]byte {
	rng := rand.New(rand.NewPCG(24, 2))
	streams := map[chat.API][][]byte{}
	for _, c := range cutContents {
		pieces := chattest.SplitContent(rng, c, 9, false)
		streams[chat.APIOpenAI] = append(streams[chat.APIOpenAI], chattest.OpenAIStream(pieces))
		streams[chat.APIAnthropic] = append(streams[chat.APIAnthropic], chattest.AnthropicStream(pieces))
		streams[chat.APIResponses] = append(streams[chat.APIResponses], chattest.ResponsesStream(pieces))
	}
	return streams
}

// cutUpstream is a scripted upstream that sends the first k bytes of a
// stream, written in chunks of the given size, and then closes the
// connection cleanly (the body's end), breaks it off (the connection
// closed without the body's end: the proxy reads unexpected EOF) or
// stalls, as the request's query says:
// ?content=I&k=K&chunk=N&end=close|reset|stall.
func cutUpstream(t *testing.T, streams map[chat.API][][]byte) *scripted {
	return newScripted(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		q := r.URL.Query()
		api, _ := chat.APIForPath(r.URL.Path)
		ci, _ := strconv.Atoi(q.Get("content"))
		k, _ := strconv.Atoi(q.Get("k"))
		chunk, _ := strconv.Atoi(q.Get("chunk"))
		stream := streams[api][ci][:k]
		if q.Get("end") == "stall" {
			w.Header().Set("Content-Type", "text/event-stream")
			rc := http.NewResponseController(w)
			for _, c := range pieces(stream, chunk) {
				w.Write(c)
				rc.Flush()
			}
			stall(r) // until the proxy's idle timeout cancels the request
			return
		}
		// The response is written by hand, in chunked encoding, so that
		// the connection is closed after everything was sent (a socket
		// closed with bytes it has not sent could reset the connection
		// before they arrive).
		conn, bw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		bw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
		bw.Flush()
		for _, c := range pieces(stream, chunk) {
			fmt.Fprintf(bw, "%x\r\n%s\r\n", len(c), c)
			if bw.Flush() != nil {
				return
			}
		}
		if q.Get("end") == "close" {
			bw.WriteString("0\r\n\r\n")
			bw.Flush()
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.CloseWrite() // all sent, then the end
		}
	})
}

// pieces cuts b into pieces of n bytes (0: one piece).
func pieces(b []byte, n int) [][]byte {
	var ps [][]byte
	for len(b) > 0 {
		k := len(b)
		if n > 0 {
			k = min(n, k)
		}
		ps = append(ps, b[:k])
		b = b[k:]
	}
	return ps
}

// cutError is what the client's stream ends with for an upstream that
// ends as end says before the answer's finish marker: the failure's code
// (OpenAI, Responses) or Anthropic error type and its message.
func cutError(api chat.API, end string) (shape, msg string) {
	f := map[string]struct{ code, anthropic, msg string }{
		"close": {"truncated", "api_error", "before its finish marker"},
		"reset": {"reset", "api_error", "upstream answer broke off: unexpected EOF"},
		"stall": {"idle_timeout", "timeout_error", "upstream sent nothing for 100ms"},
	}[end]
	if api == chat.APIAnthropic {
		return `"type":"` + f.anthropic + `"`, f.msg
	}
	return `"code":"` + f.code + `"`, f.msg
}

// TestProxyCuts: a scripted upstream closes the connection cleanly,
// resets it or stalls at each kind of byte of each event of a stream
// (inside a call, inside a string, between events; chattest.CutPositions),
// in the three APIs, written in chunks of several sizes, with and without
// streamed calls. For every cut the client's stream is asserted: every
// event whole and JSON, no call from the cut (a call that started to stream
// keeps arguments nothing closed), the text before the cut intact, and,
// unless the answer's finish marker came before the cut, exactly one error
// event, last, in the API's shape and naming the failure (truncated, reset,
// idle_timeout). A cut after the finish marker leaves the answer whole.
func TestProxyCuts(t *testing.T) {
	chattest.NoLeaks(t)
	streams := cutStreams()
	up := cutUpstream(t, streams)
	// The stalls end by the idle timeout, kept short; the other cuts get
	// one that no loaded machine reaches between two reads, so that they
	// end by their cut.
	type envKey struct{ streamed, stall bool }
	envs := map[envKey]*hardEnv{}
	for _, streamed := range []bool{false, true} {
		for _, stall := range []bool{false, true} {
			idle := 60_000
			if stall {
				idle = 100
			}
			pol := &Policy{NoBuiltin: true, Default: Rule{IdleTimeoutMS: idle, StreamCalls: &streamed}}
			envs[envKey{streamed, stall}] = newHardEnv(t, up, pol, nil)
		}
	}
	chunks := []int{7, 61, 509, 0}
	n, stalls := 0, 0
	for _, api := range cutAPIs {
		for ci := range cutContents {
			evs := chattest.StreamEvents(t, api, streams[api][ci])
			for i, k := range chattest.CutPositions(evs) {
				end := []string{"close", "reset"}[i%2]
				if i%23 == 11 {
					end = "stall"
					stalls++
				}
				streamed := (i/2)%2 == 1
				chunk := chunks[(i/4)%len(chunks)]
				env := envs[envKey{streamed, end == "stall"}]
				path, body := cutRequest(api)
				msg := fmt.Sprintf("%s, content %d, cut at %d/%d by %s, streamed calls %v, upstream chunks %d", api, ci, k, len(streams[api][ci]), end, streamed, chunk)
				q := fmt.Sprintf("?content=%d&k=%d&chunk=%d&end=%s", ci, k, chunk, end)
				resp, out, err := env.doBody(t, path+q, strings.NewReader(body))
				require.NoError(t, err, "%s: the client's stream ends cleanly", msg)
				require.Equal(t, http.StatusOK, resp.StatusCode, msg)
				want := chattest.ExpectCut(evs, k, toolsieve.Options{StreamCalls: streamed})
				got := chattest.CheckCut(t, api, out, want, msg)
				if want.Ended {
					require.Empty(t, got.Errors, msg)
				} else {
					require.Len(t, got.Errors, 1, "%s: one error event\n%s", msg, out)
					shape, text := cutError(api, end)
					require.Contains(t, got.Errors[0], shape, msg)
					require.Contains(t, got.Errors[0], text, msg)
					require.NotContains(t, got.Errors[0], "127.0.0.1", msg)
				}
				n++
			}
		}
	}
	for key, env := range envs {
		logs := env.logs.String()
		if key.stall {
			require.Contains(t, logs, "failure=idle_timeout")
			continue
		}
		require.Contains(t, logs, "failure=truncated")
		require.Contains(t, logs, "failure=reset")
		require.NotContains(t, logs, "failure=idle_timeout")
		require.Contains(t, logs, "truncated=1")
		m := env.scrape(t)
		require.NotZero(t, m[`toolsieve_upstream_failures_total{reason="truncated"}`])
		require.NotZero(t, m[`toolsieve_truncated_calls_total`])
	}
	t.Logf("%d cuts (%d stalls)", n, stalls)
}

// TestProxyCutRetried: a held answer (a retry is possible) cut inside a
// call is asked for again, and the client gets only the good answer; with
// no retry left, it gets what the cut left and the error (the call not
// run); the signals say truncated.
func TestProxyCutRetried(t *testing.T) {
	chattest.NoLeaks(t)
	streams := cutStreams()
	up := cutUpstream(t, streams)
	for _, api := range cutAPIs {
		evs := chattest.StreamEvents(t, api, streams[api][1])
		k, content := 0, ""
		for _, e := range evs { // inside the call's path argument
			content += e.Text
			if k == 0 && strings.Contains(content, `"/home/`) {
				k = e.End
			}
		}
		path, body := cutRequest(api)
		for _, end := range []string{"close", "reset"} {
			// No retry: the stream goes out as it comes.
			env := newHardEnv(t, up, &Policy{NoBuiltin: true}, nil)
			resp, out, err := env.doBody(t, path+fmt.Sprintf("?content=1&k=%d&chunk=0&end=%s", k, end), strings.NewReader(body))
			require.NoError(t, err)
			got := chattest.CheckCut(t, api, out, chattest.ExpectCut(evs, k, toolsieve.Options{StreamCalls: true}), api.String())
			require.Len(t, got.Errors, 1)
			require.Equal(t, "1", resp.Trailer.Get(HeaderTruncated), api.String())
			require.Eventually(t, func() bool { return strings.Contains(env.logs.String(), "truncated=1") }, 5*time.Second, 10*time.Millisecond)
		}
	}
	// With a retry: the cut answer is held (a stream that starts with
	// text is held with hold_text) and asked for again.
	calls := 0
	up2 := newScripted(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		calls++
		stream := streams[chat.APIOpenAI][1]
		w.Header().Set("Content-Type", "text/event-stream")
		if calls == 1 {
			w.Write(stream[:len(stream)/2])
			return // closed cleanly inside the call
		}
		w.Write(stream)
	})
	pol := polRetries(1)
	hold := true
	pol.Default.HoldText = &hold
	env := newHardEnv(t, up2, pol, nil)
	path, body := cutRequest(chat.APIOpenAI)
	resp, out, err := env.doBody(t, path, strings.NewReader(body))
	require.NoError(t, err)
	got := chattest.AccumulateOpenAI(t, out)
	require.Len(t, got.Calls, 1, "%d %s\n%s", resp.StatusCode, out, env.logs.String())
	require.Equal(t, "delete_path", got.Calls[0].Name)
	require.Empty(t, got.Errors)
	require.Equal(t, "1", resp.Header.Get(HeaderRetriesOut))
	require.Contains(t, env.logs.String(), "retry_reasons=truncated")
	require.EqualValues(t, 1, env.scrape(t)[`toolsieve_retries_total{reason="truncated",model="other"}`])
}

// TestProxyOneError: an upstream that sends its own error event and then
// breaks off, closes or stalls: the client gets that error and no second
// one; an upstream that breaks off after the answer's end leaves it whole.
func TestProxyOneError(t *testing.T) {
	chattest.NoLeaks(t)
	heads := map[chat.API][]byte{}
	for _, api := range cutAPIs {
		var s []byte
		switch api {
		case chat.APIOpenAI:
			s = chattest.OpenAIStream([]string{"Hello"})
			s = append(s[:bytes.Index(s, []byte(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{},`))],
				"data: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}\n\n"...)
		case chat.APIAnthropic:
			s = chattest.AnthropicStream([]string{"Hello"})
			s = append(s[:bytes.Index(s, []byte("event: content_block_stop"))],
				"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"...)
		default:
			s = chattest.ResponsesStream([]string{"Hello"})
			s = append(s[:bytes.Index(s, []byte("event: response.output_text.done"))],
				"event: error\ndata: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"boom\",\"param\":null,\"sequence_number\":5}\n\n"...)
		}
		heads[api] = s
	}
	whole := map[chat.API][]byte{chat.APIOpenAI: chattest.OpenAIStream([]string{"Hello"}),
		chat.APIAnthropic: chattest.AnthropicStream([]string{"Hello"}), chat.APIResponses: chattest.ResponsesStream([]string{"Hello"})}
	for _, api := range cutAPIs {
		for _, after := range []bool{false, true} { // after: a whole answer, then the break
			streams := map[chat.API][][]byte{api: {heads[api]}}
			if after {
				streams[api] = [][]byte{whole[api]}
			}
			up := cutUpstream(t, streams)
			env := newHardEnv(t, up, &Policy{NoBuiltin: true, Default: Rule{IdleTimeoutMS: 100}}, nil)
			for _, end := range []string{"close", "reset", "stall"} {
				path, body := cutRequest(api)
				_, out, err := env.doBody(t, path+fmt.Sprintf("?content=0&k=%d&chunk=0&end=%s", len(streams[api][0]), end), strings.NewReader(body))
				require.NoError(t, err)
				var got chattest.Response
				switch api {
				case chat.APIOpenAI:
					got = chattest.AccumulateOpenAI(t, out)
				case chat.APIAnthropic:
					got = chattest.AccumulateAnthropic(t, out)
				default:
					got = chattest.AccumulateResponsesCut(t, out)
				}
				msg := fmt.Sprintf("%s, %s, whole answer first %v", api, end, after)
				require.Equal(t, "Hello", got.Text, msg)
				if after {
					require.Empty(t, got.Errors, msg)
					continue
				}
				require.Len(t, got.Errors, 1, msg)
				require.NotContains(t, got.Errors[0], "toolsieve", msg) // the upstream's own
			}
		}
	}
}
