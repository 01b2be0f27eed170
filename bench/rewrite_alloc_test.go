package bench

import (
	"bytes"
	"testing"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// countingBody is an upstream body that counts the bytes read from it.
type countingBody struct {
	r *bytes.Reader
	n int
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func (c *countingBody) Close() error { return nil }

// TestRewriterPlainEventAllocs checks that a warmed-up stream rewriter
// passes plain content events (text without markup) on without allocating:
// the allocations over the middle third of a long stream of each API, per
// event, must round to zero.
func TestRewriterPlainEventAllocs(t *testing.T) {
	deltas := chattest.Deltas(3, 12000, 0)
	for _, tc := range []struct {
		name   string
		stream func([]string) []byte
	}{
		{"openai", chattest.SeqOpenAIStream},
		{"anthropic", chattest.TextAnthropicStream},
		{"responses", chattest.ResponsesStream},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stream := tc.stream(deltas)
			body := &countingBody{r: bytes.NewReader(stream)}
			r := chat.NewRewriter(body, chat.APIAuto, toolsieve.Options{IDPrefix: "id"})
			buf := make([]byte, 4096)
			readTo := func(n int) {
				for body.n < n {
					if _, err := r.Read(buf); err != nil {
						t.Fatal(err)
					}
				}
			}
			third := len(stream) / 3
			readTo(third) // warm up: buffers reach their steady size
			allocs := testing.AllocsPerRun(1, func() { readTo(2 * third) })
			events := bytes.Count(stream[third:2*third], []byte("\n\n"))
			t.Logf("%s: %v allocations over %d plain content events", tc.name, allocs, events)
			if allocs > float64(events)/100 {
				t.Errorf("%s: %v allocations over %d plain content events, want about none", tc.name, allocs, events)
			}
			if st := r.Stats(); st.Calls != 0 || st.Errors != 0 {
				t.Errorf("%s: stats %+v", tc.name, st)
			}
		})
	}
}
