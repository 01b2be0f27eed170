package jsonspan

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestQuoteRoundTrip: AppendQuoted gives JSON that encoding/json reads
// back, and AppendUnquoted reads both its output and encoding/json's.
func TestQuoteRoundTrip(t *testing.T) {
	for _, s := range []string{"", "a", "\"\\/\b\f\n\r\t", "\x01\x1f", "杭州🙂", "\u2028", "<&>"} {
		q := AppendQuoted(nil, s)
		var back string
		require.NoError(t, json.Unmarshal(q, &back), "%q", q)
		require.Equal(t, s, back)
		require.Equal(t, s, string(AppendUnquoted(nil, q)))
		std, _ := json.Marshal(s)
		require.Equal(t, s, string(AppendUnquoted(nil, std)))
		u, ok := Unquote(std)
		require.True(t, ok)
		require.Equal(t, s, string(u))
	}
	require.Equal(t, "\U0001F642", string(AppendUnquoted(nil, []byte(`"\ud83d\ude42"`))))
}
