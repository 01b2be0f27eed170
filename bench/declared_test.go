package bench

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/toolsieve/toolsieve"
)

// tenTools declares ten tools, eight with parameters and two without (any
// argument names): the recovery anchored on declared tools is then on.
const tenTools = `[
 {"type":"function","function":{"name":"read_file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}},
 {"type":"function","function":{"name":"write_file","parameters":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}}},
 {"type":"function","function":{"name":"bash","parameters":{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"integer"}},"required":["command"]}}},
 {"type":"function","function":{"name":"web_search","parameters":{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}}},
 {"type":"function","function":{"name":"list_dir","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}},
 {"type":"function","function":{"name":"grep_search","parameters":{"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string"}},"required":["pattern"]}}},
 {"type":"function","function":{"name":"edit_file","parameters":{"type":"object","properties":{"path":{"type":"string"},"old":{"type":"string"},"new":{"type":"string"}},"required":["path"]}}},
 {"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}},
 {"type":"function","function":{"name":"exec"}},
 {"type":"function","function":{"name":"task","parameters":{"type":"object"}}}
]`

// bracketLines is prose whose paragraphs start with '[' (references,
// links, check boxes): lines a label could start, naming no tool.
func bracketLines(rng *rand.Rand, n int) []byte {
	heads := []string{"[1] ", "[docs](https://example.org/a) ", "[x] done: ", "[Note: see below] "}
	b := make([]byte, 0, n+256)
	for len(b) < n {
		b = append(b, heads[rng.IntN(len(heads))]...)
		b = append(b, prose(rng, 200)...)
		b = append(b, '\n')
	}
	return b
}

// BenchmarkDeclaredText measures text that names no declared tool, parsed
// with ten declared tools: prose, code and lines starting with '['.
func BenchmarkDeclaredText(b *testing.B) {
	const size = 64 << 10
	tools, err := toolsieve.ParseTools([]byte(tenTools))
	if err != nil {
		b.Fatal(err)
	}
	opt := toolsieve.Options{Tools: tools}
	rng := rand.New(rand.NewPCG(3, 4))
	kinds := []struct {
		name string
		in   []byte
	}{
		{"prose", prose(rng, size)},
		{"code", code(rng, size)},
		{"brackets", bracketLines(rng, size)},
	}
	for _, k := range kinds {
		for _, chunk := range []int{64, 4096} {
			b.Run(fmt.Sprintf("%s/chunk=%d", k.name, chunk), func(b *testing.B) {
				b.SetBytes(int64(len(k.in)))
				b.ReportAllocs()
				var t tally
				for b.Loop() {
					t = feedFixed(opt, k.in, chunk)
				}
				if t.calls != 0 || t.runaways != 0 {
					b.Fatalf("got %d calls, %d runaways; want none", t.calls, t.runaways)
				}
				reportNsPerByte(b, len(k.in))
			})
		}
	}
}
