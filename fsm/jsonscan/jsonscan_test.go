package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// result is everything a run of the scanner reports.
type result struct {
	N         int    // bytes consumed by Write, over all chunks
	Done      bool   // Done() before Finish
	Failed    bool   // Failed()
	ErrOffset int    // offset named by Err (-1 when nil)
	Out       string // Finish output
	Nil       bool   // Finish returned nil
	Truncated bool
	Repaired  bool
}

// feed runs a fresh scanner over in, cut at the given positions (ascending),
// then finishes it. A chunk that is not fully consumed ends the feeding, as
// a caller would do.
func feed(t testing.TB, s *Scanner, in []byte, cuts ...int) result {
	t.Helper()
	s.Reset()
	var r result
	prev := 0
	cuts = append(cuts, len(in))
	for _, c := range cuts {
		chunk := in[prev:c]
		prev = c
		n, done := s.Write(chunk)
		r.N += n
		if done != s.Done() {
			t.Fatalf("Write returned done=%v but Done()=%v", done, s.Done())
		}
		if n < len(chunk) {
			break
		}
	}
	if r.N != s.Len() {
		t.Fatalf("consumed %d bytes but Len()=%d", r.N, s.Len())
	}
	r.Done = s.Done()
	r.Failed = s.Failed()
	r.ErrOffset = -1
	if err := s.Err(); err != nil {
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("Err() is %T, want *SyntaxError", err)
		}
		r.ErrOffset = se.Offset
	}
	out, tr, rep := s.Finish()
	r.Out, r.Nil, r.Truncated, r.Repaired = string(out), out == nil, tr, rep
	return r
}

func oneByteCuts(n int) []int {
	cuts := make([]int, 0, n)
	for i := 1; i < n; i++ {
		cuts = append(cuts, i)
	}
	return cuts
}

// checkChunking feeds in whole, one byte at a time and split in two at every
// position, and requires the same result each time. It returns the result.
func checkChunking(t *testing.T, in []byte) result {
	t.Helper()
	var s Scanner
	whole := feed(t, &s, in)
	require.Equal(t, whole, feed(t, &s, in, oneByteCuts(len(in))...), "1-byte chunks")
	for i := 0; i <= len(in); i++ {
		require.Equal(t, whole, feed(t, &s, in, i), "split at %d", i)
	}
	return whole
}

type scanCase struct {
	name string
	in   string
	out  string // expected Finish output ("" with nilOut for nil)
	n    int    // expected bytes consumed; -1 means len(in)
	done bool   // Done before Finish
	fail bool
	tr   bool // truncated
	rep  bool // repaired
	nil  bool // Finish returns nil
}

func runCases(t *testing.T, cases []scanCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := checkChunking(t, []byte(tc.in))
			n := tc.n
			if n < 0 {
				n = len(tc.in)
			}
			assert.Equal(t, n, r.N, "n")
			assert.Equal(t, tc.done, r.Done, "done")
			assert.Equal(t, tc.fail, r.Failed, "failed")
			if tc.fail {
				assert.Equal(t, n, r.ErrOffset, "error offset")
			} else {
				assert.Equal(t, -1, r.ErrOffset, "error offset")
			}
			assert.Equal(t, tc.nil, r.Nil, "nil output")
			assert.Equal(t, tc.out, r.Out, "output")
			assert.Equal(t, tc.tr, r.Truncated, "truncated")
			assert.Equal(t, tc.rep, r.Repaired, "repaired")
			if !r.Nil {
				assert.True(t, json.Valid([]byte(r.Out)), "output is not valid JSON: %q", r.Out)
			}
		})
	}
}

const all = -1

