package jsonspan

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSetMember(t *testing.T) {
	for _, tc := range []struct{ in, key, value, want string }{
		{`{"a":1,"b":[2]}`, "b", `"x"`, `{"a":1,"b":"x"}`},
		{`{"a":1}`, "c", `null`, `{"a":1,"c":null}`},
		{`{}`, "c", `{}`, `{"c":{}}`},
		{` { "a" : 1 } `, "a", `2`, ` { "a" : 2 } `},
	} {
		i := SkipSpace([]byte(tc.in), 0)
		ms, ok := Members([]byte(tc.in), i, nil)
		require.True(t, ok)
		end := Skip([]byte(tc.in), i)
		e := SetMember([]byte(tc.in), ms, end, tc.key, []byte(tc.value))
		require.Equal(t, tc.want, string(Splice(nil, []byte(tc.in), []Edit{e})), tc.in)
	}
}
