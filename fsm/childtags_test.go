package fsm

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestChildObject: a value made of child elements only becomes a JSON
// object; anything else stays as written.
func TestChildObject(t *testing.T) {
	const s = "]<]minimax[>["
	tests := []struct {
		value, want string // want "": not rewritten
	}{
		{s + "<cmd>ls</cmd>", `{"cmd":"ls"}`},
		{"\n" + s + "<cmd>ls" + s + "</cmd>\n" + s + "<n>2" + s + "</n>\n", `{"cmd":"ls","n":2}`},
		{"<a><b>[1, 2]</b><c>x &lt; y</c></a>", `{"a":{"b":[1, 2],"c":"x &lt; y"}}`},
		{"<a> </a>", `{"a":" "}`},
		{"plain text", ""},
		{"<a>1</a> and text", ""},
		{"<a x=\"1\">1</a>", ""},  // attributes: not an argument element
		{"<a>1</b>", ""},          // no closer
		{"x < y <b>bold</b>", ""}, // text first
	}
	for _, tc := range tests {
		m := New(Options{}, &recorder{})
		m.buf = []byte(tc.value)
		p := pspan{val: span{0, len(tc.value)}}
		m.childObject(&p)
		if tc.want == "" {
			assert.False(t, p.inNames, "%q", tc.value)
			continue
		}
		if assert.True(t, p.inNames, "%q", tc.value) {
			assert.Equal(t, tc.want, string(m.paramValue(&p)), "%q", tc.value)
			assert.Equal(t, HintJSON, p.hint)
		}
	}
}

// TestChildObjectDepth: nesting past maxChildDepth stays as written.
func TestChildObjectDepth(t *testing.T) {
	v := ""
	for range maxChildDepth + 1 {
		v = "<a>" + v + "</a>"
	}
	m := New(Options{}, &recorder{})
	m.buf = []byte("<a>" + "<b>1</b>" + "</a>")
	p := pspan{val: span{0, len(m.buf)}}
	m.childObject(&p)
	assert.True(t, p.inNames)
	m.buf = []byte(v)
	p = pspan{val: span{0, len(m.buf)}}
	m.childObject(&p)
	assert.False(t, p.inNames)
}

func TestTrimSentinel(t *testing.T) {
	assert.Equal(t, "ls", string(trimSentinel([]byte("ls]<]minimax[>["))))
	assert.Equal(t, "ls", string(trimSentinel([]byte("ls<]minimax[>["))))
	assert.Equal(t, "a[>[", string(trimSentinel([]byte("a[>["))))
	assert.Equal(t, 13, skipSentinel([]byte("]<]minimax[>[<a>"), 0))
	assert.Equal(t, 0, skipSentinel([]byte("]<a>"), 0))
}
