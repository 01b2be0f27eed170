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
	const size = 256 << 10
	in := prose(rand.New(rand.NewPCG(1, 2)), size)
	opt := toolsieve.Options{Tools: codingTools(b)}
	for _, chunk := range []int{4, 64, 4096} {
		b.Run(fmt.Sprintf("chunk=%d", chunk), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			var t tally
			for b.Loop() {
				t = feedFixed(opt, in, chunk)
			}
			if t.calls != 0 || t.runaways != 0 {
				b.Fatalf("got %d calls, %d runaways; want none", t.calls, t.runaways)
			}
			reportNsPerByte(b, len(in))
		})
	}
}
