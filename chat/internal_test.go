package chat

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestIncompleteUTF8(t *testing.T) {
	require.Equal(t, 2, incompleteUTF8([]byte("a\xe6\x9d")))
	require.Equal(t, 0, incompleteUTF8([]byte("a\xe6\x9d\xad")))
	require.Equal(t, 1, incompleteUTF8([]byte("\xf0")))
}

func TestAnthropicID(t *testing.T) {
	require.Equal(t, "functions_get_weather_0", anthropicID("functions.get_weather:0"))
	require.Equal(t, "toolu_0", anthropicID(""))
}

func TestLooksLikeSSE(t *testing.T) {
	for _, tc := range []struct {
		in        string
		sse, sure bool
	}{
		{"data: {}", true, true},
		{"\xEF\xBB\xBF\n\nevent: x", true, true},
		{": ping\n", true, true},
		{"id: 1", true, true},
		{"da", false, false},
		{"\xEF\xBB", false, false},
		{"  \n", false, false},
		{"", false, false},
		{"Hello", false, true},
		{"<tool_call>", false, true},
		{"dat x", false, true},
	} {
		sse, sure := LooksLikeSSE([]byte(tc.in))
		require.Equal(t, tc.sse, sse, "%q", tc.in)
		require.Equal(t, tc.sure, sure, "%q", tc.in)
	}
}
