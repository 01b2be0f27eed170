package bench

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/internal/cputime"
)

// The argument styles of the dialects issue 27 added, each as one call
// whose content argument is N bytes: a raw command line (cwm), a flat JSON
// object (tgi), a JSON object after a name line (functionary_v32) or a
// header (step_audio_2, glm53_flash, functionary_v31), a fenced JSON call
// object (rwkv), Python calls on a line of their own (granite_pythonic),
// in a fence (minicpm3) or after a token (llama3_builtin). Their cost per
// byte must not grow with N (1 MiB against 64 KiB: at most 1.3 times).

// newStyles lists those dialects, in the order they are benchmarked.
var newStyles = []string{"cwm", "tgi", "functionary_v32", "functionary_v31", "step_audio_2", "glm53_flash",
	"rwkv", "granite_pythonic", "minicpm3", "llama3_builtin"}

// styleTools declares the tool the calls write to: tgi, functionary_v32
// and granite_pythonic read only declared tools' calls.
var styleTools = func() *toolsieve.Tools {
	t, err := toolsieve.ParseTools([]byte(`[{"type":"function","function":{"name":"write_to_file","parameters":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}}}}]`))
	if err != nil {
		panic(err)
	}
	return t
}()

// scalingCall returns one call in dialect (one of newStyles) whose content
// argument is value (styleCall writes the styles of issue 27's part A).
func scalingCall(dialect string, value []byte) []byte {
	js, _ := json.Marshal(string(value))
	py := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(string(value))
	args := `{"path": "src/main.go", "content": ` + string(js) + `}`
	var b bytes.Buffer
	b.WriteString("I will write the file now.\n")
	switch dialect {
	case "cwm": // the value as the command's here-document
		b.WriteString("<tool: function>\nwrite_to_file cat > src/main.go <<'EOF'\n")
		b.Write(value)
		b.WriteString("\nEOF\n</tool>\n")
	case "tgi":
		b.WriteString(`{"function": {"_name": "write_to_file", "path": "src/main.go", "content": ` + string(js) + "}}\n")
	case "functionary_v32":
		b.WriteString(">>>write_to_file\n" + args)
	case "functionary_v31":
		b.WriteString("<function=write_to_file>" + args + "</function>\n")
	case "step_audio_2":
		b.WriteString("<tool_call>function\nwrite_to_file\n" + args + "</tool_call>\n")
	case "glm53_flash":
		b.WriteString("<tool_call>Files/write_to_file>" + args + "\n")
	case "rwkv":
		b.WriteString("**Tool Call:**\n```json\n{\"name\": \"write_to_file\", \"arguments\": " + args + "}\n```\n")
	case "granite_pythonic":
		b.WriteString("write_to_file(path='src/main.go', content=\"" + py + "\")\n")
	case "minicpm3":
		b.WriteString("<|tool_call_start|>```python\nwrite_to_file(path='src/main.go', content=\"" + py + "\")\n```<|tool_call_end|>\n")
	case "llama3_builtin":
		b.WriteString("<|python_tag|>write_to_file.call(path='src/main.go', content=\"" + py + "\")<|eom_id|>")
	default:
		panic("unknown dialect " + dialect)
	}
	b.WriteString("Done.\n")
	return b.Bytes()
}

// TestStyleCalls: each generated input is one call of its dialect, whole.
func TestStyleCalls(t *testing.T) {
	value := fileContent(64 << 10)
	for _, d := range newStyles {
		in := scalingCall(d, value)
		var got []toolsieve.Event
		for _, e := range toolsieve.Parse(in, toolsieve.Options{Tools: styleTools, MaxCallBytes: len(in)}) {
			if e.Type == toolsieve.ToolCall || e.Type == toolsieve.Error || e.Type == toolsieve.Runaway {
				got = append(got, e)
			}
		}
		if len(got) != 1 || got[0].Type != toolsieve.ToolCall || got[0].Dialect != d || len(got[0].Repairs) != 0 {
			t.Fatalf("%s: got %v", d, got)
		}
		var args map[string]string
		if err := json.Unmarshal(got[0].Arguments, &args); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		want := string(value)
		if d == "cwm" {
			want = "cat > src/main.go <<'EOF'\n" + want + "\nEOF"
			if args["command"] != want {
				t.Errorf("%s: the command differs", d)
			}
			continue
		}
		if args["content"] != want || args["path"] != "src/main.go" {
			t.Errorf("%s: the arguments differ", d)
		}
	}
}

// BenchmarkStyleScaling measures one call of each new argument style with
// a content argument of N bytes, fed in 4-byte chunks: ns/B at 1 MiB over
// ns/B at 64 KiB is the linearity ratio (goal ≤ 1.3). cpu-ns/B is the same
// in the process's CPU time, which other processes on a shared machine do
// not inflate (it includes the collector's work).
func BenchmarkStyleScaling(b *testing.B) {
	for _, d := range newStyles {
		for _, n := range []int{64 << 10, 1 << 20} {
			in := scalingCall(d, fileContent(n))
			opt := toolsieve.Options{Tools: styleTools, MaxCallBytes: len(in) + 64<<10}
			b.Run(d+"/"+sizeName(n), func(b *testing.B) {
				b.SetBytes(int64(len(in)))
				b.ReportAllocs()
				var t tally
				cpu := cputime.Self()
				for b.Loop() {
					t = feedFixed(opt, in, 4)
				}
				cpu = cputime.Self() - cpu
				if t.calls != 1 || t.runaways != 0 || t.errors != 0 {
					b.Fatalf("got %d calls, %d runaways, %d errors; want one call", t.calls, t.runaways, t.errors)
				}
				reportNsPerByte(b, len(in))
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(len(in)), "cpu-ns/B")
			})
		}
	}
}
