package chat_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// collect runs Events and returns the cloned events.
func collect(t *testing.T, r io.Reader) ([]toolsieve.Event, error) {
	var out []toolsieve.Event
	for e, err := range chat.Events(r, toolsieve.Options{IDPrefix: "id"}) {
		if err != nil {
			return out, err
		}
		out = append(out, e.Clone())
	}
	return out, nil
}

func TestEventsOverSSE(t *testing.T) {
	for _, name := range []string{"openai_chat.sse", "anthropic_messages.sse"} {
		in, err := os.ReadFile(filepath.Join("..", "testdata", "sse", name))
		require.NoError(t, err)
		evs, err := collect(t, iotest.OneByteReader(bytes.NewReader(in)))
		require.NoError(t, err)
		var calls []string
		for _, e := range evs {
			if e.Type == toolsieve.ToolCall {
				calls = append(calls, e.Name+string(e.Arguments))
			}
		}
		require.Equal(t, []string{`get_weather{"city":"Paris"}`}, calls, name)
	}
}

func TestEventsOverText(t *testing.T) {
	in := "Sure.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>"
	evs, err := collect(t, iotest.HalfReader(strings.NewReader(in)))
	require.NoError(t, err)
	var text string
	n := 0
	for _, e := range evs {
		if e.Type == toolsieve.Text {
			text += string(e.Text)
		}
		if e.Type == toolsieve.ToolCall {
			n++
		}
	}
	require.Equal(t, "Sure.\n", text)
	require.Equal(t, 1, n)
}

func TestEventsSideChannels(t *testing.T) {
	in := chattest.OpenAIStream([]string{"Hi"})
	in = append([]byte(`data: {"id":"x","choices":[{"index":0,"delta":{"reasoning_content":"hmm"}}]}`+"\n\n"+"data: {oops\n\n"), in...)
	evs, err := collect(t, bytes.NewReader(in))
	require.NoError(t, err)
	require.Equal(t, toolsieve.Reasoning, evs[0].Type)
	require.Equal(t, "hmm", string(evs[0].Text))
	require.Equal(t, toolsieve.Error, evs[1].Type)
	require.Equal(t, int64(len(`data: {"id":"x","choices":[{"index":0,"delta":{"reasoning_content":"hmm"}}]}`+"\n\n")), evs[1].Offset)
}

func TestEventsReadError(t *testing.T) {
	boom := errors.New("boom")
	_, err := collect(t, io.MultiReader(strings.NewReader("data: {}\n\n"), iotest.ErrReader(boom)))
	require.ErrorIs(t, err, boom)
}

func TestContentReaderFrames(t *testing.T) {
	for _, tc := range []struct {
		in     string
		frames int
	}{
		{"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n: ping\n\ndata: [DONE]\n\n", 2},
		{"Hello\n\nworld <tool_call>x</tool_call>", 0},
		{"", 0},
	} {
		cr := chat.NewContentReader(strings.NewReader(tc.in), chat.InputSSE, chat.APIAuto)
		for {
			if _, _, err := cr.Next(); err != nil {
				require.ErrorIs(t, err, io.EOF)
				break
			}
		}
		require.Equal(t, tc.frames, cr.Frames(), "%q", tc.in)
	}
}
