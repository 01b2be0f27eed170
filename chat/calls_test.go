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
