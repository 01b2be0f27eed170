package sievehttp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat/chattest"
	"github.com/toolsieve/toolsieve/sse"
)

// steppedUpstream sends an OpenAI stream one piece per step: each piece
// waits for a value on step.
type steppedUpstream struct {
	pieces []string
	step   chan struct{}
	sync   chan struct{} // sends the comment ": sync", in order with the pieces
}

func (u *steppedUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	rc.Flush() // the headers: the proxy answers with its own
	var buf []byte
	for i := 0; i < len(u.pieces); {
		select {
		case <-u.step:
		case <-u.sync:
			io.WriteString(w, ": sync\n\n")
			rc.Flush()
			continue
		case <-r.Context().Done():
			return
		}
		p := u.pieces[i]
		i++
		buf = sse.AppendEvent(buf[:0], "", []byte(chattest.OpenAIChunk(`{"content":`+chattest.Quote(p)+`}`, "")))
		if _, err := w.Write(buf); err != nil {
			return
		}
		rc.Flush()
	}
	w.Write(sse.AppendEvent(buf[:0], "", []byte(chattest.OpenAIChunk(`{}`, "stop"))))
	io.WriteString(w, "data: [DONE]\n\n")
}

// callWatch reads an OpenAI stream and reports when the first tool call's
// name arrives, and its arguments so far.
type callWatch struct {
	named  chan struct{} // closed when the name arrived
	args   chan string   // the arguments so far, after each piece of them
	synced chan struct{} // a value for each ": sync" comment, once what came before it was read
	done   chan []byte   // the whole stream
}

func watchCalls(t *testing.T, body io.ReadCloser) *callWatch {
	w := &callWatch{named: make(chan struct{}), args: make(chan string, 1024), synced: make(chan struct{}, 16), done: make(chan []byte, 1)}
	go func() {
		defer body.Close()
		var all bytes.Buffer
		var args strings.Builder
		br := bufio.NewReader(body)
		named := false
		for {
			line, err := br.ReadBytes('\n')
			all.Write(line)
			if err != nil {
				w.done <- all.Bytes()
				return
			}
			if bytes.HasPrefix(line, []byte(": sync")) {
				w.synced <- struct{}{}
				continue
			}
			data, ok := bytes.CutPrefix(line, []byte("data: "))
			if !ok || !bytes.Contains(data, []byte(`"tool_calls"`)) {
				continue
			}
			var chunk struct {
				Choices []struct {
					Delta struct {
						ToolCalls []struct {
							Function struct{ Name, Arguments string }
						} `json:"tool_calls"`
					}
				}
			}
			if json.Unmarshal(data, &chunk) != nil || len(chunk.Choices) == 0 {
				continue
			}
			for _, tc := range chunk.Choices[0].Delta.ToolCalls {
				if tc.Function.Name == "write_file" && !named {
					named = true
					close(w.named)
				}
				args.WriteString(tc.Function.Arguments)
			}
			select {
			case w.args <- args.String():
			default:
			}
		}
	}()
	return w
}

// sentContent is the length of the content value in arguments sent so far.
func sentContent(args string) int {
	_, v, ok := strings.Cut(args, `"content":"`)
	if !ok {
		return 0
	}
	var s string
	for v != "" && json.Unmarshal([]byte(`"`+v+`"`), &s) != nil {
		v = v[:len(v)-1] // a piece may end inside an escape
	}
	return len(s)
}

// TestStreamedCallTimeToName: through the proxy, with calls streamed, the
// client sees a call's name within one upstream chunk of the chunk that
// holds the name's markup, and the file as it is written; without, it sees
// nothing of the call until the call's markup is complete.
func TestStreamedCallTimeToName(t *testing.T) {
	chattest.NoLeaks(t)
	pieces, file := chattest.WriteFilePieces()
	off := false
	for _, streamed := range []bool{true, false} {
		up := &steppedUpstream{pieces: pieces, step: make(chan struct{}), sync: make(chan struct{})}
		us := httptest.NewServer(up)
		u, _ := url.Parse(us.URL)
		p := NewProxy(u, toolsieve.Options{})
		p.Logger = slog.New(slog.DiscardHandler)
		if !streamed {
			p.Policy = &Policy{Default: Rule{StreamCalls: &off}}
		}
		ps := httptest.NewServer(p)
		resp, err := http.Post(ps.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true}`))
		require.NoError(t, err)
		w := watchCalls(t, resp.Body)
		send := func(n int) {
			for range n {
				up.step <- struct{}{}
			}
		}
		send(2) // the prose, then the name's markup
		if streamed {
			send(1) // one more chunk
			select {
			case <-w.named:
			case <-time.After(30 * time.Second):
				t.Fatal("streamed: the name did not arrive within one chunk of its markup")
			}
			half := 3 + (len(pieces)-4)/2
			send(half - 3)
			got := 0
			for got < (half-3)*200-400 {
				select {
				case a := <-w.args:
					got = sentContent(a)
				case <-time.After(30 * time.Second):
					t.Fatalf("streamed: %d bytes of the file arrived after %d were written", got, (half-3)*200)
				}
			}
			send(len(pieces) - half)
		} else {
			send(len(pieces) - 3) // all but the closers
			// The proxy passes a comment on in order: once the client has
			// it, it has all the proxy made of the pieces before it.
			up.sync <- struct{}{}
			select {
			case <-w.synced:
			case <-time.After(30 * time.Second):
				t.Fatal("not streamed: the sync comment did not arrive")
			}
			select {
			case <-w.named:
				t.Fatal("not streamed: the name arrived before the call was complete")
			default:
			}
			send(1)
		}
		out := <-w.done
		got := chattest.AccumulateOpenAI(t, out)
		require.Len(t, got.Calls, 1)
		var a struct{ Path, Content string }
		require.NoError(t, json.Unmarshal([]byte(got.Calls[0].Args), &a))
		require.Equal(t, "src/big.txt", a.Path)
		require.Equal(t, file, a.Content)
		require.Equal(t, "tool_calls", got.Finish)
		ps.Close()
		us.Close()
	}
}

// TestStreamedCallLoopError: a loop found after one of its calls started to
// stream ends the answer with an error event in the API's shape (failure
// streamed_call), without a finish reason: no client runs the call.
func TestStreamedCallLoopError(t *testing.T) {
	chattest.NoLeaks(t)
	content := "<tool_call>\n<function=write_file>\n<parameter=path>\na.txt\n</parameter>\n<parameter=content>\nabc\n</parameter>\n" +
		strings.Repeat("<tool_call>\n<function=write_file>\n", 6)
	us := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(chattest.OpenAIStream([]string{content[:90], content[90:]}))
	}))
	defer us.Close()
	u, _ := url.Parse(us.URL)
	p := NewProxy(u, toolsieve.Options{})
	p.Logger = slog.New(slog.DiscardHandler)
	ps := httptest.NewServer(p)
	defer ps.Close()
	resp, err := http.Post(ps.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true}`))
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Contains(t, string(b), `"name":"write_file"`, "the call started to stream")
	require.NotContains(t, string(b), `"finish_reason":"`)
	require.Contains(t, string(b), `"code":"streamed_call"}}`)
}
