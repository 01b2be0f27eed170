package chattest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/toolsieve/toolsieve/sse"
)

// Generated streams for benchmarks: prose with calls now and then.

// proseWords is the vocabulary of the generated prose.
var proseWords = strings.Fields("the model writes a tool call when it needs data from outside and " +
	"plain text otherwise so most of a stream is prose like this with now and then a call " +
	"杭州 über naïve — “quoted” words and numbers 42 3.14")

// Deltas makes a model's content as deltas of about one token each:
// prose with a newline every dozen words and, with calls, a hermes call
// (split into token-sized deltas too) every callEvery deltas.
func Deltas(seed uint64, n, callEvery int) []string {
	rng := rand.New(rand.NewPCG(seed, 1))
	var out []string
	for i := 0; len(out) < n; i++ {
		w := proseWords[rng.IntN(len(proseWords))]
		if i%12 == 11 {
			w += ".\n"
		} else {
			w += " "
		}
		out = append(out, w)
		if callEvery > 0 && i%callEvery == callEvery-1 {
			call := "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"q\": \"item " + strconv.Itoa(i) + "\", \"n\": 5}}\n</tool_call>\n"
			for len(call) > 0 {
				k := min(1+rng.IntN(6), len(call))
				out = append(out, call[:k])
				call = call[k:]
			}
		}
	}
	return out
}

// SeqChunk is one OpenAI chunk of a SeqOpenAIStream.
func SeqChunk(seq int, content string) []byte {
	c, _ := json.Marshal(content)
	return []byte(`{"id":"chatcmpl-b","object":"chat.completion.chunk","created":1,"model":"m","seq":` + strconv.Itoa(seq) +
		`,"choices":[{"index":0,"delta":{"content":` + string(c) + `},"logprobs":null,"finish_reason":null}]}`)
}

// SeqOpenAIStream makes an OpenAI stream of the deltas whose chunks carry a
// sequence number (an unknown field, which a rewriter must keep).
func SeqOpenAIStream(deltas []string) []byte {
	var b []byte
	for i, d := range deltas {
		b = sse.AppendEvent(b, "", SeqChunk(i, d))
	}
	b = sse.AppendEvent(b, "", []byte(`{"id":"chatcmpl-b","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`))
	return append(b, "data: [DONE]\n\n"...)
}

// TextAnthropicStream makes an Anthropic stream with one text block of the
// deltas.
func TextAnthropicStream(deltas []string) []byte {
	b := sse.AppendEvent(nil, "message_start", []byte(`{"type":"message_start","message":{"id":"msg_b","type":"message","role":"assistant","content":[],"model":"m","usage":{"input_tokens":1,"output_tokens":1}}}`))
	b = sse.AppendEvent(b, "content_block_start", []byte(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`))
	for _, d := range deltas {
		c, _ := json.Marshal(d)
		b = sse.AppendEvent(b, "content_block_delta", []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+string(c)+`}}`))
	}
	b = sse.AppendEvent(b, "content_block_stop", []byte(`{"type":"content_block_stop","index":0}`))
	b = sse.AppendEvent(b, "message_delta", []byte(`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}`))
	return sse.AppendEvent(b, "message_stop", []byte(`{"type":"message_stop"}`))
}

// WriteFilePieces is an answer that writes a 40 KB file with a
// Qwen3-Coder call, in the pieces an upstream sends: the prose, the call's
// opening with its name, its first argument, then the file 200 bytes at a
// time, then the closers.
func WriteFilePieces() (pieces []string, file string) {
	var b strings.Builder // numbered lines: a file of one line repeated is a loop
	for i := 0; b.Len() < 40<<10; i++ {
		fmt.Fprintf(&b, "The quick brown fox jumps over the lazy dog, \"again\" (%d).\n", i)
	}
	file = b.String()[:40<<10]
	pieces = []string{"I'll write the file.\n", "<tool_call>\n<function=write_file>\n",
		"<parameter=path>\nsrc/big.txt\n</parameter>\n<parameter=content>\n"}
	for i := 0; i < len(file); i += 200 {
		pieces = append(pieces, file[i:min(i+200, len(file))])
	}
	pieces = append(pieces, "\n</parameter>\n</function>\n</tool_call>")
	return pieces, file
}
