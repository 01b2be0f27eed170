package fsm

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLineWordShortPath: a chunk that ends in a line's cut first word
// passes the text before the line and holds the word (no probe, the
// machine stays on the short path); the next chunk releases it with the
// rest of the word, or, when the line may be a call (a one-word label),
// sends the word the long way first.
func TestLineWordShortPath(t *testing.T) {
	declared := func(w []byte) bool { return string(w) == "read_file" }
	var r tape
	m := New(Options{Declared: declared, FitsTool: func([]byte, []string) bool { return true }}, &r)
	m.Write([]byte("Some prose.\n"))
	held, n, ok := m.WritePlain([]byte("\nHowe"))
	assert.True(t, ok)
	assert.Equal(t, 1, n, "the text before the line")
	assert.Nil(t, held)
	assert.Equal(t, 4, m.Holding(), "the word")
	held, n, ok = m.WritePlain([]byte("ver, "))
	assert.True(t, ok)
	assert.Equal(t, "However, ", string(held)+"ver, "[:n])
	assert.Zero(t, m.Holding())
	_, n, ok = m.WritePlain([]byte("x.\n\nActi"))
	assert.True(t, ok)
	assert.Equal(t, 4, n)
	_, _, ok = m.WritePlain([]byte("on: "))
	assert.False(t, ok, "`Action: ` may begin a labelled line call: the long way")
	assert.Equal(t, 4, m.Holding(), "the word is held still")
	r.got = nil
	m.Write([]byte("on: read_file(path=\"a\")\n"))
	m.Close()
	assert.Equal(t, `call granite_pythonic "read_file" id="" args="{\"path\":\"a\"}" raw="Action: read_file(path=\"a\")\n" off=26 [inferred_call]`, r.got[len(r.got)-1])
}
