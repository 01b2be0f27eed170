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

// TestSpliced: the edited copy is allocated once, at its exact size (a
// held request body is counted in the proxy's budget by its capacity).
func TestSpliced(t *testing.T) {
	doc := []byte(`{"model":"m","stream":true}`)
	for _, tc := range []struct {
		name  string
		edits []Edit
		want  string
	}{
		{"none", nil, `{"model":"m","stream":true}`},
		{"insert", []Edit{{Start: 26, End: 26, Repl: []byte(`,"stream_options":{"include_usage":true}`)}}, `{"model":"m","stream":true,"stream_options":{"include_usage":true}}`},
		{"shrink", []Edit{{Start: 9, End: 12, Repl: []byte(`"x"`)}, {Start: 22, End: 26, Repl: []byte(`0`)}}, `{"model":"x","stream":0}`},
	} {
		got := Spliced(doc, tc.edits)
		require.Equal(t, tc.want, string(got), tc.name)
		require.Equal(t, len(got), cap(got), tc.name)
	}
}
