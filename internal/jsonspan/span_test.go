package jsonspan

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLookupLastWins: a key named twice, or written with escapes, reads as
// encoding/json (and JSON.parse, Python's json) read it: the last member
// with that decoded key wins.
func TestLookupLastWins(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
		found           bool
	}{
		{"once", `{"model":"a","stream":true}`, `"a"`, true},
		{"twice", `{"model":"x","model":"deepseek-chat"}`, `"deepseek-chat"`, true},
		{"three times", `{"model":"x","stream":true,"model":"y","model":"z"}`, `"z"`, true},
		{"escaped key last", `{"model":"x","mod\u0065l":"y"}`, `"y"`, true},
		{"escaped key first", `{"mod\u0065l":"y","model":"x"}`, `"x"`, true},
		{"escaped only", `{"\u006dodel":"y"}`, `"y"`, true},
		{"escaped slash", `{"a\/b":1}`, `1`, true},
		{"other key with an escape", `{"mode\u006c2":1}`, ``, false},
		{"absent", `{"models":1,"mode":2}`, ``, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := []byte(tc.doc)
			ms, ok := Members(b, 0, nil)
			require.True(t, ok)
			key := "model"
			if tc.name == "escaped slash" {
				key = "a/b"
			}
			m, found := Lookup(b, ms, key)
			require.Equal(t, tc.found, found)
			if !found {
				return
			}
			require.Equal(t, tc.want, string(b[m.Start:m.End]))
			// The same value as encoding/json reads.
			var v map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(b, &v))
			require.Equal(t, string(v[key]), string(b[m.Start:m.End]))
			// And from the index.
			var x Index
			require.True(t, x.Parse(b))
			xms, _ := x.Members(b, 0, nil)
			xm, _ := Lookup(b, xms, key)
			require.Equal(t, m, xm)
		})
	}
}
