package main

// The proxy demos of `toolsieve demo`: a retry of a runaway answer and a
// cleaned history, each through a real proxy in front of a scripted
// upstream, both served in-process on loopback (httptest).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/sievehttp"
	"github.com/toolsieve/toolsieve/sse"
)

// demoScenario is one proxy demo.
type demoScenario struct {
	name, title string
	run         func(w *bufio.Writer) error
}

var demoScenarios = []demoScenario{
	{"proxy_retry", "the proxy retries a runaway: the upstream loops in DSML first, then answers well", runRetryDemo},
	{"history_clean", "leaked DSML in a transcript's history reaches the upstream as native calls", runHistoryDemo},
	{"stream_rewrite", "an OpenAI stream with DSML in its content, through the rewriter: native tool_calls out", runRewriteDemo},
}

// pickScenarios splits names into scenario names and the rest.
func pickScenarios(names []string) (scen []demoScenario, rest []string) {
	for _, n := range names {
		found := false
		for _, s := range demoScenarios {
			if n == s.name {
				scen = append(scen, s)
				found = true
			}
		}
		if !found {
			rest = append(rest, n)
		}
	}
	return scen, rest
}

func sampleBytes(name string) ([]byte, error) { return samplesFS.ReadFile(path.Join("samples", name)) }

// scriptedUpstream streams, as OpenAI chat completion chunks, the content
// script[i] for its request i (the last one repeats), and keeps the bodies.
type scriptedUpstream struct {
	mu     sync.Mutex
	script [][]byte
	bodies [][]byte
}

func (u *scriptedUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	i := len(u.bodies)
	u.bodies = append(u.bodies, body)
	content := u.script[min(i, len(u.script)-1)]
	u.mu.Unlock()
	var req struct {
		Stream bool `json:"stream"`
	}
	json.Unmarshal(body, &req)
	chunk := func(delta, finish string) []byte {
		f := "null"
		if finish != "" {
			f = strconv.Quote(finish)
		}
		return []byte(`{"id":"chatcmpl-demo","object":"chat.completion.chunk","created":1,"model":"deepseek-chat","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}`)
	}
	q := func(s []byte) string { b, _ := json.Marshal(string(s)); return string(b) }
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"chatcmpl-demo","object":"chat.completion","created":1,"model":"deepseek-chat","choices":[{"index":0,"message":{"role":"assistant","content":`+q(content)+`},"finish_reason":"stop"}]}`)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	write := func(b []byte) bool {
		_, err := w.Write(b)
		return err == nil && rc.Flush() == nil
	}
	if !write(sse.AppendEvent(nil, "", chunk(`{"role":"assistant","content":""}`, ""))) {
		return
	}
	for len(content) > 0 { // a line at a time, as a model would
		n := bytes.IndexByte(content, '\n') + 1
		if n == 0 {
			n = len(content)
		}
		if !write(sse.AppendEvent(nil, "", chunk(`{"content":`+q(content[:n])+`}`, ""))) {
			return // the proxy cut the stream
		}
		content = content[n:]
	}
	write(append(sse.AppendEvent(nil, "", chunk(`{}`, "stop")), "data: [DONE]\n\n"...))
}

// demoPost serves a proxy with the demo policy in front of up, posts a
// chat request body to it and returns the response and its body. Both
// servers are closed (their handlers done, logs written) on return.
func demoPost(up http.Handler, logs io.Writer, body string) (*http.Response, []byte, error) {
	data, err := sampleBytes("policy/demo_policy.json")
	if err != nil {
		return nil, nil, err
	}
	pol, err := sievehttp.ParsePolicy(data)
	if err != nil {
		return nil, nil, err
	}
	upstream := httptest.NewServer(up)
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL)
	p := sievehttp.NewProxy(u, toolsieve.Options{IDPrefix: "demo_"})
	p.Policy = pol
	p.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	proxy := httptest.NewServer(p)
	defer proxy.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Post(proxy.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	tr.CloseIdleConnections()
	proxy.Close() // waits for the handler: its log record is written
	return resp, b, err
}

// demoLogRecord decodes the proxy's "request" log record into v.
func demoLogRecord(logs []byte, v any) {
	for _, line := range bytes.Split(logs, []byte("\n")) {
		var rec struct {
			Msg string `json:"msg"`
		}
		if json.Unmarshal(line, &rec) == nil && rec.Msg == "request" {
			json.Unmarshal(line, v)
		}
	}
}

func runRetryDemo(w *bufio.Writer) error {
	bad, err := sampleBytes("06_runaway_dsml_openers.txt")
	if err != nil {
		return err
	}
	good, err := sampleBytes("01_deepseek_dsml.txt")
	if err != nil {
		return err
	}
	up := &scriptedUpstream{script: [][]byte{bad, good}}
	var logs bytes.Buffer
	resp, stream, err := demoPost(up, &logs, `{"model":"deepseek-chat","stream":true,"messages":[{"role":"user","content":"Hangzhou or Shanghai?"}]}`)
	if err != nil {
		return err
	}
	var rec struct {
		Reasons string `json:"retry_reasons"`
	}
	demoLogRecord(logs.Bytes(), &rec)

	pol, _ := sievehttp.ParsePolicy(mustSample("policy/demo_policy.json"))
	set, _ := pol.Resolve("deepseek-chat", nil)
	fmt.Fprintf(w, labelFmt+"deepseek-chat: %s, retries %d, hold_text %v (decided by %s)\n", "policy",
		set.Mode(), set.Retries, set.HoldText, strings.Join(set.From, ", "))
	fmt.Fprintf(w, labelFmt+"upstream streams sample runaway_dsml_openers: %s\n", "attempt 1", quoteAbbrev(bad))
	fmt.Fprintf(w, contFmt+"cut at the %s; its text was held back (hold_text), so the proxy asks again\n", rec.Reasons)
	fmt.Fprintf(w, labelFmt+"upstream streams sample deepseek_dsml\n", "attempt 2")
	text, calls, finish := demoAccumulate(stream)
	fmt.Fprintf(w, labelFmt+"%d upstream requests; %s: %s\n", "client", len(up.bodies), sievehttp.HeaderRetriesOut, resp.Header.Get(sievehttp.HeaderRetriesOut))
	fmt.Fprintf(w, contFmt+"text %s\n", quoteAbbrev([]byte(text)))
	for _, c := range calls {
		fmt.Fprintf(w, contFmt+"call %s %s (id %s)\n", c[1], argsAbbrev(json.RawMessage(c[2])), c[0])
	}
	fmt.Fprintf(w, contFmt+"finish_reason %s; nothing of the loop reached the client: %v\n", finish, !strings.Contains(string(stream), "DSML"))
	return nil
}

func mustSample(name string) []byte {
	b, _ := sampleBytes(name)
	return b
}

// demoAccumulate puts an OpenAI stream together: text, calls (id, name,
// arguments) and finish reason.
func demoAccumulate(stream []byte) (text string, calls [][3]string, finish string) {
	var d sse.Decoder
	evs, _ := d.Feed(stream)
	for _, ev := range evs {
		var c struct {
			Choices []struct {
				Delta struct {
					Content   string `json:"content"`
					ToolCalls []struct {
						Index    int    `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				Finish *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if !ev.IsMessage() || json.Unmarshal(ev.Data, &c) != nil {
			continue
		}
		for _, ch := range c.Choices {
			text += ch.Delta.Content
			for _, tc := range ch.Delta.ToolCalls {
				for len(calls) <= tc.Index {
					calls = append(calls, [3]string{})
				}
				calls[tc.Index][0] += tc.ID
				calls[tc.Index][1] += tc.Function.Name
				calls[tc.Index][2] += tc.Function.Arguments
			}
			if ch.Finish != nil {
				finish = *ch.Finish
			}
		}
	}
	return text, calls, finish
}

