package sievehttp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// limitCutValue is an answer the token limit ended inside the value of a
// call's second argument: the parser keeps the call as text (cut_at_eof).
const limitCutValue = "Writing now.\n<tool_call>\n<function=write>\n<parameter=path>\na.go\n</parameter>\n<parameter=content>\npackage ma"

// limitUpstream answers every OpenAI chat request with content, streamed
// or not as asked, and finish_reason "length".
func limitUpstream(t *testing.T, content string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !bytes.Contains(body, []byte(`"stream":true`)) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(bytes.Replace(chattest.OpenAIDoc(content), []byte(`"finish_reason":"stop"`), []byte(`"finish_reason":"length"`), 1))
			return
		}
		pieces := chattest.SplitContent(rand.New(rand.NewPCG(7, 7)), content, 8, false)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(bytes.Replace(chattest.OpenAIStream(pieces), []byte(`"finish_reason":"stop"`), []byte(`"finish_reason":"length"`), 1))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestCutValueTruncated: an answer the token limit ended inside a call's
// value gives no call, and the proxy and the Transport report the call
// as truncated (X-Toolsieve-Truncated, the truncated error event, the
// truncated metric), whole or streamed, with streamed calls on or off.
// The parser keeps such a call as text whoever ended the answer; only the
// finish reason says it was cut.
func TestCutValueTruncated(t *testing.T) {
	chattest.NoLeaks(t)
	up := limitUpstream(t, limitCutValue)
	u, _ := url.Parse(up.URL)
	for _, streamCalls := range []bool{false, true} {
		for _, stream := range []bool{false, true} {
			msg := fmt.Sprintf("stream %v, streamed calls %v", stream, streamCalls)
			pol := polRetries(0)
			pol.Default.StreamCalls = &streamCalls
			p := NewProxy(u, toolsieve.Options{IDPrefix: "t_"})
			p.Policy, p.Metrics = pol, NewMetrics()
			ps := httptest.NewServer(p)
			env := &polEnv{proxy: ps, metrics: p.Metrics, client: chattest.LoopbackClient(t, nil)}
			a := env.send(t, chat.APIOpenAI, stream, "x")
			if stream && streamCalls {
				// Its arguments stay as they went out, never closed, and
				// the stream ends with an error: no client runs it.
				require.Len(t, a.got.Calls, 1, msg)
				require.False(t, json.Valid([]byte(a.got.Calls[0].Args)), msg)
				require.Len(t, a.got.Errors, 1, msg)
			} else {
				require.Empty(t, a.got.Calls, msg)
				require.Equal(t, limitCutValue, a.got.Text, msg)
			}
			require.Equal(t, "1", a.signal(HeaderTruncated), msg)
			var out strings.Builder
			p.Metrics.WriteTo(&out)
			require.Contains(t, out.String(), "toolsieve_truncated_calls_total 1", msg)
			ps.Close()

			// The Transport: the same signal, and one truncated error
			// event for the call (the parser's cut_at_eof is not passed on).
			var notes []string
			tr := &Transport{Policy: pol, Options: toolsieve.Options{IDPrefix: "t_"},
				Notify: func(_ *http.Request, e *toolsieve.Event) {
					if e.Type == toolsieve.Error {
						notes = append(notes, e.Reason.String()+":"+e.Name)
					}
				}}
			path, body := chatBody(chat.APIOpenAI, stream, "x")
			req, _ := http.NewRequest(http.MethodPost, up.URL+path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := tr.RoundTrip(req)
			require.NoError(t, err, msg)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !stream {
				require.Empty(t, chattest.AccumulateDoc(t, chat.APIOpenAI, b).Calls, msg)
			}
			trunc := resp.Header.Get(HeaderTruncated)
			if trunc == "" {
				trunc = resp.Trailer.Get(HeaderTruncated)
			}
			require.Equal(t, "1", trunc, msg)
			require.Equal(t, []string{"truncated:write"}, notes, msg)
		}
	}
}
