package chat_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// TestRewriteCutInsideValue: an answer that ends inside a call's value.
// The parser keeps such a call as text with an error of reason cut_at_eof
// whoever ended the answer (a write with half its content must not run).
// When the token limit or a filter cut the answer, the call is a cut call:
// counted as truncated, reported by one error of reason truncated (not the
// parser's), the upstream's ending kept, and a call that had started to
// stream ends the stream with ErrStreamedCut. When the model ended its
// answer there itself, the parser's error is passed on and nothing is
// truncated.
func TestRewriteCutInsideValue(t *testing.T) {
	content := "Cleaning up now.\n<tool_call>\n<function=delete_path>\n<parameter=path>\n/home/user/tmp\n</parameter>\n<parameter=mode>\nrecurs"
	for _, api := range streamAPIs {
		for _, reason := range []string{"limit", "filter", "natural"} {
			for _, streamed := range []bool{false, true} {
				pieces := chattest.SplitContent(rand.New(rand.NewPCG(3, 5)), content, 8, false)
				in := limitStream(api, upstreamOf(api, pieces), reason)
				for _, chunk := range []int{0, 3} {
					msg := fmt.Sprintf("%s, %s, streamed %v, chunk %d", api, reason, streamed, chunk)
					out, err, notes, st := cutRun(in, api, chunk, streamed)
					got := accumulateCut(t, api, out)
					require.Zero(t, st.Calls, msg)
					if reason == "natural" {
						require.Zero(t, st.Truncated, msg)
						require.False(t, hasTruncatedNote(notes, "delete_path"), msg)
						if streamed {
							require.ErrorIs(t, err, chat.ErrStreamedUnread, msg) // it started: fail closed
						} else {
							require.True(t, hasNote(notes, toolsieve.ReasonCutAtEOF, "delete_path"), msg)
							require.NoError(t, err, msg)
							require.Equal(t, content, got.Text, msg)
							require.Empty(t, got.Calls, msg)
						}
						continue
					}
					require.Equal(t, 1, st.Truncated, msg)
					require.True(t, hasTruncatedNote(notes, "delete_path"), msg)
					require.False(t, hasNote(notes, toolsieve.ReasonCutAtEOF, "delete_path"), msg)
					require.Zero(t, st.Unrecovered, msg)
					if streamed {
						require.ErrorIs(t, err, chat.ErrStreamedCut, msg)
						continue
					}
					require.NoError(t, err, msg)
					require.Empty(t, got.Calls, msg)
					require.Equal(t, content, got.Text, msg)
					require.Equal(t, limitFinish(api, reason), got.Finish, msg)
				}
			}
		}
		// Whole responses.
		for _, reason := range []string{"limit", "filter", "natural"} {
			doc := limitDoc(api, content, reason)
			out, st := chattest.RewriteAll(t, doc, api, toolsieve.Options{}, 0)
			got := chattest.AccumulateDoc(t, api, out)
			msg := fmt.Sprintf("%s doc, %s", api, reason)
			require.Empty(t, got.Calls, msg)
			require.Equal(t, content, got.Text, msg)
			if reason == "natural" {
				require.Zero(t, st.Truncated, msg)
				require.Equal(t, 1, st.Unrecovered, msg)
				continue
			}
			require.Equal(t, 1, st.Truncated, msg)
			require.Zero(t, st.Unrecovered, msg)
			require.Equal(t, limitFinish(api, reason), got.Finish, msg)
		}
	}
}

func hasNote(notes []*toolsieve.Event, reason toolsieve.Reason, name string) bool {
	for _, e := range notes {
		if e.Type == toolsieve.Error && e.Reason == reason && e.Name == name {
			return true
		}
	}
	return false
}
