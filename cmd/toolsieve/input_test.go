package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

func testdataSSE(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sse", name))
	require.NoError(t, err)
	return string(b)
}

// idCall is a call with its id, as parse printed it.
type idCall struct {
	ID, Name, Args string
}

func idCalls(t *testing.T, evs []outEvent) []idCall {
	t.Helper()
	var out []idCall
	for _, c := range evs {
		if c.Type == "tool_call" {
			out = append(out, idCall{c.ID, c.Name, string(c.Arguments)})
		}
	}
	return out
}

func TestParseDetectsInput(t *testing.T) {
	openai := testdataSSE(t, "openai_chat.sse")
	anthropic := testdataSSE(t, "anthropic_messages.sse")
	const crlfHeaders = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nCache-Control: no-cache\r\n\r\n"
	const lfHeaders = "HTTP/1.1 100 Continue\n\nHTTP/2 200\nserver: upstream\n\n"
	paris := []idCall{{"call_0", "get_weather", `{"city":"Paris"}`}}
	const openaiContent = "Let me check the weather.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"
	const anthropicContent = "I'll look that up.\n<function_calls>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n</invoke>\n</function_calls>"

	response := `{"id":"c1","object":"chat.completion","model":"deepseek-chat","choices":[{"index":0,"message":{"role":"assistant",` +
		`"reasoning_content":"The user wants the time.","content":"Sure.\n<tool_call>get_time</tool_call>"},"finish_reason":"stop"}]}`
	request := `{"model":"qwen3-coder","messages":[{"role":"user","content":"hi"},` +
		`{"role":"assistant","content":"Reading.\n<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"a.go\"}}\n</tool_call>"},` +
		`{"role":"tool","tool_call_id":"x","content":"package a"},` +
		`{"role":"assistant","content":[{"type":"text","text":"<tool_call>get_time</tool_call>"}]}]}`
	plain := "Hi <tool_call>get_time</tool_call>"
	notChat := `{"name": "get_time", "arguments": {}}`

	tests := []struct {
		name      string
		args      []string
		input     string
		note      string // the detection line; "" for none
		warning   string
		content   string // text+raw of the events (+ reasoning text)
		reasoning string
		calls     []idCall
		read      string // the summary's "(N bytes of content)" part, or ""
	}{
		{name: "SSE", input: openai, note: "detected an SSE stream; --input chooses",
			content: openaiContent, calls: paris, read: " (106 bytes of content)"},
		{name: "SSE after headers (CRLF, Content-Type)", input: crlfHeaders + anthropic,
			note:    fmt.Sprintf("detected an SSE stream after %d bytes of HTTP response headers (from their Content-Type); --input chooses", len(crlfHeaders)),
			content: anthropicContent, calls: paris, read: " (132 bytes of content)"},
		{name: "SSE after two header blocks (LF, no Content-Type)", input: lfHeaders + openai,
			note:    fmt.Sprintf("detected an SSE stream after %d bytes of HTTP response headers; --input chooses", len(lfHeaders)),
			content: openaiContent, calls: paris, read: " (106 bytes of content)"},
		{name: "JSON response", input: response,
			note:    "detected a JSON chat response (openai, model deepseek-chat); --input chooses",
			content: "Sure.\n<tool_call>get_time</tool_call>", reasoning: "The user wants the time.",
			calls: []idCall{{"call_0", "get_time", `{}`}}, read: " (37 bytes of content)"},
		{name: "JSON Anthropic response", input: string(chattest.AnthropicDoc(anthropicContent)),
			note:    "detected a JSON chat response (anthropic, model m); --input chooses",
			content: anthropicContent, calls: paris, read: " (132 bytes of content)"},
		{name: "JSON request", input: request,
			note:    "detected a JSON chat request (2 assistant messages with text, model qwen3-coder); --input chooses",
			content: "Reading.\n<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"a.go\"}}\n</tool_call><tool_call>get_time</tool_call>",
			calls:   []idCall{{"call_m1_0", "read", `{"path":"a.go"}`}, {"call_m3_0", "get_time", `{}`}}, read: " (112 bytes of content)"},
		{name: "JSON after headers", input: "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n" + response,
			note:    "detected a JSON chat response (openai, model deepseek-chat) after 51 bytes of HTTP response headers (from their Content-Type); --input chooses",
			content: "Sure.\n<tool_call>get_time</tool_call>", reasoning: "The user wants the time.",
			calls: []idCall{{"call_0", "get_time", `{}`}}, read: " (37 bytes of content)"},
		{name: "text", input: plain, note: "detected plain text; --input chooses",
			content: plain, calls: []idCall{{"call_0", "get_time", `{}`}}},
		{name: "JSON that is no chat body", input: notChat,
			note:    "detected JSON that is not a chat response or request: read as text; --input chooses",
			content: notChat},
		{name: "--input text reads SSE as text", args: []string{"--input", "text"}, input: openai, content: openai},
		{name: "--input sse", args: []string{"--input", "sse"}, input: crlfHeaders + openai,
			content: openaiContent, calls: paris, read: " (106 bytes of content)"},
		{name: "--input sse on text", args: []string{"--input", "sse"}, input: plain,
			warning: "no SSE events with data in the input (is it an event stream? try --input auto)", read: " (0 bytes of content)"},
		{name: "--input json on text", args: []string{"--input", "json"}, input: notChat,
			warning: "--input json: not a JSON chat response or request: no content", read: " (0 bytes of content)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, chunk := range []string{"0", "1"} {
				args := append([]string{"parse", "--chunk", chunk}, tt.args...)
				code, stdout, stderr := runCmd(t, chattest.NewChunkReader([]byte(tt.input), 5), args...)
				require.Equal(t, exitOK, code, stderr)
				evs := decodeLines(t, stdout)
				var reasoning string
				var content []outEvent
				for _, e := range evs {
					if e.Type == "reasoning" && e.Raw != nil && *e.Raw == "" {
						reasoning += *e.Text
						continue
					}
					content = append(content, e)
				}
				assert.Equal(t, tt.content, accounted(content))
				assert.Equal(t, tt.reasoning, reasoning)
				assert.Equal(t, tt.calls, idCalls(t, evs))

				var want []string
				if tt.note != "" {
					want = append(want, "toolsieve parse: "+tt.note)
				}
				if tt.warning != "" {
					want = append(want, "toolsieve parse: warning: "+tt.warning)
				}
				want = append(want, fmt.Sprintf("toolsieve parse: %s, 0 repairs, 0 runaways; %d bytes read%s",
					plural(len(tt.calls), "call"), len(tt.input), tt.read))
				assert.Equal(t, strings.Join(want, "\n")+"\n", stderr)

				// --quiet keeps the warnings only.
				code, _, stderr = runCmd(t, strings.NewReader(tt.input), append(args, "--quiet")...)
				require.Equal(t, exitOK, code)
				if tt.warning == "" {
					assert.Empty(t, stderr)
				} else {
					assert.Equal(t, "toolsieve parse: warning: "+tt.warning+"\n", stderr)
				}
			}
		})
	}
}

