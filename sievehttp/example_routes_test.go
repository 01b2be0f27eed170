package sievehttp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/sievehttp"
)

// upstream is a stand-in for a model server that writes its tool call as
// Hermes markup in the content, as many local servers do when their
// tool-call parser is off. It answers with a whole (non-streamed) chat
// completion and says who answered in its "model".
func namedUpstream(name string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		content := "Checking.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"
		doc, _ := json.Marshal(map[string]any{
			"id": "c1", "object": "chat.completion", "model": name,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content}}},
		})
		w.Header().Set("Content-Type", "application/json")
		w.Write(doc)
	}))
}

// routedAnswer is the part of a chat completion the examples print.
type routedAnswer struct {
	Model   string
	Choices []struct {
		FinishReason string `json:"finish_reason"`
		Message      struct {
			Content   string
			ToolCalls []struct {
				Function struct{ Name, Arguments string }
			} `json:"tool_calls"`
		}
	}
}

func postModel(c *http.Client, u, model string) routedAnswer {
	resp, err := c.Post(u+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"`+model+`","messages":[{"role":"user","content":"Weather in Paris?"}]}`))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var a routedAnswer
	json.NewDecoder(resp.Body).Decode(&a)
	return a
}

// A Transport in an http.Client: the answers of any OpenAI- or
// Anthropic-compatible API come back with native tool calls.
func ExampleTransport_policy() {
	up := namedUpstream("local")
	defer up.Close()
	client := &http.Client{Transport: &sievehttp.Transport{Options: toolsieve.Options{}}}
	a := postModel(client, up.URL, "qwen3-coder")
	m := a.Choices[0].Message
	fmt.Printf("content %q\n", m.Content)
	fmt.Println("call", m.ToolCalls[0].Function.Name, m.ToolCalls[0].Function.Arguments)
	fmt.Println("finish_reason", a.Choices[0].FinishReason)
	// Output:
	// content "Checking.\n"
	// call get_weather {"city":"Paris"}
	// finish_reason tool_calls
}

// A proxy in front of two upstreams: the policy sends each model to its
// own (a rule's "upstream"), the others to the proxy's Upstream.
func ExampleProxy_routes() {
	vllm, ollama := namedUpstream("vllm"), namedUpstream("ollama")
	defer vllm.Close()
	defer ollama.Close()
	pol, err := sievehttp.ParsePolicy([]byte(`{"rules": [
		{"model": "qwen3-coder*", "name": "vllm", "upstream": {"url": "` + vllm.URL + `"}}]}`))
	if err != nil {
		panic(err)
	}
	def, _ := url.Parse(ollama.URL)
	p := sievehttp.NewProxy(def, toolsieve.Options{})
	p.Policy = pol
	srv := httptest.NewServer(p)
	defer srv.Close()
	for _, model := range []string{"qwen3-coder-30b", "gpt-oss:20b"} {
		a := postModel(srv.Client(), srv.URL, model)
		fmt.Println(model, "answered by", a.Model, "with", len(a.Choices[0].Message.ToolCalls), "native call")
	}
	// Output:
	// qwen3-coder-30b answered by vllm with 1 native call
	// gpt-oss:20b answered by ollama with 1 native call
}

// What a policy decides for a model: its upstream, the layers that set
// something, and its label in the metrics (bounded by the policy: rule
// names and families, never the raw model string).
func ExamplePolicy_Resolve() {
	pol, err := sievehttp.ParsePolicy([]byte(`{"rules": [
		{"model": "claude-*", "name": "claude-on-deepseek",
		 "upstream": {"url": "https://api.deepseek.com/anthropic", "key_env": "DEEPSEEK_API_KEY"}},
		{"model": "gpt-oss*", "reasoning": "keep"}]}`))
	if err != nil {
		panic(err)
	}
	s, _ := pol.Resolve("claude-sonnet-4-5", nil)
	fmt.Println(s.Upstream.Redacted(), s.Upstream.KeySource(), s.From, pol.ModelLabel("claude-sonnet-4-5", nil))
	s, _ = pol.Resolve("gpt-oss:120b", nil)
	fmt.Println("keep reasoning:", s.KeepReasoning, pol.ModelLabel("gpt-oss:120b", nil))
	fmt.Println(pol.ModelLabel("my-own-model", nil))
	// Output:
	// https://api.deepseek.com/anthropic env DEEPSEEK_API_KEY [claude-on-deepseek builtin:deepseek] claude-on-deepseek
	// keep reasoning: true gpt-oss*
	// other
}
