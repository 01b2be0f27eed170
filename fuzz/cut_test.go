package fuzz

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// FuzzRewriteCut cuts a stream of each API at any byte, ending it cleanly
// or with a broken connection, streamed calls on or off: the client never
// gets a call the cut ended (a call that started to stream keeps arguments
// that nothing closed), the text before the cut comes whole, the output
// ends with a whole event, and the rewriter says how the stream ended.
func FuzzRewriteCut(f *testing.F) {
	for _, c := range []string{
		"Now the cleanup.\n<tool_call>\n<function=delete_path>\n<parameter=path>\n/home/user/tmp\n</parameter>\n</function>\n</tool_call>\nDone.",
		"Cleaning up.\n<tool_call>\n{\"name\": \"delete_path\", \"arguments\": {\"path\": \"/home/user/tmp\"}}\n</tool_call>",
		"<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"rm\">\n<｜DSML｜parameter name=\"path\" string=\"true\">/tmp/x</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
		"plain text, no call at all",
	} {
		for _, cut := range []uint32{0, 40, 200, 700, 1500, 4000} {
			f.Add([]byte(c), uint64(cut), cut)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte, seed uint64, cut uint32) {
		if len(in) > 2048 {
			return
		}
		content := strings.ToValidUTF8(string(in), "\uFFFD")
		if chattest.Expected(content, toolsieve.Options{}).Runaway {
			return // a loop ends the stream itself (FuzzRewrite)
		}
		rng := rand.New(rand.NewPCG(seed, seed>>9|1))
		pieces := chattest.SplitContent(rng, content, 12, false)
		opt := toolsieve.Options{IDPrefix: "id", StreamCalls: seed&1 == 1}
		broken := seed&2 == 2
		for _, api := range []chat.API{chat.APIOpenAI, chat.APIAnthropic, chat.APIResponses} {
			var stream []byte
			switch api {
			case chat.APIOpenAI:
				stream = chattest.OpenAIStream(pieces)
			case chat.APIAnthropic:
				stream = chattest.AnthropicStream(pieces)
			default:
				stream = chattest.ResponsesStream(pieces)
			}
			k := int(cut) % (len(stream) + 1)
			want := chattest.ExpectCut(chattest.StreamEvents(t, api, stream), k, opt)
			var end error = io.EOF
			if broken {
				end = io.ErrUnexpectedEOF
			}
			r := chat.NewRewriter(io.NopCloser(&cutReader{b: stream[:k], rng: rng, err: end}), api, opt)
			r.ExpectEvents()
			out, err := io.ReadAll(r)
			msg := fmt.Sprintf("%s, streamed calls %v, broken %v, cut at %d of %d, content %q", api, opt.StreamCalls, broken, k, len(stream), content)
			if errors.Is(err, chat.ErrStreamedCall) {
				continue // a streamed call that lost its arguments (TestStreamedCallCancelled)
			}
			switch {
			case broken && !want.Ended:
				require.ErrorIs(t, err, io.ErrUnexpectedEOF, msg)
			case !want.Ended:
				require.ErrorIs(t, err, chat.ErrTruncated, msg)
			default:
				require.NoError(t, err, msg)
			}
			got := chattest.CheckCut(t, api, out, want, msg)
			require.Empty(t, got.Errors, msg)
		}
	})
}

// cutReader returns b in reads of random sizes, then err.
type cutReader struct {
	b   []byte
	rng *rand.Rand
	err error
}

func (c *cutReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, c.err
	}
	n := min(1+c.rng.IntN(64), len(c.b), len(p))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}
