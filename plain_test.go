package toolsieve

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlainWordHold feeds prose chunk by chunk with a declared tool, so
// that the opener `functools[` is on, and checks what each Feed reports on
// the short path: text that ends in a prefix of the opener's word (`fu`)
// gives that prefix back only when a later chunk shows what it is, and
// Holding counts it meanwhile. (Chunks start with "OK, ": a lowercase word
// at the start of a line takes the long way, as it may be a word line. A
// first chunk, "Hi. ", takes the long way too: it starts the repetition
// guard.)
func TestPlainWordHold(t *testing.T) {
	tools, err := ParseTools([]byte(weatherTool))
	require.NoError(t, err)
	tests := []struct {
		name    string
		chunks  []string
		want    [][]string // per chunk, then one more entry for Close
		holding []int      // Holding after each chunk
	}{
		{"a prefix given back by the word that goes on", []string{"OK, see fu", "nny"},
			[][]string{{`text "OK, see "`}, {`text "fu"`, `text "nny"`}, {}}, []int{2, 0}},
		{"a word that stays a prefix over chunks", []string{"OK, it f", "unct", "ion."},
			[][]string{{`text "OK, it "`}, {}, {`text "funct"`, `text "ion."`}, {}}, []int{1, 5, 0}},
		{"a prefix given back, another held", []string{"OK, x fu", "n f"},
			[][]string{{`text "OK, x "`}, {`text "fu"`, `text "n "`}, {`text "f"`}}, []int{2, 1}},
		{"the whole opener, then its call", []string{"OK, so f", "unctools", `[{"name": "get_weather", "arguments": {}}]`},
			[][]string{{`text "OK, so "`}, {}, {`call get_weather {}`}, {}}, []int{1, 9, 0}},
		{"a prefix at the end of input", []string{"OK, then fun"},
			[][]string{{`text "OK, then "`}, {`text "fun"`}}, []int{3}},
		{"a word that began before the chunk is no prefix", []string{"OK, if", "un"},
			[][]string{{`text "OK, if"`}, {`text "un"`}, {}}, []int{0, 0}},
		{"a prefix followed by a newline takes the long way", []string{"OK, a fu", "\nb"},
			[][]string{{`text "OK, a "`}, {`text "fu\n"`}, {`text "b"`}}, []int{2, 1}}, // "b" may begin a word line
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := NewParser(Options{Tools: tools})
			require.Equal(t, []string{`text "Hi. "`}, stepEvents(p.Feed([]byte("Hi. "))))
			for i, c := range tc.chunks {
				assert.Equal(t, tc.want[i], stepEvents(p.Feed([]byte(c))), "after chunk %d %q", i, c)
				assert.Equal(t, tc.holding[i], p.Holding(), "holding after chunk %d %q", i, c)
			}
			assert.Equal(t, tc.want[len(tc.chunks)], stepEvents(p.Close()), "at Close")
		})
	}
}

// stepEvents describes events as "text Q" and "call NAME ARGS".
func stepEvents(evs []Event) []string {
	out := []string{}
	for _, e := range evs {
		switch e.Type {
		case Text:
			out = append(out, fmt.Sprintf("text %q", e.Text))
		case ToolCall:
			out = append(out, fmt.Sprintf("call %s %s", e.Name, e.Arguments))
		default:
			out = append(out, string(e.Type))
		}
	}
	return out
}