func TestValidPassThrough(t *testing.T) {
	runCases(t, []scanCase{
		{name: "object", in: `{"a":1,"b":[true,false,null],"c":{"d":"e"}}`, out: `{"a":1,"b":[true,false,null],"c":{"d":"e"}}`, n: all, done: true},
		{name: "leading whitespace dropped", in: " \n\t{\"a\" : [ 1 , 2 ] }", out: "{\"a\" : [ 1 , 2 ] }", n: all, done: true},
		{name: "apostrophe in double quotes untouched", in: `{"a":"it's"}`, out: `{"a":"it's"}`, n: all, done: true},
		{name: "escapes kept", in: `"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"`, out: `"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"`, n: all, done: true},
		{name: "lone surrogate in closed string kept", in: `"\ud83d"`, out: `"\ud83d"`, n: all, done: true},
		{name: "raw utf8", in: `{"城市":"杭州｜▁"}`, out: `{"城市":"杭州｜▁"}`, n: all, done: true},
		{name: "top-level string", in: `"x"`, out: `"x"`, n: all, done: true},
		{name: "top-level literal", in: `false`, out: `false`, n: all, done: true},
		{name: "top-level number at end", in: `-12.5e+3`, out: `-12.5e+3`, n: all},
		{name: "top-level zero", in: `0`, out: `0`, n: all},
		{name: "top-level number then space", in: `123 `, out: `123`, n: 3, done: true},
		{name: "top-level number then markup", in: `123</x>`, out: `123`, n: 3, done: true},
		{name: "back to back values", in: `{"a":1}{"b":2}`, out: `{"a":1}`, n: 7, done: true},
		{name: "trailing whitespace not consumed", in: "[1] \n", out: `[1]`, n: 3, done: true},
		{name: "markup in string", in: `{"a":"</tool_call><b>"}`, out: `{"a":"</tool_call><b>"}`, n: all, done: true},
		{name: "markup after value", in: `{"a":"x"}</tool_call>`, out: `{"a":"x"}`, n: 9, done: true},
		{name: "empty containers", in: `[{},[],{"a":[]}]`, out: `[{},[],{"a":[]}]`, n: all, done: true},
		{name: "del byte", in: "\"a\x7fb\"", out: "\"a\x7fb\"", n: all, done: true},
	})
}

