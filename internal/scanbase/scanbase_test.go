package scanbase

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every ASCII byte written as string content decodes back to itself, and
// only control bytes, '"' and '\' are escaped.
func TestAppendStrByte(t *testing.T) {
	for c := range 0x80 {
		b := byte(c)
		got := AppendStrByte([]byte(`"`), b)
		var s string
		require.NoError(t, json.Unmarshal(append(got, '"'), &s), "byte %#x wrote %q", b, got)
		assert.Equal(t, string(rune(b)), s, "byte %#x", b)
		escaped := b < 0x20 || b == '"' || b == '\\'
		assert.Equal(t, escaped, len(got) > 2, "byte %#x wrote %q", b, got)
	}
	assert.Equal(t, `\n`, string(AppendStrByte(nil, '\n')))
	assert.Equal(t, `\u001f`, string(AppendStrByte(nil, 0x1f)))
}

func TestAppendUEscape(t *testing.T) {
	assert.Equal(t, `\ud83d`, string(AppendUEscape(nil, 0xd83d)))
	assert.Equal(t, `\u00e9`, string(AppendUEscape(nil, 'é')))
}

// LitFor names the literal each byte starts, and only the first bytes of
// LitSrc start one.
func TestLitFor(t *testing.T) {
	starts := map[byte]uint8{}
	for l, src := range LitSrc {
		starts[src[0]] = uint8(l)
		assert.True(t, json.Valid([]byte(LitDst[l])), "LitDst[%d] = %q", l, LitDst[l])
	}
	for c := range 256 {
		l, ok := LitFor(byte(c))
		want, is := starts[byte(c)]
		assert.Equal(t, is, ok, "byte %q", c)
		assert.Equal(t, want, l, "byte %q", c)
	}
	assert.Equal(t, "null", LitDst[LitPyNone])
}

func TestHexVal(t *testing.T) {
	for c := range 256 {
		v, ok := HexVal(byte(c))
		want, err := strconv.ParseUint(string(rune(c)), 16, 8)
		assert.Equal(t, err == nil, ok, "byte %q", c)
		assert.Equal(t, rune(want), v, "byte %q", c)
	}
}

func TestSyntaxError(t *testing.T) {
	err := &SyntaxError{Scanner: "pyscan", Offset: 7, Byte: '}', Where: "in a keyword"}
	assert.Equal(t, `pyscan: unexpected byte '}' at offset 7 in a keyword`, err.Error())
}

func TestIsSpaceAndCloserOf(t *testing.T) {
	for c := range 256 {
		assert.Equal(t, c == ' ' || c == '\t' || c == '\n' || c == '\r', IsSpace(byte(c)), "byte %q", c)
	}
	assert.Equal(t, byte('}'), CloserOf('{'))
	assert.Equal(t, byte(']'), CloserOf('['))
}
