package fsm

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShortPathsSwitch: turned off, the switch keeps prose off WritePlain
// and a value's chunk off writeValue, so that the comparison of both ways
// (shortpaths_test.go) compares two different routes.
func TestShortPathsSwitch(t *testing.T) {
	for _, on := range []bool{true, false} {
		was := SetShortPaths(on)
		var r tape
		m := New(Options{}, &r)
		m.Write([]byte("Some prose. "))
		_, n, ok := m.WritePlain([]byte("More prose, no markup. "))
		assert.Equal(t, on, ok, "WritePlain, short paths %v", on)
		assert.Equal(t, on, n > 0, "WritePlain, short paths %v", on)
		m.Write([]byte("<tool_call>\n<function=f>\n<parameter=a>\nx"))
		require.Equal(t, lvValue, m.lv)
		assert.Equal(t, on, m.writeValue([]byte("more of the value")), "writeValue, short paths %v", on)
		// The lexer's prefilter: `a < b` is two text tokens, or three.
		m = New(Options{}, &r)
		m.lex.Feed([]byte("a < b"))
		n = 0
		for _, ok := m.lex.Next(true); ok; _, ok = m.lex.Next(true) {
			n++
		}
		assert.Equal(t, map[bool]int{true: 2, false: 3}[on], n, "text tokens of `a < b`, short paths %v", on)
		SetShortPaths(was)
	}
}
