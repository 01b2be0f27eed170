package schema

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProblems: missing required parameters and values of a kind the
// schema does not allow, named.
func TestProblems(t *testing.T) {
	tools, err := ParseTools([]byte(`[{"name":"read","input_schema":{"type":"object","required":["path","n"],` +
		`"properties":{"path":{"type":"string"},"n":{"type":"integer"},"opt":{"anyOf":[{"type":"string"},{"type":"null"}]},"any":{}}}}]`))
	require.NoError(t, err)
	for _, tc := range []struct {
		name, args        string
		missing, mistyped []string
	}{
		{"read", `{"path":"a","n":1}`, nil, nil},
		{"read", `{"p\u0061th":"a","n":1,"opt":null,"any":[1]}`, nil, nil},
		{"read", `{"n":"1"}`, []string{"path"}, []string{"n"}},
		{"read", `{"path":3,"n":1.5,"opt":7}`, nil, []string{"path", "n", "opt"}},
		{"read", `[1]`, nil, nil},
		{"write", `{}`, nil, nil},
	} {
		missing, mistyped := tools.Problems(tc.name, []byte(tc.args))
		require.Equal(t, tc.missing, missing, tc.args)
		require.Equal(t, tc.mistyped, mistyped, tc.args)
	}
}
