package fsm_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/fsm"
)

// TestLineWordHold: a line's first word cut by a chunk's end is held by
// the short path (lineword.go) and read again with the next chunk. Split
// anywhere into two or three pieces, each input gives the events of the
// long way with the input whole, its calls among them: line calls with a
// one-word label, a label of two words, a namespace, a word line, a
// harmony header, prose whose first word outgrows the hold.
func TestLineWordHold(t *testing.T) {
	tools, err := toolsieve.ParseTools([]byte(spTools))
	require.NoError(t, err)
	opt := toolsieve.Options{Tools: tools}
	for _, c := range []struct {
		in    string
		calls int
	}{
		{"Some prose here.\n\nHowever, the file is long.\n\nAction: read_file(path=\"a.txt\")\nDone.\n", 1},
		{"Intro.\n\nTool call: read_file(path=\"b\")\nThen more.", 1},
		{"Look.\nprint(default_api.read_file(path=\"c\"))\n", 1},
		{"Text.\n\nread_file(path=\"d\")\nAfter.", 1},
		{"Example.\n\njson\n{\"path\": \"e\"}\n", -1},
		{"Say.\n\nassistant to=functions.read_file json\n{\"path\":\"f\"}", -1},
		{"Words.\n\nInternationalization is a long first word.\nReadable text.", 0},
		{"Actions: more prose than calls.\nRead_file is not a call here.", 0},
	} {
		was := fsm.SetShortPaths(false)
		want := spEvents(opt, [][]byte{[]byte(c.in)}, false)
		fsm.SetShortPaths(was)
		if c.calls >= 0 {
			assert.Equal(t, c.calls, countPrefix(want, "tool_call@"), "%q: calls", c.in)
		}
		in := []byte(c.in)
		for i := 1; i < len(in); i++ {
			for j := i; j < len(in) && j <= i+6; j++ {
				pieces := [][]byte{in[:i], in[i:j], in[j:]}
				require.Equal(t, want, spEvents(opt, pieces, false), "%q cut at %d and %d", c.in, i, j)
			}
		}
	}
	// The word is held, not probed: Holding counts it, and the next chunk
	// lets it go as text with the rest of the word.
	p := toolsieve.NewParser(opt)
	p.Feed([]byte("Some prose.\n"))
	p.Feed([]byte("\nHowe"))
	assert.Equal(t, 4, p.Holding(), "the cut word is held")
	var text string
	for _, e := range p.Feed([]byte("ver, x")) {
		text += string(e.Text)
	}
	assert.Equal(t, "However, x", text)
}

func countPrefix(ss []string, prefix string) (n int) {
	for _, s := range ss {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}