func TestWriteRepairs(t *testing.T) {
	runCases(t, []scanCase{
		// Python literals.
		{name: "python True", in: `{"a": True}`, out: `{"a": true}`, n: all, done: true, rep: true},
		{name: "python False", in: `[False]`, out: `[false]`, n: all, done: true, rep: true},
		{name: "python None", in: `{"a":None,"b":null}`, out: `{"a":null,"b":null}`, n: all, done: true, rep: true},
		{name: "python None top-level", in: `None`, out: `null`, n: all, done: true, rep: true},
		// Single-quoted strings.
		{name: "single-quoted key and value", in: `{'a': 'b'}`, out: `{"a": "b"}`, n: all, done: true, rep: true},
		{name: "single-quoted with inner double quote", in: `['say "hi"']`, out: `["say \"hi\""]`, n: all, done: true, rep: true},
		{name: "single-quoted with escaped apostrophe", in: `'it\'s'`, out: `"it's"`, n: all, done: true, rep: true},
		{name: "single-quoted with escaped double quote", in: `'a\"b'`, out: `"a\"b"`, n: all, done: true, rep: true},
		{name: "single-quoted with newline escape", in: `'a\nb'`, out: `"a\nb"`, n: all, done: true, rep: true},
		// Missing commas.
		{name: "missing comma between members", in: `{"a":1 "b":2}`, out: `{"a":1 ,"b":2}`, n: all, done: true, rep: true},
		{name: "missing comma between elements", in: `[1 2]`, out: `[1 ,2]`, n: all, done: true, rep: true},
		{name: "missing comma after string across newline", in: "{\"a\":\"x\"\n\"b\":\"y\"}", out: "{\"a\":\"x\"\n,\"b\":\"y\"}", n: all, done: true, rep: true},
		{name: "missing comma between strings", in: `["a""b"]`, out: `["a","b"]`, n: all, done: true, rep: true},
		{name: "missing comma between objects", in: `[{}{}]`, out: `[{},{}]`, n: all, done: true, rep: true},
		{name: "missing comma before literal", in: `[1 true]`, out: `[1 ,true]`, n: all, done: true, rep: true},
		{name: "missing comma before unquoted key", in: `{"a":1 b:2}`, out: `{"a":1 ,"b":2}`, n: all, done: true, rep: true},
		// Trailing commas.
		{name: "trailing comma in array", in: `[1,]`, out: `[1]`, n: all, done: true, rep: true},
		{name: "trailing comma in object", in: `{"a":1,}`, out: `{"a":1}`, n: all, done: true, rep: true},
		{name: "trailing comma and whitespace", in: "{\"a\":1,\n}", out: `{"a":1}`, n: all, done: true, rep: true},
		{name: "trailing comma nested", in: `[[1,],{"a":[2,],},]`, out: `[[1],{"a":[2]}]`, n: all, done: true, rep: true},
		// Control characters in strings.
		{name: "raw newline", in: "{\"a\":\"x\ny\"}", out: `{"a":"x\ny"}`, n: all, done: true, rep: true},
		{name: "raw tab", in: "\"x\ty\"", out: `"x\ty"`, n: all, done: true, rep: true},
		{name: "raw carriage return", in: "\"x\ry\"", out: `"x\ry"`, n: all, done: true, rep: true},
		{name: "raw other control", in: "\"x\x01\x1fy\"", out: `"x\u0001\u001fy"`, n: all, done: true, rep: true},
		{name: "raw control in key", in: "{\"a\nb\":1}", out: `{"a\nb":1}`, n: all, done: true, rep: true},
		// Unquoted keys.
		{name: "unquoted key", in: `{city: "SF"}`, out: `{"city": "SF"}`, n: all, done: true, rep: true},
		{name: "unquoted keys with digits and underscore", in: `{a_1:1,B2 :2}`, out: `{"a_1":1,"B2" :2}`, n: all, done: true, rep: true},
		// Invalid escapes.
		{name: "invalid escape x", in: `"\x41"`, out: `"\\x41"`, n: all, done: true, rep: true},
		{name: "invalid escape regex", in: `{"re":"\d+\.\d"}`, out: `{"re":"\\d+\\.\\d"}`, n: all, done: true, rep: true},
		{name: "escaped apostrophe in double quotes", in: `"it\'s"`, out: `"it's"`, n: all, done: true, rep: true},
		{name: "bad hex in \\u", in: `"\u12G4"`, out: `"\\u12G4"`, n: all, done: true, rep: true},
		{name: "\\u cut by quote", in: `"\u1"`, out: `"\\u1"`, n: all, done: true, rep: true},
		{name: "backslash before raw newline", in: "\"a\\\nb\"", out: `"a\\\nb"`, n: all, done: true, rep: true},
		// Numbers.
		{name: "number with trailing dot", in: `[1.]`, out: `[1]`, n: all, done: true, rep: true},
		{name: "number dot exponent", in: `[1.e5]`, out: `[1e5]`, n: all, done: true, rep: true},
		{name: "number bare exponent", in: `[1e,2E+]`, out: `[1,2]`, n: all, done: true, rep: true},
		{name: "top-level number with trailing dot", in: `1. `, out: `1`, n: 2, done: true, rep: true},
		// Closers.
		{name: "mismatched closer closes inner array", in: `{"a":[1,2}`, out: `{"a":[1,2]}`, n: all, done: true, rep: true},
		{name: "mismatched closer closes inner object", in: `[{"a":1]`, out: `[{"a":1}]`, n: all, done: true, rep: true},
		{name: "key without value", in: `{"x":1,"a": }`, out: `{"x":1}`, n: all, done: true, rep: true},
		{name: "only key without value", in: `{"a":}`, out: `{}`, n: all, done: true, rep: true},
	})
}

