package peers

import (
	"bytes"
	"testing"
)

func TestInputs(t *testing.T) {
	p := Prose(64 << 10)
	if len(p) != 64<<10 || bytes.ContainsAny(p, "<>[]{}|`&") {
		t.Errorf("prose: %d bytes or markup characters", len(p))
	}
	fc := FileContent(64 << 10)
	if n := bytes.Count(fc, []byte("<")); len(fc) != 64<<10 || n < len(fc)/60 || bytes.Contains(fc, []byte("inv")) {
		t.Errorf("file content: %d bytes, %d '<' or \"inv\"", len(fc), n)
	}
	fc = FileContentNoAngle(64 << 10)
	if len(fc) != 64<<10 || bytes.ContainsAny(fc, "<&") || bytes.Contains(fc, []byte("inv")) {
		t.Errorf("file content without angles: %d bytes, '<', '&' or \"inv\"", len(fc))
	}
}

func TestChunks(t *testing.T) {
	for _, m := range []Markup{Qwen3Coder, DeepSeek, Anthropic} {
		in := Call(m, FileContent(1000))
		for _, size := range []int{1, 3, 4, 64, 1 << 20} {
			chunks := Chunks(in, size, SpecialTokens[m])
			if got := bytes.Join(chunks, nil); !bytes.Equal(got, in) {
				t.Fatalf("%s/%d: chunks do not join to the input", m, size)
			}
			whole := 0
			for _, c := range chunks {
				if len(c) == 0 {
					t.Fatalf("%s/%d: empty chunk", m, size)
				}
				if tokenAt(c, SpecialTokens[m]) == len(c) {
					whole++
				} else if len(c) > size {
					t.Fatalf("%s/%d: chunk of %d bytes", m, size, len(c))
				}
				for _, tok := range SpecialTokens[m] {
					if i := bytes.Index(c, []byte(tok)); i > 0 || (i == 0 && len(c) != len(tok)) {
						t.Fatalf("%s/%d: token %q not alone in chunk %q", m, size, tok, c)
					}
				}
			}
			want := 0
			for _, tok := range SpecialTokens[m] {
				want += bytes.Count(in, []byte(tok))
			}
			if whole != want {
				t.Errorf("%s/%d: %d special tokens delivered whole, want %d", m, size, whole, want)
			}
		}
	}
}

func TestNaive(t *testing.T) {
	// The seed's own test inputs.
	calls, lenient := ParseLenient([]byte("\n<function_calls>\n<invoke name=\"read_file\">\n{\"path\": \"test.txt\"}\n</invoke>\n</function_calls>\n"))
	if len(calls) != 1 || lenient || calls[0].Name != "read_file" || string(calls[0].Arguments) != `{"path": "test.txt"}` {
		t.Errorf("well-formed: %+v %v", calls, lenient)
	}
	calls, lenient = ParseLenient([]byte("\n<function_calls>\n<invoke name=\"update_todo_list\">{\n  \"todos\": \"[-] Task 1\\n[ ] Task 2invfunction_calls>\n"))
	if len(calls) != 1 || !lenient || calls[0].Name != "update_todo_list" {
		t.Errorf("malformed: %+v %v", calls, lenient)
	}
	calls, lenient = ParseLenient([]byte("\n<function_calls>\n<invoke name=\"test_tool\">{\"key\": \"value\"inv\n"))
	if len(calls) != 1 || !lenient || !bytes.Contains(calls[0].Arguments, []byte("}")) {
		t.Errorf("incomplete JSON: %+v %v", calls, lenient)
	}
	if calls, _ := ParseLenient([]byte("This is just regular text without any tool calls.")); len(calls) != 0 {
		t.Errorf("plain text: %+v", calls)
	}

	// Streaming: text before the block, the call once its </invoke> is in.
	in := []byte("Some text before\n<function_calls>\n<invoke name=\"test\">{\"arg\": \"val\"}</invoke>\n</function_calls>\nSome text after\n")
	var n Naive
	var got []NaiveCall
	for i := 0; i < len(in); i += 5 {
		_, c := n.Feed(in[i:min(i+5, len(in))])
		if len(c) > 0 && i+5 < bytes.Index(in, []byte("</invoke>"))+len("</invoke>") {
			t.Errorf("call passed on at byte %d, before its </invoke>", i+5)
		}
		got = append(got, c...)
	}
	view, c := n.Close()
	got = append(got, c...)
	if len(got) != 1 || got[0].Name != "test" || string(got[0].Arguments) != `{"arg": "val"}` {
		t.Errorf("stream calls: %+v", got)
	}
	if string(view) != "Some text before\n\nSome text after\n" {
		t.Errorf("stream text: %q", view)
	}
}
