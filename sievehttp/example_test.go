package sievehttp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/sievehttp"
)

// answer is a whole (not streamed) chat completion whose content holds a
// Hermes-style call as text, as a model served without a tool parser
// returns it.
const answer = `{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,` +
	`"message":{"role":"assistant","content":"Let me look.\n<tool_call>\n{\"name\": \"ls\", \"arguments\": {\"dir\": \"src\"}}\n</tool_call>"},` +
	`"finish_reason":"stop"}]}`

// request is the chat request the client sends.
const request = `{"model":"m","messages":[{"role":"user","content":"What is in src?"}],` +
	`"tools":[{"type":"function","function":{"name":"ls","parameters":{"type":"object","properties":{"dir":{"type":"string"}}}}}]}`

// upstream answers every request with answer, as the provider would.
func upstream(*http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"application/json"}},
		Body:       io.NopCloser(strings.NewReader(answer)),
	}, nil
}

// roundTripFunc adapts a function to http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// show prints the message of a chat completion: its text, its native tool
// calls and why it finished.
func show(body io.Reader) {
	var c struct {
		Choices []struct {
			Message struct {
				Content   string
				ToolCalls []struct {
					Type     string
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			}
			FinishReason string `json:"finish_reason"`
		}
	}
	if err := json.NewDecoder(body).Decode(&c); err != nil || len(c.Choices) == 0 {
		fmt.Println("bad answer:", err)
		return
	}
	m := c.Choices[0].Message
	fmt.Printf("content %q\n", m.Content)
	for _, tc := range m.ToolCalls {
		fmt.Printf("%s %s %s\n", tc.Type, tc.Function.Name, tc.Function.Arguments)
	}
	fmt.Println("finish", c.Choices[0].FinishReason)
}

// A Transport in an http.Client: the call the model wrote as text comes
// back as a native tool call. Base stands for the provider here.
func ExampleTransport() {
	client := &http.Client{Transport: &sievehttp.Transport{Base: roundTripFunc(upstream)}}
	resp, err := client.Post("https://api.example.com/v1/chat/completions", "application/json", strings.NewReader(request))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	show(resp.Body)
	// Output:
	// content "Let me look.\n"
	// function ls {"dir":"src"}
	// finish tool_calls
}

// Middleware has the shape of openai-go's and anthropic-sdk-go's
// option.Middleware; here it is called as an SDK calls it, with the SDK's
// next step standing for the provider.
func ExampleMiddleware() {
	mw := sievehttp.Middleware(toolsieve.Options{})
	req, _ := http.NewRequest(http.MethodPost, "https://api.example.com/v1/chat/completions", strings.NewReader(request))
	req.Header.Set("Content-Type", "application/json")
	resp, err := mw(req, upstream)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	show(resp.Body)
	// Output:
	// content "Let me look.\n"
	// function ls {"dir":"src"}
	// finish tool_calls
}

// NewProxy serves an OpenAI- or Anthropic-compatible API in front of
// another: clients point their base URL at the proxy. Here both servers
// are local test servers.
func ExampleNewProxy() {
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, answer)
	}))
	defer provider.Close()
	u, _ := url.Parse(provider.URL)
	p := sievehttp.NewProxy(u, toolsieve.Options{})
	p.Logger = slog.New(slog.DiscardHandler) // one line per request otherwise
	proxy := httptest.NewServer(p)
	defer proxy.Close()

	resp, err := http.Post(proxy.URL+"/v1/chat/completions", "application/json", strings.NewReader(request))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	show(resp.Body)
	// Output:
	// content "Let me look.\n"
	// function ls {"dir":"src"}
	// finish tool_calls
}
