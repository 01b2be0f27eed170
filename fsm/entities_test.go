package fsm

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEscapedXML(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want bool
	}{
		{"2&gt;/dev/null", true},
		{"&lt;b&gt; &amp;&amp; &quot;x&quot; &apos;y&#39;", true},
		{"no entity at all", false},
		{"<p>&lt;</p>", false},   // raw markup: written raw
		{"a && b &gt; c", false}, // a bare ampersand
		{"&nbsp; &gt;", false},   // an entity XML does not define
		{"ends with &", false},
	} {
		assert.Equal(t, tc.want, escapedXML([]byte(tc.v)), "%q", tc.v)
	}
}