func TestParseSummary(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{name: "repairs", input: "<function_calls>\n<invoke name=\"update_todo_list\">{\n  \"todos\": \"[-] Gather model information...invfunction_calls>",
			want: "1 call, 3 repairs (corrupted_closer=1, missing_closer=1, truncated_json=1), 0 runaways; 112 bytes read"},
		{name: "two calls, one repaired", input: "<tool_call>a</tool_call>\n<tool_call>\n{\"name\": \"b\", \"arguments\": {\"x\": 1}",
			want: "2 calls, 3 repairs (closed_at_eof=1, missing_closer=1, truncated_json=1), 0 runaways; 72 bytes read"},
		{name: "nothing", input: "", want: "0 calls, 0 repairs, 0 runaways; 0 bytes read"},
		{name: "runaway", input: "x" + strings.Repeat("<｜DSML｜invoke name=\"read_file\">\n", 30),
			want: "runaway"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCmd(t, strings.NewReader(tt.input), "parse", "--input", "text")
			require.Equal(t, exitOK, code)
			if tt.want == "runaway" {
				assert.Regexp(t, `^toolsieve parse: \d+ calls?, \d+ repairs?.*, 1 runaway; 1081 bytes read\n$`, stderr)
				return
			}
			assert.Equal(t, "toolsieve parse: "+tt.want+"\n", stderr)
		})
	}
}

