package toolsieve

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestImporterFootprint: the main module requires only what an importer
// should pay for (testify, x/text and their own requirements). Client
// SDKs and test oracles live in module e2e, peers in bench/peers.
func TestImporterFootprint(t *testing.T) {
	allowed := map[string]bool{
		"github.com/stretchr/testify": true, "golang.org/x/text": true,
		// testify's own requirements
		"go.yaml.in/yaml/v3": true, "gopkg.in/yaml.v3": true, "github.com/davecgh/go-spew": true,
		"github.com/pmezard/go-difflib": true, "github.com/stretchr/objx": true,
	}
	f, err := os.Open("go.mod")
	require.NoError(t, err)
	defer f.Close()
	in, n := false, 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "require (":
			in = true
			continue
		case line == ")":
			in = false
			continue
		case strings.HasPrefix(line, "require "):
			line = strings.TrimPrefix(line, "require ")
		case !in:
			continue
		}
		mod := strings.Fields(line)[0]
		require.True(t, allowed[mod], "go.mod requires %s: move what needs it into a module of its own", mod)
		n++
	}
	require.NotZero(t, n)
}
