package sievehttp

import (
	"encoding/json"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/sse"
)

// allAPIs are the three chat APIs.
var allAPIs = []chat.API{chat.APIOpenAI, chat.APIAnthropic, chat.APIResponses}

// apiUpstream is a scripted upstream for the three APIs: answer(i, body)
// gives the content of the answer to request i (0-based), streamed or not
// as the request asks, in the API of the path.
type apiUpstream struct {
	srv    *httptest.Server
	answer func(i int, body string) string
	// tokens, when set, gives answer i's usage (input, output tokens);
	// OpenAI streams then carry their usage chunk only when the request
	// asks for it (stream_options.include_usage), as OpenAI's do.
	tokens func(i int) (in, out int)
	mu     sync.Mutex
	bodies []string
}

func newAPIUpstream(t *testing.T, answer func(i int, body string) string) *apiUpstream {
	u := &apiUpstream{answer: answer}
	u.srv = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.srv.Close)
	return u
}

// scriptOf answers request i with script[i] (the last one repeats).
func scriptOf(script ...string) func(int, string) string {
	return func(i int, _ string) string { return script[min(i, len(script)-1)] }
}

func (u *apiUpstream) requests() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.bodies)
}

func (u *apiUpstream) body(i int) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.bodies[i]
}

func (u *apiUpstream) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	i := len(u.bodies)
	u.bodies = append(u.bodies, string(body))
	u.mu.Unlock()
	content := u.answer(i, string(body))
	var req struct {
		Stream        bool `json:"stream"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	json.Unmarshal(body, &req)
	api, _ := chat.APIForPath(r.URL.Path)
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		var doc []byte
		switch api {
		case chat.APIAnthropic:
			doc = chattest.AnthropicDoc(content)
		case chat.APIResponses:
			doc = chattest.ResponsesDoc(content)
		default:
			doc = chattest.OpenAIDoc(content)
		}
		w.Write(u.usage(i, doc, true))
		return
	}
	pieces := chattest.SplitContent(rand.New(rand.NewPCG(uint64(i), 5)), content, 8, false)
	var stream []byte
	switch api {
	case chat.APIAnthropic:
		stream = chattest.AnthropicStream(pieces)
	case chat.APIResponses:
		stream = chattest.ResponsesStream(pieces)
	default:
		stream = chattest.OpenAIStream(pieces)
	}
	stream = u.usage(i, stream, req.StreamOptions.IncludeUsage)
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	var d sse.Decoder
	evs, _ := d.Feed(stream)
	for _, ev := range evs {
		if _, err := w.Write(ev.Raw); err != nil || rc.Flush() != nil {
			return
		}
	}
}

// usage sets answer i's token counts in b (chattest's answers report 5
// input and 7 output tokens), and drops an OpenAI stream's usage chunk
// unless keep.
func (u *apiUpstream) usage(i int, b []byte, keep bool) []byte {
	if u.tokens == nil {
		return b
	}
	in, out := u.tokens(i)
	s := strings.NewReplacer(`"prompt_tokens":5`, `"prompt_tokens":`+strconv.Itoa(in), `"input_tokens":5`, `"input_tokens":`+strconv.Itoa(in),
		`"completion_tokens":7`, `"completion_tokens":`+strconv.Itoa(out), `"output_tokens":7`, `"output_tokens":`+strconv.Itoa(out),
		`"total_tokens":12`, `"total_tokens":`+strconv.Itoa(in+out)).Replace(string(b))
	if !keep {
		if i := strings.Index(s, `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage"`); i >= 0 {
			j := strings.Index(s[i:], "\n\n")
			s = s[:i] + s[i+j+2:]
		}
	}
	return []byte(s)
}

// apiEnv is an apiUpstream behind a proxy with a policy.
type apiEnv struct {
	up      *apiUpstream
	proxy   *httptest.Server
	metrics *Metrics
	logs    *chattest.SyncBuffer
	client  *http.Client
}