func TestFinish(t *testing.T) {
	runCases(t, []scanCase{
		{name: "nothing", in: ``, nil: true, n: all},
		{name: "whitespace only", in: " \n\t", nil: true, n: all},
		{name: "open string", in: `{"a":"x`, out: `{"a":"x"}`, n: all, tr: true},
		{name: "open array", in: `[1,[2`, out: `[1,[2]]`, n: all, tr: true},
		{name: "open object after value", in: `{"a":{"b":true}`, out: `{"a":{"b":true}}`, n: all, tr: true},
		{name: "just a brace", in: `{`, out: `{}`, n: all, tr: true},
		{name: "just a bracket", in: `[`, out: `[]`, n: all, tr: true},
		{name: "cut true", in: `[tru`, out: `[true]`, n: all, tr: true},
		{name: "cut false", in: `fals`, out: `false`, n: all, tr: true},
		{name: "cut null", in: `{"a":nu`, out: `{"a":null}`, n: all, tr: true},
		{name: "cut python True", in: `Tru`, out: `true`, n: all, tr: true, rep: true},
		{name: "cut python None", in: `[Non`, out: `[null]`, n: all, tr: true, rep: true},
		{name: "cut python False", in: `{"a":F`, out: `{"a":false}`, n: all, tr: true, rep: true},
		{name: "dangling key", in: `{"a":1,"b"`, out: `{"a":1}`, n: all, tr: true},
		{name: "dangling open key", in: `{"a":1,"b`, out: `{"a":1}`, n: all, tr: true},
		{name: "dangling key before colon space", in: `{"a":1, "b" `, out: `{"a":1}`, n: all, tr: true},
		{name: "key without value", in: `{"a":`, out: `{}`, n: all, tr: true},
		{name: "key without value after member", in: `{"a":1,"b": `, out: `{"a":1}`, n: all, tr: true},
		{name: "dangling unquoted key", in: `{city`, out: `{}`, n: all, tr: true, rep: true},
		{name: "trailing comma in object", in: `{"a":1,`, out: `{"a":1}`, n: all, tr: true},
		{name: "trailing comma in array", in: `[1, `, out: `[1]`, n: all, tr: true},
		{name: "partial escape", in: `"x\`, out: `"x"`, n: all, tr: true},
		{name: "partial unicode escape", in: `"x\u12`, out: `"x"`, n: all, tr: true},
		{name: "partial unicode escape only u", in: `["x\u`, out: `["x"]`, n: all, tr: true},
		{name: "high surrogate alone", in: `"\ud83d`, out: `""`, n: all, tr: true},
		{name: "high surrogate then backslash", in: `"a\ud83d\`, out: `"a"`, n: all, tr: true},
		{name: "high surrogate then partial low", in: `{"e":"a\uD83D\uDE`, out: `{"e":"a"}`, n: all, tr: true},
		{name: "complete surrogate pair", in: `"\ud83d\ude00`, out: `"\ud83d\ude00"`, n: all, tr: true},
		{name: "high surrogate then other char", in: `"\ud83dx`, out: `"\ud83dx"`, n: all, tr: true},
		{name: "high surrogate in key dropped with key", in: `{"\ud83d`, out: `{}`, n: all, tr: true},
		{name: "number trailing dot", in: `[1.`, out: `[1]`, n: all, tr: true},
		{name: "number trailing e", in: `1e`, out: `1`, n: all, tr: true},
		{name: "number trailing e sign", in: `{"a":2.5E-`, out: `{"a":2.5}`, n: all, tr: true},
		{name: "number complete in array", in: `[12`, out: `[12]`, n: all, tr: true},
		{name: "minus in array", in: `[1,-`, out: `[1]`, n: all, tr: true},
		{name: "minus as first element", in: `[-`, out: `[]`, n: all, tr: true},
		{name: "minus as member value", in: `{"a":1,"b":-`, out: `{"a":1}`, n: all, tr: true},
		{name: "minus at top level", in: `-`, out: `null`, n: all, tr: true},
		{name: "nested dangling key", in: `{"a":[1,{"b":`, out: `{"a":[1,{}]}`, n: all, tr: true},
		{name: "open single-quoted string", in: `{'a':'it`, out: `{"a":"it"}`, n: all, tr: true, rep: true},
		{name: "open string with raw newline", in: "\"a\n", out: `"a\n"`, n: all, tr: true, rep: true},
	})
}

func TestWriteStops(t *testing.T) {
	runCases(t, []scanCase{
		{name: "markup after number in object", in: `{"a":1</tool_call>`, out: `{"a":1}`, n: 6, fail: true, tr: true},
		{name: "markup after string in object", in: `{"a":"x"</tool_call>`, out: `{"a":"x"}`, n: 8, fail: true, tr: true},
		{name: "markup where a value starts", in: `{"a":<b>`, out: `{}`, n: 5, fail: true, tr: true},
		{name: "markup at start", in: `<tool_call>`, n: 0, fail: true, nil: true},
		{name: "markup after whitespace", in: "  \n<x>", n: 3, fail: true, nil: true},
		{name: "unknown word", in: `hello`, n: 0, fail: true, nil: true},
		{name: "unknown word as value", in: `{"a": yes}`, out: `{}`, n: 6, fail: true, tr: true},
		{name: "bad literal", in: `[trux]`, out: `[true]`, n: 4, fail: true, tr: true},
		{name: "minus then letter", in: `-x`, out: `null`, n: 1, fail: true, tr: true},
		{name: "mismatched closer without match", in: `[1}`, out: `[1]`, n: 2, fail: true, tr: true},
		{name: "missing colon", in: `{"a" 1}`, out: `{}`, n: 5, fail: true, tr: true},
		{name: "double comma", in: `[1,,2]`, out: `[1]`, n: 3, fail: true, tr: true},
		{name: "closer at top", in: `]`, n: 0, fail: true, nil: true},
	})
}

func TestAccessors(t *testing.T) {
	var s Scanner
	assert.False(t, s.Started())
	n, done := s.Write([]byte("  "))
	assert.Equal(t, 2, n)
	assert.False(t, done)
	assert.False(t, s.Started())
	assert.Equal(t, 2, s.Len())

	s.Write([]byte(`{"a":[{"b":"<x`))
	assert.True(t, s.Started())
	assert.True(t, s.InString())
	assert.Equal(t, 3, s.Depth())
	assert.False(t, s.Done())
	assert.Equal(t, `{"a":[{"b":"<x`, string(s.Bytes()))

	s.Write([]byte(`\u00`))
	assert.True(t, s.InString())
	s.Write([]byte(`e9"}]`))
	assert.False(t, s.InString())
	assert.Equal(t, 1, s.Depth())
	n, done = s.Write([]byte(`}rest`))
	assert.Equal(t, 1, n)
	assert.True(t, done)
	assert.True(t, s.Done())
	assert.Equal(t, 0, s.Depth())
	n, done = s.Write([]byte(`}`))
	assert.Equal(t, 0, n)
	assert.True(t, done)
	assert.Nil(t, s.Err())

	s.Reset()
	assert.False(t, s.Started())
	assert.Equal(t, 0, s.Len())
	n, _ = s.Write([]byte(`{unquoted`))
	assert.Equal(t, 9, n)
	assert.False(t, s.InString(), "an unquoted key is not a quoted string")
	assert.True(t, s.Repaired())

	// Failure is sticky and the error names the offset.
	s.Reset()
	s.Write([]byte(`[1, 2`))
	n, _ = s.Write([]byte(` <x`))
	assert.Equal(t, 1, n)
	assert.True(t, s.Failed())
	require.Error(t, s.Err())
	assert.Contains(t, s.Err().Error(), "offset 6")
	n, done = s.Write([]byte(`]`))
	assert.Equal(t, 0, n)
	assert.False(t, done)

	// Finish is idempotent and ends writing.
	out, tr, rep := s.Finish()
	assert.Equal(t, `[1, 2 ]`, string(out))
	assert.True(t, tr)
	assert.False(t, rep)
	out2, tr2, rep2 := s.Finish()
	assert.Equal(t, string(out), string(out2))
	assert.Equal(t, tr, tr2)
	assert.Equal(t, rep, rep2)
}

func TestRepair(t *testing.T) {
	cases := []struct {
		name           string
		in             string
		out            string
		truncated, rep bool
		ok             bool
	}{
		{name: "valid", in: ` {"a":1} `, out: `{"a":1}`, ok: true},
		{name: "repeated objects", in: `{"a":1}{"a":1}`, out: `{"a":1}`, rep: true, ok: true},
		{name: "repeated with whitespace", in: "{\"a\":1}\n {\"a\":1}\n[2] 3", out: `{"a":1}`, rep: true, ok: true},
		{name: "trailing garbage", in: `{"a":1} and more`, out: `{"a":1}`, rep: true, ok: true},
		{name: "truncated", in: `{"a":[1,2`, out: `{"a":[1,2]}`, truncated: true, ok: true},
		{name: "stopped at markup", in: `{"a":1</tool_call>`, out: `{"a":1}`, truncated: true, rep: true, ok: true},
		{name: "python", in: `{'a': True}`, out: `{"a": true}`, rep: true, ok: true},
		{name: "top-level number", in: `42`, out: `42`, ok: true},
		{name: "not json", in: `hello {"a":1}`},
		{name: "empty", in: ``},
		{name: "whitespace", in: "  \n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, tr, rep, ok := Repair([]byte(tc.in))
			assert.Equal(t, tc.ok, ok, "ok")
			if !tc.ok {
				assert.Nil(t, out)
				return
			}
			assert.Equal(t, tc.out, string(out))
			assert.Equal(t, tc.truncated, tr, "truncated")
			assert.Equal(t, tc.rep, rep, "repaired")
			assert.True(t, json.Valid(out))
		})
	}
}

// TestFinishCutsInEscapes cuts a string at every byte of a \u escape and of
// a surrogate pair and checks what Finish makes of it.
func TestFinishCutsInEscapes(t *testing.T) {
	doc := `{"e":"a\u00e9\ud83d\ude00b"}`
	want := map[string]string{
		`{"e":"a`:                   `{"e":"a"}`,
		`{"e":"a\`:                  `{"e":"a"}`,
		`{"e":"a\u`:                 `{"e":"a"}`,
		`{"e":"a\u0`:                `{"e":"a"}`,
		`{"e":"a\u00`:               `{"e":"a"}`,
		`{"e":"a\u00e`:              `{"e":"a"}`,
		`{"e":"a\u00e9`:             `{"e":"a\u00e9"}`,
		`{"e":"a\u00e9\`:            `{"e":"a\u00e9"}`,
		`{"e":"a\u00e9\u`:           `{"e":"a\u00e9"}`,
		`{"e":"a\u00e9\ud`:          `{"e":"a\u00e9"}`,
		`{"e":"a\u00e9\ud8`:         `{"e":"a\u00e9"}`,
		`{"e":"a\u00e9\ud83`:        `{"e":"a\u00e9"}`,
		`{"e":"a\u00e9\ud83d`:       `{"e":"a\u00e9"}`, // half a pair
		`{"e":"a\u00e9\ud83d\`:      `{"e":"a\u00e9"}`, // between the halves
		`{"e":"a\u00e9\ud83d\u`:     `{"e":"a\u00e9"}`,
		`{"e":"a\u00e9\ud83d\ud`:    `{"e":"a\u00e9"}`,
		`{"e":"a\u00e9\ud83d\ude`:   `{"e":"a\u00e9"}`,
		`{"e":"a\u00e9\ud83d\ude0`:  `{"e":"a\u00e9"}`,
		`{"e":"a\u00e9\ud83d\ude00`: `{"e":"a\u00e9\ud83d\ude00"}`,
	}
	var s Scanner
	for i := 0; i <= len(doc); i++ {
		prefix := doc[:i]
		r := feed(t, &s, []byte(prefix), oneByteCuts(i)...)
		if i > 0 {
			require.True(t, json.Valid([]byte(r.Out)), "cut at %d: %q", i, r.Out)
		}
		if w, ok := want[prefix]; ok {
			assert.Equal(t, w, r.Out, "cut at %d", i)
			assert.True(t, r.Truncated)
			delete(want, prefix)
		}
	}
	assert.Empty(t, want, "cut points not visited")
	// Across Write calls of a real stream split inside the pair.
	s.Reset()
	s.Write([]byte(`"\ud83d`))
	s.Write([]byte(`\ude00"`))
	out, tr, rep := s.Finish()
	assert.Equal(t, `"\ud83d\ude00"`, string(out))
	assert.False(t, tr)
	assert.False(t, rep)
}

// TestResetNoAlloc checks that a scanner reused across Reset does not
// allocate once its buffers have grown.
func TestResetNoAlloc(t *testing.T) {
	doc := []byte(`{"a":[1,2.5e3,"x\ny",{"b":null}],"c":'single', d: True}`)
	var s Scanner
	s.Write(doc)
	s.Finish()
	allocs := testing.AllocsPerRun(100, func() {
		s.Reset()
		for i := 0; i < len(doc); i += 3 {
			s.Write(doc[i:min(i+3, len(doc))])
		}
		s.Finish()
	})
	assert.Zero(t, allocs)
}

func TestCopyThroughDecodesEqual(t *testing.T) {
	docs := []string{
		`{"a":1,"b":[1,2,{"c":"d"}],"e":null,"f":-1.5e-10}`,
		`"\u00e9\ud83d\ude00\ud83d"`,
		`[1e308, 0.1, -0, 12345678901234567890]`,
		` {"nested": {"deeper": [[], {}, [{}]]}} `,
	}
	for _, d := range docs {
		var s Scanner
		s.Write([]byte(d))
		out, tr, rep := s.Finish()
		assert.False(t, tr)
		assert.False(t, rep)
		assert.Equal(t, strings.TrimSpace(d), string(out))
		assertSameValue(t, []byte(d), out)
	}
}

func assertSameValue(t testing.TB, in, out []byte) {
	t.Helper()
	a, err := decode(in)
	require.NoError(t, err, "input %q", in)
	b, err := decode(out)
	require.NoError(t, err, "output %q", out)
	assert.Equal(t, a, b)
}

// decode decodes one JSON value, keeping numbers as json.Number so that
// values outside float64's range compare too.
func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func trimJSONSpace(b []byte) []byte {
	return bytes.Trim(b, " \t\r\n")
}

// TestStable: fed one byte at a time, what Stable reports of the copy is
// never changed by later bytes or by Finish: not the whitespace after an
// opener when a dangling key is dropped, not a number's tail cut back, not
// an escape read again, not a trailing comma.
func TestStable(t *testing.T) {
	for _, in := range []string{
		`{ 0`, `{"":0."0"0`, `{"a": 1.e5, "b": [1, 2,], "c": "x\u12G"}`, `{"a": "\ud83d`, `{"a": "\ud83d\ude00", "b": tru`,
		`[1, 2, `, `{"a": {"b": 1,}, "c"`, `{'a': 'it''s', b: None}`,
	} {
		var s Scanner
		var stable []byte
		for i := range len(in) {
			s.Write([]byte{in[i]})
			require.True(t, bytes.HasPrefix(s.Bytes(), stable), "%q after byte %d: %q was stable, copy %q", in, i, stable, s.Bytes())
			if k := s.Stable(); k > len(stable) {
				stable = append(stable, s.Bytes()[len(stable):k]...)
			}
		}
		out, _, _ := s.Finish()
		require.True(t, bytes.HasPrefix(out, stable), "%q: %q was stable, finished %q", in, stable, out)
	}
}

// TestWriteBody: a string body cut anywhere (in an escape too) and given
// piece by piece to WriteBody leaves the scanner as Write does.
func TestWriteBody(t *testing.T) {
	body := `ab\"c\\\\d\n日\/x\\` + `\t` + strings.Repeat(`y\\`, 9) + `z`
	for _, open := range []string{`{"k":"`, `['`, `{"`} {
		for i := 0; i <= len(body); i++ {
			for j := i; j <= len(body); j++ {
				var want, got Scanner
				want.Write([]byte(open + body))
				got.Write([]byte(open))
				for _, p := range []string{body[:i], body[i:j], body[j:]} {
					got.WriteBody([]byte(p))
				}
				require.Equal(t, want.String(), got.String())
				require.Equal(t, string(want.Bytes()), string(got.Bytes()))
				require.Equal(t, want.Stable(), got.Stable())
				wOut, wt, wr := want.Finish()
				gOut, gt, gr := got.Finish()
				require.Equal(t, string(wOut), string(gOut), "cuts %d %d", i, j)
				require.Equal(t, []bool{wt, wr}, []bool{gt, gr})
				require.Equal(t, want.Len(), got.Len())
			}
		}
	}
}

// sgl-project/sglang#3960 quotes Qwen2.5 writing a hermes call object with
// its braces doubled, as a template escapes them: the object is the inner
// one, the doubled '}' after it belongs to the value. Only the top-level
// object's brace is read so.
func TestDoubledBraces(t *testing.T) {
	runCases(t, []scanCase{
		{name: "doubled", in: `{{"a":1}}`, out: `{"a":1}`, n: all, done: true, rep: true},
		{name: "doubled call object", in: `{{"name": "f", "arguments": {"x": 1}}}`, out: `{"name": "f", "arguments": {"x": 1}}`, n: all, done: true, rep: true},
		{name: "doubled with spaces", in: `{ {"a":1} }`, out: `{ "a":1}`, n: all, done: true, rep: true},
		{name: "doubled closer left out, markup after", in: "{{\"a\":1}\n</x>", out: `{"a":1}`, n: 9, done: true, rep: true},
		{name: "doubled closer left out at the end", in: `{{"a":1}`, out: `{"a":1}`, n: all, rep: true},
		{name: "tripled", in: `{{{"a":1}}}`, out: `{}`, n: 2, fail: true, tr: true, rep: true},
		{name: "doubled inside an array", in: `[{{"a":1}}]`, out: `[{}]`, n: 2, fail: true, tr: true},
	})
}
