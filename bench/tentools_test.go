package bench

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/toolsieve/toolsieve"
)

// codingTools declares ten tools with small schemas: the requests of coding
// agents declare about so many.
func codingTools(b testing.TB) *toolsieve.Tools {
	src := "["
	for i, n := range []string{"read_file", "write_file", "edit_file", "list_dir", "grep", "glob", "bash", "web_fetch", "todo_write", "ask_user"} {
		if i > 0 {
			src += ","
		}
		src += fmt.Sprintf(`{"type":"function","function":{"name":%q,"parameters":{"type":"object","properties":{"path":{"type":"string"},"command":{"type":"string"}},"required":["path"]}}}`, n)
	}
	tools, err := toolsieve.ParseTools([]byte(src + "]"))
	if err != nil {
		b.Fatal(err)
	}
	return tools
}

// BenchmarkProseTenTools measures prose that names no tool, with ten tools
// declared: what recovery anchored on the declared tools costs text that
// holds no call.
func BenchmarkProseTenTools(b *testing.B) {
	benchNoCalls(b, toolsieve.Options{Tools: codingTools(b)}, prose(rand.New(rand.NewPCG(1, 2)), 256<<10))
}
