package bench

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/toolsieve/toolsieve"
)

// The argument styles of the dialects added for issue 27 (part A), each
// measured as one call whose one argument value is N bytes, at 64 KiB and
// 1 MiB, fed in 4-byte chunks: ns/B must stay flat (the ratio of ns/B at
// 1 MiB to ns/B at 64 KiB at most 1.3).

// styleDialects are the dialects whose argument styles styleCall writes.
var styleDialects = []string{
	"hy_v3",       // key/value elements after a <tool_sep> name (Hunyuan; hy_v4, telechat4 alike)
	"k2_horizon",  // key, type and value elements
	"solar_open2", // key/value tokens
	"minimax_m3",  // arguments as child elements, after sentinel tokens
	"gigachat35",  // DSML's grammar under GCML
	"inkling",     // a JSON call object {"name", "args"} after a content token
	"plamo3",      // a JSON arguments object between tokens
	"lfm2_json",   // a JSON array of call objects after a '[' first read as Python
	"mistral",     // a v11 call without [ARGS]: the name ends at the '{'
}

// styleCall returns one call in dialect whose one argument value is value.
func styleCall(dialect string, value []byte) []byte {
	q, err := json.Marshal(string(value))
	if err != nil {
		panic(err)
	}
	var b bytes.Buffer
	b.WriteString("I will write the file now.\n")
	switch dialect {
	case "hy_v3":
		b.WriteString("<tool_calls>\n<tool_call>write_to_file<tool_sep>\n<arg_key>path</arg_key>\n<arg_value>src/main.go</arg_value>\n<arg_key>content</arg_key>\n<arg_value>")
		b.Write(value)
		b.WriteString("</arg_value>\n</tool_call>\n</tool_calls>")
	case "k2_horizon":
		b.WriteString("<ifm|tool_calls><ifm|tool_call>write_to_file<ifm|arg_key>path</ifm|arg_key><ifm|arg_type>string</ifm|arg_type><ifm|arg_value>src/main.go</ifm|arg_value><ifm|arg_key>content</ifm|arg_key><ifm|arg_type>string</ifm|arg_type><ifm|arg_value>")
		b.Write(value)
		b.WriteString("</ifm|arg_value></ifm|tool_call></ifm|tool_calls>")
	case "solar_open2":
		b.WriteString("<|tool_call:start|>write_to_file\n<|tool_arg:start|>path<|tool_arg:value|>src/main.go<|tool_arg:end|>\n<|tool_arg:start|>content<|tool_arg:value|>")
		b.Write(value)
		b.WriteString("<|tool_arg:end|>\n<|tool_call:end|>")
	case "minimax_m3":
		b.WriteString("]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"write_to_file\">\n]<]minimax[>[<path>src/main.go]<]minimax[>[</path>\n]<]minimax[>[<content>")
		b.Write(value)
		b.WriteString("]<]minimax[>[</content>\n]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>")
	case "gigachat35":
		b.WriteString("<｜GCML｜tool_calls>\n<｜GCML｜invoke name=\"write_to_file\">\n<｜GCML｜parameter name=\"path\" string=\"true\">src/main.go</｜GCML｜parameter>\n<｜GCML｜parameter name=\"content\" string=\"true\">")
		b.Write(value)
		b.WriteString("</｜GCML｜parameter>\n</｜GCML｜invoke>\n</｜GCML｜tool_calls>")
	case "inkling":
		b.WriteString("<|message_model|>write_to_file<|content_invoke_tool_json|>{\"name\":\"write_to_file\",\"args\":{\"path\":\"src/main.go\",\"content\":")
		b.Write(q)
		b.WriteString("}}<|end_message|>")
	case "plamo3":
		b.WriteString("<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>write_to_file<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>{\"path\": \"src/main.go\", \"content\": ")
		b.Write(q)
		b.WriteString("}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>")
	case "lfm2_json":
		b.WriteString("<|tool_call_start|>[{\"name\": \"write_to_file\", \"arguments\": {\"path\": \"src/main.go\", \"content\": ")
		b.Write(q)
		b.WriteString("}}]<|tool_call_end|>")
	case "mistral":
		b.WriteString("[TOOL_CALLS]write_to_file{\"path\": \"src/main.go\", \"content\": ")
		b.Write(q)
		b.WriteString("}")
	default:
		panic("unknown dialect " + dialect)
	}
	b.WriteString("\nDone.\n")
	return b.Bytes()
}

// BenchmarkArgumentStyles measures each style at 64 KiB and 1 MiB.
func BenchmarkArgumentStyles(b *testing.B) {
	for _, dialect := range styleDialects {
		for _, n := range []int{64 << 10, 1 << 20} {
			in := styleCall(dialect, fileContent(n))
			opt := toolsieve.Options{MaxCallBytes: len(in) + 64<<10}
			b.Run(dialect+"/"+sizeName(n), func(b *testing.B) {
				b.SetBytes(int64(len(in)))
				b.ReportAllocs()
				var t tally
				for b.Loop() {
					t = feedFixed(opt, in, 4)
				}
				if t.calls != 1 || t.runaways != 0 || t.errors != 0 {
					b.Fatalf("got %d calls, %d runaways, %d errors; want one call", t.calls, t.runaways, t.errors)
				}
				reportNsPerByte(b, len(in))
			})
		}
	}
}

// TestArgumentStyles checks (untimed) that every style's input is one call
// whose content argument is the value, whole and split.
func TestArgumentStyles(t *testing.T) {
	value := fileContent(3000)
	for _, dialect := range styleDialects {
		in := styleCall(dialect, value)
		for _, chunk := range []int{len(in), 7, 1} {
			var calls []toolsieve.Event
			p := toolsieve.NewParser(toolsieve.Options{})
			for i := 0; i < len(in); i += chunk {
				for _, e := range p.Feed(in[i:min(i+chunk, len(in))]) {
					if e.Type == toolsieve.ToolCall {
						calls = append(calls, e.Clone())
					}
				}
			}
			for _, e := range p.Close() {
				if e.Type == toolsieve.ToolCall {
					calls = append(calls, e.Clone())
				}
			}
			if len(calls) != 1 || calls[0].Dialect != dialect {
				t.Fatalf("%s, chunks of %d: %d calls, want one %s call", dialect, chunk, len(calls), dialect)
			}
			var args struct{ Content string }
			if err := json.Unmarshal(calls[0].Arguments, &args); err != nil || args.Content != string(value) {
				t.Fatalf("%s, chunks of %d: content %q… (%v)", dialect, chunk, args.Content[:min(40, len(args.Content))], err)
			}
		}
	}
}