func runHistoryDemo(w *bufio.Writer) error {
	body, err := sampleBytes("policy/history_openai.json")
	if err != nil {
		return err
	}
	up := &scriptedUpstream{script: [][]byte{[]byte("Hangzhou: sunny.")}}
	var logs bytes.Buffer
	if _, _, err := demoPost(up, &logs, string(body)); err != nil {
		return err
	}
	if len(up.bodies) != 1 {
		return fmt.Errorf("the upstream got %d requests", len(up.bodies))
	}
	var before, after struct {
		Messages []demoMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &before); err != nil {
		return err
	}
	if err := json.Unmarshal(up.bodies[0], &after); err != nil {
		return err
	}
	var rec struct {
		Rewritten int `json:"history_rewritten"`
		Calls     int `json:"history_calls"`
	}
	demoLogRecord(logs.Bytes(), &rec)
	fmt.Fprintf(w, labelFmt+"%d messages; the client kept the assistant's DSML as text and answered its calls with tool results %s\n",
		"transcript", len(before.Messages), toolResultIDs(before.Messages))
	for i, m := range before.Messages {
		if m.Role != "assistant" {
			continue
		}
		var s string
		json.Unmarshal(m.Content, &s)
		fmt.Fprintf(w, labelFmt+"message #%d %s\n", "before", i, quoteAbbrev([]byte(s)))
		a := after.Messages[i]
		fmt.Fprintf(w, labelFmt+"message #%d content %s\n", "upstream", i, a.Content)
		for _, c := range a.ToolCalls {
			fmt.Fprintf(w, contFmt+"tool_call %s %s (id %s)\n", c.Function.Name, argsAbbrev(json.RawMessage(c.Function.Arguments)), c.ID)
		}
	}
	same := len(before.Messages) == len(after.Messages)
	for i := range before.Messages {
		if same && before.Messages[i].Role != "assistant" {
			same = bytes.Equal(before.Messages[i].Content, after.Messages[i].Content) && before.Messages[i].ToolCallID == after.Messages[i].ToolCallID
		}
	}
	fmt.Fprintf(w, labelFmt+"%d message rewritten, %d calls made native (logged as counts only); other messages unchanged: %v\n",
		"proxy", rec.Rewritten, rec.Calls, same)
	return nil
}

// demoMessage is the part of an OpenAI message the history demo shows.
type demoMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

func toolResultIDs(ms []demoMessage) string {
	var ids []string
	for _, m := range ms {
		if m.ToolCallID != "" {
			ids = append(ids, m.ToolCallID)
		}
	}
	return strings.Join(ids, ", ")
}
