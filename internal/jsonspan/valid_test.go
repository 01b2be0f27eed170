package jsonspan

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestValidMembers: the one pass answers as Valid and Members do.
func TestValidMembers(t *testing.T) {
	for _, doc := range []string{`{}`, ` { } `, `{"a":1,"b":[1,{"c":"}"}],"d":"x\"y"} `, `{"a":1,}`, `{"a":1}x`, `{"a" 1}`,
		`{"a":tru}`, `[1,2]`, `"s"`, `{"a":{"b":`, ``, ` `, `{"a\u0041":null, "b" : -1.5e3 }`} {
		b := []byte(doc)
		ms, ok := ValidMembers(b, nil)
		if ok != Valid(b) {
			t.Errorf("%q: valid %v", doc, ok)
		}
		if !ok {
			if len(ms) != 0 {
				t.Errorf("%q: members of an invalid document", doc)
			}
			continue
		}
		want, _ := Members(b, 0, nil)
		require.Equal(t, want, ms, doc)
	}
}
