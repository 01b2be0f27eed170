package main

import (
	"bufio"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// dockerBuildArgs returns the arguments of the Dockerfile's go build
// command (the line that starts "RUN CGO_ENABLED=0 go build"), its version
// set to version and its output to out.
func dockerBuildArgs(t *testing.T, version, out string) []string {
	f, err := os.Open(filepath.Join("..", "..", "Dockerfile"))
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "RUN CGO_ENABLED=0 go build ")
		if !ok {
			continue
		}
		line = strings.ReplaceAll(line, "${VERSION}", version)
		var args []string
		for i, part := range strings.Split(line, `"`) { // quoted parts are one argument
			if i%2 == 1 {
				args = append(args, part)
				continue
			}
			args = append(args, strings.Fields(part)...)
		}
		for i := range args {
			if args[i] == "-o" && i+1 < len(args) {
				args[i+1] = out
			}
			if args[i] == "./cmd/toolsieve" {
				args[i] = "."
			}
		}
		return append([]string{"build"}, args...)
	}
	t.Fatal("no go build line in the Dockerfile")
	return nil
}

// TestStaticBuild builds the binary as the Dockerfile does (CGO off) and
// checks it is static (no interpreter, no shared library) and carries its
// version.
func TestStaticBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	out := filepath.Join(t.TempDir(), "toolsieve")
	args := dockerBuildArgs(t, "v9.8.7-test", out)
	require.Contains(t, args, "-trimpath")
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", b)

	f, err := elf.Open(out)
	require.NoError(t, err)
	defer f.Close()
	for _, p := range f.Progs {
		require.NotEqual(t, elf.PT_INTERP, p.Type, "a static binary has no interpreter")
		require.NotEqual(t, elf.PT_DYNAMIC, p.Type, "a static binary has no dynamic section")
	}
	libs, err := f.ImportedLibraries()
	require.NoError(t, err)
	require.Empty(t, libs)

	v, err := exec.Command(out, "--version").Output()
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(v), "toolsieve v9.8.7-test "), "%s", v)
}