func TestTallyString(t *testing.T) {
	var tl tally
	assert.Equal(t, "0 calls, 0 repairs, 0 runaways", tl.String("call"))
	tl = tally{calls: 1, native: 2, repairs: map[string]int{"truncated_json": 2, "closed_at_eof": 1}, runaways: 1, errors: 3}
	assert.Equal(t, "1 call made native, 3 repairs (closed_at_eof=1, truncated_json=2), 1 runaway, native call arguments converted from markup: 2, 3 errors",
		tl.String("call made native"))
}

func TestSkipHTTPHeaders(t *testing.T) {
	tests := []struct {
		name, in  string
		ctype     string
		remaining string
	}{
		{name: "none", in: "data: x\n\n", remaining: "data: x\n\n"},
		{name: "crlf", in: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{}", ctype: "application/json", remaining: "{}"},
		{name: "two blocks", in: "HTTP/1.1 200 Connection established\r\n\r\nHTTP/2 200\r\ncontent-type: text/event-stream\r\n\r\ndata: 1", ctype: "text/event-stream", remaining: "data: 1"},
		{name: "unterminated", in: "HTTP/1.1 200 OK\r\nServer: x", remaining: "HTTP/1.1 200 OK\r\nServer: x"},
		{name: "short", in: "HTT", remaining: "HTT"},
		{name: "text that starts with HTTP", in: "HTTP is a protocol.", remaining: "HTTP is a protocol."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHead(chattest.NewChunkReader([]byte(tt.in), 3))
			hh := skipHTTPHeaders(h)
			assert.Equal(t, len(tt.in)-len(tt.remaining), hh.n)
			assert.Equal(t, tt.ctype, hh.contentType)
			rest, err := readAllString(h)
			require.NoError(t, err)
			assert.Equal(t, tt.remaining, rest)
		})
	}
}

func readAllString(h *head) (string, error) {
	var b strings.Builder
	buf := make([]byte, 7)
	r := h.rest()
	for {
		n, err := r.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			if err == io.EOF {
				return b.String(), nil
			}
			return b.String(), err
		}
	}
}

func TestParseJSONTooLargeOrUnreadable(t *testing.T) {
	code, stdout, stderr := runCmd(t, &errAfter{data: `{"choices":[`}, "parse")
	assert.Equal(t, exitIO, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "connection reset")
	// A read error in a stream comes after what was read before it.
	code, stdout, stderr = runCmd(t, &errAfter{data: "HTTP/1.1 200 OK\r\n\r\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n"}, "parse")
	assert.Equal(t, exitIO, code)
	assert.Contains(t, stdout, `"text":"Hi"`)
	assert.Contains(t, stderr, "connection reset")
}

// repeatReader yields n bytes: "{" then 'x's.
type repeatReader struct{ n, off int }

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.off >= r.n {
		return 0, io.EOF
	}
	k := min(len(p), r.n-r.off)
	for i := range p[:k] {
		p[i] = 'x'
	}
	if r.off == 0 && k > 0 {
		p[0] = '{'
	}
	r.off += k
	return k, nil
}

// Input that starts like JSON but is longer than a document may be is read
// as text, as it comes; --input json says it is too large.
func TestOpenInputLongJSONLikeText(t *testing.T) {
	n := maxDocBytes + 100
	pin, err := openInput(kindAuto, &repeatReader{n: n})
	require.NoError(t, err)
	assert.Equal(t, kindText, pin.kind)
	assert.Equal(t, "detected text: it starts like JSON but is over 64 MiB; --input chooses", pin.note)
	total := 0
	for {
		content, _, err := pin.src.Next()
		total += len(content)
		if err != nil {
			require.ErrorIs(t, err, io.EOF)
			break
		}
	}
	assert.Equal(t, n, total, "every byte read once")

	_, err = openInput(kindJSON, &repeatReader{n: n})
	assert.ErrorIs(t, err, errDocTooLarge)
}
