package toolsieve

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestContractDoc: every repair and every reason an event can carry is
// listed in docs/contract.md, as a code span.
func TestContractDoc(t *testing.T) {
	doc, err := os.ReadFile("docs/contract.md")
	require.NoError(t, err)
	for _, name := range RepairNames() {
		require.Contains(t, string(doc), "`"+name+"`", "repair %s", name)
	}
	n := 0
	for r := Reason(0); !strings.HasSuffix(r.String(), "?"); r++ {
		require.Contains(t, string(doc), "`"+r.String()+"`", "reason %s", r)
		n++
	}
	require.Greater(t, n, 10)
}