func newAPIEnv(t *testing.T, pol *Policy, answer func(int, string) string) *apiEnv {
	up := newAPIUpstream(t, answer)
	u, _ := url.Parse(up.srv.URL)
	p := NewProxy(u, toolsieve.Options{IDPrefix: "t_"})
	p.Policy = pol
	p.Metrics = NewMetrics()
	logs := &chattest.SyncBuffer{}
	p.Logger = slog.New(slog.NewTextHandler(logs, nil))
	ps := httptest.NewServer(p)
	t.Cleanup(ps.Close)
	return &apiEnv{up: up, proxy: ps, metrics: p.Metrics, logs: logs, client: chattest.LoopbackClient(t, nil)}
}

// apiRequest is the path and body of a request for api whose user message
// is content, with extra top-level members (`"k":v,...`, may be empty).
func apiRequest(api chat.API, stream bool, content, extra string) (path, body string) {
	s := "false"
	if stream {
		s = "true"
	}
	if extra != "" {
		extra = "," + extra
	}
	msg := `[{"role":"user","content":` + string(jsonspan.AppendQuoted(nil, content)) + `}]`
	switch api {
	case chat.APIAnthropic:
		return "/v1/messages", `{"model":"test-model","max_tokens":1000,"stream":` + s + `,"messages":` + msg + extra + `}`
	case chat.APIResponses:
		return "/v1/responses", `{"model":"test-model","max_output_tokens":1000,"stream":` + s + `,"input":` + msg + extra + `}`
	}
	return "/v1/chat/completions", `{"model":"test-model","max_tokens":1000,"stream":` + s + `,"messages":` + msg + extra + `}`
}

// post sends body to path and puts the answer together.
func (e *apiEnv) post(t *testing.T, api chat.API, stream bool, path, body string, hdr ...string) polAnswer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.proxy.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := e.client.Do(req)
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	return polAnswer{resp: resp, body: string(b), got: accumulate(t, api, stream, b)}
}

// accumulate puts an answer of api together.
func accumulate(t *testing.T, api chat.API, stream bool, b []byte) chattest.Response {
	switch {
	case !stream:
		return chattest.AccumulateDoc(t, api, b)
	case api == chat.APIAnthropic:
		return chattest.AccumulateAnthropic(t, b)
	case api == chat.APIResponses:
		return chattest.AccumulateResponses(t, b)
	}
	return chattest.AccumulateOpenAI(t, b)
}

// choiceMember is the tool_choice member of api for a mode: "none",
// "required" or a tool name.
func choiceMember(api chat.API, mode string) string {
	switch {
	case api == chat.APIAnthropic && mode == "required":
		return `"tool_choice":{"type":"any"}`
	case api == chat.APIAnthropic && mode == "none":
		return `"tool_choice":{"type":"none"}`
	case api == chat.APIAnthropic:
		return `"tool_choice":{"type":"tool","name":"` + mode + `"}`
	case mode == "required" || mode == "none":
		return `"tool_choice":"` + mode + `"`
	case api == chat.APIResponses:
		return `"tool_choice":{"type":"function","name":"` + mode + `"}`
	}
	return `"tool_choice":{"type":"function","function":{"name":"` + mode + `"}}`
}

// noParallelMember turns parallel calls off in api's shape.
func noParallelMember(api chat.API) string {
	if api == chat.APIAnthropic {
		return `"tool_choice":{"type":"auto","disable_parallel_tool_use":true}`
	}
	return `"parallel_tool_calls":false`
}

// toolsMember declares tools named names, without parameters, in api's
// shape.
func toolsMember(api chat.API, names ...string) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		switch api {
		case chat.APIAnthropic:
			b.WriteString(`{"name":"` + n + `","input_schema":{"type":"object"}}`)
		case chat.APIResponses:
			b.WriteString(`{"type":"function","name":"` + n + `","parameters":{"type":"object"}}`)
		default:
			b.WriteString(`{"type":"function","function":{"name":"` + n + `","parameters":{"type":"object"}}}`)
		}
	}
	return `"tools":[` + b.String() + `]`
}

func modeName(api chat.API, stream bool) string {
	if stream {
		return api.String() + " stream"
	}
	return api.String() + " whole"
}
