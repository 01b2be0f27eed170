package toolsieve

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLayers: the packages above the parser (chat, sievehttp, the command
// line, with their tests and subpackages) reach the core only through the
// root package: none imports lexer, fsm or emitter, nor a package below
// them (docs/architecture.md, the data flows one way).
func TestLayers(t *testing.T) {
	const module = "github.com/toolsieve/toolsieve/"
	core := []string{"lexer", "fsm", "emitter"}
	checked := 0
	for _, top := range []string{"chat", "sievehttp", "cmd"} {
		err := filepath.WalkDir(top, func(dir string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			pkg, err := build.ImportDir(dir, build.ImportComment)
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			require.NoError(t, err, dir)
			checked++
			for _, list := range [][]string{pkg.Imports, pkg.TestImports, pkg.XTestImports} {
				for _, imp := range list {
					for _, c := range core {
						if imp == module+c || strings.HasPrefix(imp, module+c+"/") {
							assert.Failf(t, "layering", "%s imports %s: use the root package", dir, imp)
						}
					}
				}
			}
			return nil
		})
		require.NoError(t, err)
	}
	require.GreaterOrEqual(t, checked, 4, "chat, chat/chattest, sievehttp and cmd/toolsieve at least")
}
