package chat_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
	"github.com/toolsieve/toolsieve/sse"
)

// TestOpenAISameShape: chunks alike but for their content are rewritten
// without being parsed again; a chunk with the same bytes around something
// other than one valid string is read in full: a number passes through, an
// invalid string is reported as malformed, and the calls and text are the
// parser's reading of the content either way.
func TestOpenAISameShape(t *testing.T) {
	chunk := func(content string) []byte {
		return sse.AppendEvent(nil, "", []byte(chattest.OpenAIChunk(`{"content":`+content+`}`, "")))
	}
	var in []byte
	in = sse.AppendEvent(in, "", []byte(chattest.OpenAIChunk(`{"role":"assistant","content":""}`, "")))
	text := "Reading it.\n<tool_call>\n<function=read_file>\n<parameter=path>\na.go\n</parameter>\n</function>\n</tool_call>\nDone."
	for _, p := range chattest.SplitContent(rand.New(rand.NewPCG(9, 9)), text, 3, false) {
		in = append(in, chunk(chattest.Quote(p))...)
	}
	in = append(in, chunk(`123`)...)       // not a string: passed through as it is
	in = append(in, chunk(`"a\x"`)...)     // not JSON: reported, passed through
	in = append(in, chunk(`"x" , "y"`)...) // two values: not the shape
	in = append(in, chunk(`" tail"`)...)
	in = sse.AppendEvent(in, "", []byte(chattest.OpenAIChunk(`{}`, "stop")))
	in = append(in, "data: [DONE]\n\n"...)

	out, _, errs, err := chattest.RewriteNotes(in, chat.APIOpenAI, toolsieve.Options{}, 0)
	require.NoError(t, err)
	require.Contains(t, string(out), `"content":123`)
	require.Contains(t, string(out), `"content":"a\x"`)
	require.Len(t, errs, 2, "the invalid chunk and the two values: %v", errs)
	var kept []string // the chunks a client can read
	for _, ev := range strings.SplitAfter(string(out), "\n\n") {
		if !strings.Contains(ev, `"content":123`) && !strings.Contains(ev, `"a\x"`) && !strings.Contains(ev, `"x" , "y"`) {
			kept = append(kept, ev)
		}
	}
	got := chattest.AccumulateOpenAI(t, []byte(strings.Join(kept, "")))
	require.Len(t, got.Calls, 1)
	require.JSONEq(t, `{"path":"a.go"}`, got.Calls[0].Args)
	require.True(t, strings.HasSuffix(got.Text, "Done. tail"), got.Text)
}
