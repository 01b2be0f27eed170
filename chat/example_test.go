package chat_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
)

// A streamed OpenAI response whose model wrote its call as Qwen3-Coder
// markup comes back with the call as a native tool call.
func ExampleNewRewriter() {
	chunk := func(delta, finish string) string {
		return `data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":` + delta +
			`,"finish_reason":` + finish + "}]}\n\n"
	}
	body := chunk(`{"role":"assistant","content":"Listing.\n<tool_call>\n<function=ls>\n"}`, "null") +
		chunk(`{"content":"<parameter=path>\nsrc\n</parameter>\n</function>\n</tool_call>"}`, "null") +
		chunk(`{}`, `"stop"`) + "data: [DONE]\n\n"
	r := chat.NewRewriter(io.NopCloser(strings.NewReader(body)), chat.APIOpenAI, toolsieve.Options{IDPrefix: "call_"})
	out, _ := io.ReadAll(r)
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "data: ") {
			fmt.Println(line)
		}
	}
	// Output:
	// data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Listing.\n"},"finish_reason":null}]}
	// data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_0","type":"function","function":{"name":"ls","arguments":"{\"path\":\"src\"}"}}]},"logprobs":null,"finish_reason":null}]}
	// data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}
	// data: [DONE]
}
