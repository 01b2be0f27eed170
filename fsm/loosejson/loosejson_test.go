package loosejson

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The delimiters of the two formats.
const (
	gemma = `<|"|>`    // Gemma 4
	fgem  = `<escape>` // FunctionGemma
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
}

// feed runs a fresh scanner over in, cut at the given positions (ascending),
// then finishes it. A chunk that is not fully consumed ends the feeding, as
// a caller would do.
func feed(t testing.TB, s *Scanner, delim string, in []byte, cuts ...int) result {
	t.Helper()
	s.Reset(delim)
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
	if r.Done && !json.Valid(s.Bytes()) {
		t.Fatalf("done but output is not valid JSON: %q", s.Bytes())
	}
	out, tr := s.Finish()
	r.Out, r.Nil, r.Truncated = string(out), out == nil, tr
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
func checkChunking(t *testing.T, delim string, in []byte) result {
	t.Helper()
	var s Scanner
	whole := feed(t, &s, delim, in)
	require.Equal(t, whole, feed(t, &s, delim, in, oneByteCuts(len(in))...), "1-byte chunks")
	for i := 0; i <= len(in); i++ {
		require.Equal(t, whole, feed(t, &s, delim, in, i), "split at %d", i)
	}
	return whole
}

type scanCase struct {
	name  string
	delim string
	in    string
	out   string // expected Finish output
	n     int    // expected bytes consumed; -1 means len(in)
	done  bool   // Done before Finish
	fail  bool   // Failed, with the error at offset n
	tr    bool   // Finish reported truncated
	nil   bool   // Finish returns nil
}

func runCases(t *testing.T, cases []scanCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := checkChunking(t, tc.delim, []byte(tc.in))
			checkStable(t, tc.delim, []byte(tc.in), oneByteCuts(len(tc.in)))
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
			if !r.Nil {
				assert.True(t, json.Valid([]byte(r.Out)), "output is not valid JSON: %q", r.Out)
			}
		})
	}
}

// done is a complete object consumed whole.
func done(name, delim, in, out string) scanCase {
	return scanCase{name: name, delim: delim, in: in, out: out, n: -1, done: true}
}

func TestCanonical(t *testing.T) {
	runCases(t, []scanCase{
		done("gemma4", gemma,
			`{location:<|"|>Paris, France<|"|>,days:5,units:<|"|>C<|"|>}`,
			`{"location":"Paris, France","days":5,"units":"C"}`),
		done("functiongemma", fgem,
			`{location:<escape>Paris<escape>,n:5}`,
			`{"location":"Paris","n":5}`),
		done("functiongemma multiline", fgem,
			"{path:<escape>a.txt<escape>,content:<escape>line 1\nline 2\n<escape>}",
			`{"path":"a.txt","content":"line 1\nline 2\n"}`),
		done("gemma4 template nesting", gemma,
			`{nested:{inner:<|"|>value<|"|>},list:[<|"|>a<|"|>,<|"|>b<|"|>]}`,
			`{"nested":{"inner":"value"},"list":["a","b"]}`),
		done("gemma4 delimited dict key", gemma,
			`{record_map:{<|"|>3<|"|>:<|"|>new text<|"|>}}`,
			`{"record_map":{"3":"new text"}}`),
		done("empty", gemma, `{}`, `{}`),
		done("empty with space", gemma, " \n{ \n}", `{}`),
		done("empty containers", gemma, `{a:{},b:[],c:[{}],d:{e:[]}}`, `{"a":{},"b":[],"c":[{}],"d":{"e":[]}}`),
	})
}

func TestValueTypes(t *testing.T) {
	runCases(t, []scanCase{
		done("delimited string", gemma, `{s:<|"|>x y<|"|>}`, `{"s":"x y"}`),
		done("empty delimited string", gemma, `{s:<|"|><|"|>}`, `{"s":""}`),
		done("integers", gemma, `{a:0,b:-0,c:42,d:-7,e:12345678901234567890}`, `{"a":0,"b":-0,"c":42,"d":-7,"e":12345678901234567890}`),
		done("floats", gemma, `{a:3.25,b:-0.5,c:1e-3,d:2E+5,e:6.02e23}`, `{"a":3.25,"b":-0.5,"c":1e-3,"d":2E+5,"e":6.02e23}`),
		done("leading zero is a string", gemma, `{zip:020,z2:-007,z3:00}`, `{"zip":"020","z2":"-007","z3":"00"}`),
		done("cut number tail", gemma, `{a:1.,b:2e,c:3e+}`, `{"a":1,"b":2,"c":3}`),
		done("literals", gemma, `{t:true,f:false,n:null}`, `{"t":true,"f":false,"n":null}`),
		done("python literals", gemma, `{t:True,f:False,n:None}`, `{"t":true,"f":false,"n":null}`),
		done("json strings", gemma, `{q:"say \"hi\"\n\u00e9\/",k:"<|\"|>"}`, `{"q":"say \"hi\"\n\u00e9\/","k":"<|\"|>"}`),
		done("single-quoted strings", gemma, `{q:'it\'s "x"',r:'a,b'}`, `{"q":"it's \"x\"","r":"a,b"}`),
		done("bare words", gemma,
			`{unit:celsius,q:New York ,v:1.2.3,m:-,p:+5,w:nan,x:1 2,y:truex,z:nil}`,
			`{"unit":"celsius","q":"New York","v":"1.2.3","m":"-","p":"+5","w":"nan","x":"1 2","y":"truex","z":"nil"}`),
		done("bare word with quotes and brackets", gemma, `{a:say "hi" (x){:y}`, `{"a":"say \"hi\" (x){:y"}`),
		done("bare word that looks like a delimiter", fgem, `{a:<div>,b:<esc x}`, `{"a":"<div>","b":"<esc x"}`),
		done("nested objects", gemma, `{a:{b:{c:{d:1}}}}`, `{"a":{"b":{"c":{"d":1}}}}`),
		done("nested arrays", gemma, `{a:[1,[2,[3,{d:<|"|>e<|"|>}]],[]]}`, `{"a":[1,[2,[3,{"d":"e"}]],[]]}`),
		done("array of objects", gemma,
			`{todos:[{content:<|"|>Buy milk<|"|>,status:<|"|>pending<|"|>},{content:<|"|>Walk<|"|>,done:true}]}`,
			`{"todos":[{"content":"Buy milk","status":"pending"},{"content":"Walk","done":true}]}`),
		done("mixed array", gemma, `{a:[<|"|>s<|"|>,1,-2.5,true,None,{},[],"q",w]}`, `{"a":["s",1,-2.5,true,null,{},[],"q","w"]}`),
		done("key forms", gemma, `{"a":1,'b':2,<|"|>c d<|"|>:3,e.f-g_h:4,$ref:5,9x:6}`, `{"a":1,"b":2,"c d":3,"e.f-g_h":4,"$ref":5,"9x":6}`),
		done("key escapes", gemma, `{<|"|>say "x"<|"|>:1}`, `{"say \"x\"":1}`),
		done("equals separator", gemma, `{data_refs=["ds_1"],n = 2}`, `{"data_refs":["ds_1"],"n":2}`),
		done("empty value", gemma, `{a:,b: }`, `{"a":"","b":""}`),
		done("trailing commas", gemma, `{a:[1,2,],b:{c:1,},}`, `{"a":[1,2],"b":{"c":1}}`),
		done("doubled commas", gemma, `{a:[1,,2],,b:3}`, `{"a":[1,2],"b":3}`),
	})
}

func TestStringContent(t *testing.T) {
	runCases(t, []scanCase{
		done("structural bytes", gemma, `{s:<|"|>{a:b}, [c]: "d" \e<|"|>}`, `{"s":"{a:b}, [c]: \"d\" \\e"}`),
		done("control characters", gemma, "{s:<|\"|>a\nb\tc\rd\x01e\x1f<|\"|>}", `{"s":"a\nb\tc\rd\u0001e\u001f"}`),
		done("gemma partial delimiters", gemma,
			`{s:<|"|>a < b <| c <|" d <|"| e <<|"|>,t:<|"|><<<|"|>}`,
			`{"s":"a < b <| c <|\" d <|\"| e <","t":"<<"}`),
		done("functiongemma partial delimiters", fgem,
			`{s:<escape>a<esc b <escap c<escape<escape>}`,
			`{"s":"a<esc b <escap c<escape"}`),
		done("markers are content", gemma, `{s:<|"|><tool_call|>x<|tool_call><|"|>}`, `{"s":"<tool_call|>x<|tool_call>"}`),
		done("other delimiter is content", gemma, `{s:<|"|><escape><|"|>}`, `{"s":"<escape>"}`),
		done("unicode", gemma, `{city:<|"|>東京 🌸 café<|"|>,k:"é\u00e9",w:Zürich}`, `{"city":"東京 🌸 café","k":"é\u00e9","w":"Zürich"}`),
		done("quoted string escapes", gemma, "{a:\"x\ty\",b:\"\\d\",c:\"\\u12G\",d:\"\\'\"}", `{"a":"x\ty","b":"\\d","c":"\\u12G","d":"'"}`),
		done("spaces everywhere", gemma,
			" \n {\n  location : <|\"|> Paris <|\"|> ,\n\tdays :\t5 , flags : [ true , false , 1.5 ] , o : { a : b } ,\n}",
			`{"location":" Paris ","days":5,"flags":[true,false,1.5],"o":{"a":"b"}}`),
		done("no delimiter", "", `{a:"x",b:<y>}`, `{"a":"x","b":"<y>"}`),
	})
}

// TestRepairs covers the breakage reported from Gemma 4 deployments.
func TestRepairs(t *testing.T) {
	runCases(t, []scanCase{
		// sgl-project/sglang#39240: the opening delimiter is left out.
		done("missing opening delimiter", gemma, `{query:weather in Tokyo<|"|>,limit:5}`, `{"query":"weather in Tokyo","limit":5}`),
		done("missing opening delimiter before number", gemma, `{n:5<|"|>}`, `{"n":"5"}`),
		// vllm-project/vllm#39440: the closing delimiter is left out.
		done("missing closing delimiter", gemma, `{oldText:<|"|>code with }],path:<|"|>file.txt<|"|>}`, `{"oldText":"code with }]","path":"file.txt"}`),
		done("missing closing delimiter with spaces", gemma, `{a:<|"|>x, b : <|"|> hi<|"|>}`, `{"a":"x","b":" hi"}`),
		done("missing closing delimiter in array", gemma, `{a:[<|"|>x, <|"|>y<|"|>]}`, `{"a":["x","y"]}`),
		done("content that only looks cut", gemma, `{a:<|"|>x,k:<|"|> ,b:[<|"|>y,<|"|>]}`, `{"a":"x,k:","b":["y,"]}`),
		// hybridgroup/yzma#243: the comma between members is left out.
		done("missing comma", gemma, `{command:<|"|>look<|"|>angle:90}`, `{"command":"look","angle":90}`),
		done("missing comma before delimited key", gemma, `{a:"x"<|"|>b<|"|>:1}`, `{"a":"x","b":1}`),
		done("missing comma in array", gemma, `{a:["x" "y" {}[]]}`, `{"a":["x","y",{},[]]}`),
		// vllm-project/vllm#51284: plain JSON inside containers.
		done("json inside containers", gemma, `{refs:["ds_1"],opts:{"mode": "fast"},q:['a']}`, `{"refs":["ds_1"],"opts":{"mode":"fast"},"q":["a"]}`),
		done("literal closed by delimiter is a string", gemma, `{flag:true<|"|>}`, `{"flag":"true"}`),
		{name: "mismatched closer", delim: gemma, in: `{a:[1}}`, out: `{"a":[1]}`, n: 6, done: true},
	})
}

func TestStopsAfterObject(t *testing.T) {
	runCases(t, []scanCase{
		{name: "end marker", delim: gemma, in: `{a:1}<tool_call|>`, out: `{"a":1}`, n: 5, done: true},
		{name: "second object", delim: gemma, in: `{}{}`, out: `{}`, n: 2, done: true},
		{name: "functiongemma end", delim: fgem, in: `{a:<escape>x<escape>}<end_function_call>`, out: `{"a":"x"}`, n: 21, done: true},
	})
}

func TestFailures(t *testing.T) {
	deep := strings.Repeat("{a:", MaxDepth)
	runCases(t, []scanCase{
		{name: "not an object", delim: gemma, in: `[1]`, n: 0, fail: true, nil: true},
		{name: "not an object after space", delim: gemma, in: "  x{}", n: 2, fail: true, nil: true},
		{name: "string at top", delim: gemma, in: `<|"|>x<|"|>`, n: 0, fail: true, nil: true},
		{name: "key without colon", delim: gemma, in: `{key}`, out: `{}`, n: 4, fail: true, tr: true},
		{name: "quoted key without colon", delim: gemma, in: `{"a" 1}`, out: `{}`, n: 5, fail: true, tr: true},
		{name: "unbalanced closer", delim: gemma, in: `{a:1]`, out: `{"a":1}`, n: 4, fail: true, tr: true},
		{name: "unbalanced closer in array", delim: gemma, in: `{a:[{b:1]]}`, out: `{"a":[{"b":1}]}`, n: 9, fail: true, tr: true},
		{name: "colon as key", delim: gemma, in: `{a:1,:2}`, out: `{"a":1}`, n: 5, fail: true, tr: true},
		{name: "control byte as value", delim: gemma, in: "{a:\x01}", out: `{}`, n: 3, fail: true, tr: true},
		{name: "prose", delim: gemma, in: `{see the docs}`, out: `{}`, n: 5, fail: true, tr: true},
		{name: "prose with colon", delim: gemma, in: `{see: the docs, ok}`, out: `{"see":"the docs"}`, n: 18, fail: true, tr: true},
		{name: "prose cut off", delim: gemma, in: `{see: the docs, ok`, out: `{"see":"the docs"}`, n: 18, tr: true},
		{name: "too deep", delim: gemma, in: deep + `{}`, out: strings.Repeat(`{"a":`, MaxDepth-1) + `{}` + strings.Repeat("}", MaxDepth-1), n: len(deep), fail: true, tr: true},
		{name: "too deep array", delim: gemma, in: "{a:" + strings.Repeat("[", MaxDepth), out: `{"a":` + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1) + "}", n: 3 + MaxDepth - 1, fail: true, tr: true},
	})
}

func TestDepthLimit(t *testing.T) {
	in := strings.Repeat("{a:", MaxDepth-1) + "{}" + strings.Repeat("}", MaxDepth-1)
	var s Scanner
	r := feed(t, &s, gemma, []byte(in))
	assert.True(t, r.Done)
	assert.False(t, r.Failed)
}

func TestFinish(t *testing.T) {
	tr := func(name, in, out string) scanCase {
		return scanCase{name: name, delim: gemma, in: in, out: out, n: -1, tr: true}
	}
	runCases(t, []scanCase{
		{name: "nothing", delim: gemma, in: ``, n: 0, nil: true},
		{name: "only space", delim: gemma, in: " \n ", n: -1, nil: true},
		tr("open brace", `{`, `{}`),
		tr("inside a string", `{a:<|"|>Par`, `{"a":"Par"}`),
		tr("inside a closing delimiter", `{a:<|"|>Paris<|"`, `{"a":"Paris"}`),
		tr("inside an opening delimiter", `{x:1,a:<|"`, `{"x":1}`),
		tr("inside a quoted string", `{a:"x\"y`, `{"a":"x\"y"}`),
		tr("inside an escape", `{a:"x\`, `{"a":"x"}`),
		tr("inside a unicode escape", `{a:"x\u00`, `{"a":"x"}`),
		tr("inside a key", `{a:1,bc`, `{"a":1}`),
		tr("inside a delimited key", `{a:1,<|"|>b`, `{"a":1}`),
		tr("after a key", `{a:1,b `, `{"a":1}`),
		tr("after colon", `{a:1,b:`, `{"a":1}`),
		tr("after comma", `{a:1,`, `{"a":1}`),
		tr("inside a nested array", `{a:[1,{b:[<|"|>x`, `{"a":[1,{"b":["x"]}]}`),
		tr("after array element", `{a:[1,2`, `{"a":[1,2]}`),
		tr("number", `{a:12`, `{"a":12}`),
		tr("number tail", `{a:1.`, `{"a":1}`),
		tr("lone minus", `{x:1,a:-`, `{"x":1}`),
		tr("leading zero", `{a:01`, `{"a":"01"}`),
		tr("cut literal", `{x:1,a:tru`, `{"x":1}`),
		tr("cut literal in array", `{a:[1,Fals`, `{"a":[1]}`),
		tr("literal", `{a:true`, `{"a":true}`),
		tr("bare word", `{a:word `, `{"a":"word"}`),
		tr("bare word with partial delimiter", `{a:Tokyo<|"`, `{"a":"Tokyo"}`),
		tr("suspect value", `{a:<|"|>x,b:<|"|>  `, `{"a":"x,b:"}`),
		tr("nested objects", `{a:{b:{c:<|"|>d`, `{"a":{"b":{"c":"d"}}}`),
	})
}

func TestFinishAfterFailure(t *testing.T) {
	var s Scanner
	s.Reset(gemma)
	n, _ := s.Write([]byte(`{a:[1,{b:<|"|>x<|"|>}]]`))
	assert.Equal(t, 22, n)
	assert.True(t, s.Failed())
	n, done := s.Write([]byte(`}`))
	assert.Equal(t, 0, n)
	assert.False(t, done)
	out, tr := s.Finish()
	assert.Equal(t, `{"a":[1,{"b":"x"}]}`, string(out))
	assert.True(t, tr)
}

func TestAccessors(t *testing.T) {
	var s Scanner
	s.Reset(gemma)
	assert.False(t, s.Started())
	s.Write([]byte("  "))
	assert.False(t, s.Started())
	s.Write([]byte(`{a:<|`))
	assert.True(t, s.Started())
	assert.False(t, s.InString(), "inside the opening delimiter")
	s.Write([]byte(`"|>x<|"`))
	assert.True(t, s.InString(), "inside the closing delimiter")
	s.Write([]byte(`|>`))
	assert.False(t, s.InString())
	s.Write([]byte(`,b:"x`))
	assert.True(t, s.InString())
	assert.Equal(t, `{"a":"x","b":"x`, string(s.Bytes()))
	n, done := s.Write([]byte(`"}rest`))
	assert.Equal(t, 2, n)
	assert.True(t, done)
	assert.True(t, s.Done())
	assert.NoError(t, s.Err())
	assert.Equal(t, 23, s.Len())
	out, tr := s.Finish()
	assert.Equal(t, `{"a":"x","b":"x"}`, string(out))
	assert.False(t, tr)
	assert.Contains(t, s.String(), "after the object")

	s.Reset(gemma)
	s.Write([]byte(`{a b}`))
	err := s.Err()
	var se *SyntaxError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, SyntaxError{Scanner: "loosejson", Offset: 3, Byte: 'b', Where: "after an object key"}, *se)
	assert.Equal(t, `loosejson: unexpected byte 'b' at offset 3 after an object key`, err.Error())
}

func TestStable(t *testing.T) {
	var s Scanner
	s.Reset(gemma)
	steps := []struct{ in, stable string }{
		{`{a:<|"|>Par`, `{"a":"Par`},
		{`is, France`, `{"a":"Paris`},     // ", France" might be `,key:` of a cut value
		{`<|"|>`, `{"a":"Paris, France"`}, // no ':' after France: not cut
		{`,`, `{"a":"Paris, France"`},
		{`n:12`, `{"a":"Paris, France"`},
		{`,`, `{"a":"Paris, France","n":12`},
		{`b:"x\`, `{"a":"Paris, France","n":12,"b":"x`},
		{`u0041"}`, `{"a":"Paris, France","n":12,"b":"x\u0041"}`},
	}
	for _, st := range steps {
		s.Write([]byte(st.in))
		assert.Equal(t, st.stable, string(s.Bytes()[:s.Stable()]), "after %q", st.in)
	}
}

func TestResetPanicsOnLongDelimiter(t *testing.T) {
	var s Scanner
	assert.Panics(t, func() { s.Reset(strings.Repeat("x", MaxDelim+1)) })
	assert.NotPanics(t, func() { s.Reset(strings.Repeat("x", MaxDelim)) })
}

// TestOddDelimiters checks delimiters that overlap themselves or the
// grammar, where the partial match must fall back correctly.
func TestOddDelimiters(t *testing.T) {
	runCases(t, []scanCase{
		done("self-overlapping", "aab", `{s:aabaaaab,t:aabxaaab}`, `{"s":"aa","t":"xa"}`),
		done("self-overlapping key", "aab", `{aax:1,aab1aab:2}`, `{"aax":1,"1":2}`),
		done("one byte", "|", `{s:|a,b|,t:x|}`, `{"s":"a,b","t":"x"}`),
		done("quote", `"`, `{s:"a\b",t:'c'}`, `{"s":"a\\b","t":"c"}`),
	})
}

func TestResetNoAlloc(t *testing.T) {
	in := []byte(`{location:<|"|>Paris, France<|"|>,days:5,x:[1,{a:b}],q:"s\n",w:<|"|>x,k:<|"|>y<|"|>}`)
	var s Scanner
	s.Reset(gemma)
	s.Write(in)
	allocs := testing.AllocsPerRun(100, func() {
		s.Reset(gemma)
		for i := 0; i < len(in); i += 3 {
			s.Write(in[i:min(i+3, len(in))])
		}
		s.Finish()
	})
	assert.Zero(t, allocs)
}

// TestDecodesAsExpected decodes the output of realistic calls and compares
// values rather than bytes.
func TestDecodesAsExpected(t *testing.T) {
	in := "{file_path:<|\"|>src/env.py<|\"|>,old_string:<|\"|>x = \"a\"\n\tif y {<|\"|>,new_string:<|\"|>x = 'b'<|\"|>,replace_all:false,limits:{max:3,ratio:0.5},tags:[<|\"|>a<|\"|>,<|\"|>b, c<|\"|>]}"
	var s Scanner
	r := feed(t, &s, gemma, []byte(in))
	require.True(t, r.Done)
	var got any
	require.NoError(t, json.Unmarshal([]byte(r.Out), &got))
	want := map[string]any{
		"file_path":   "src/env.py",
		"old_string":  "x = \"a\"\n\tif y {",
		"new_string":  "x = 'b'",
		"replace_all": false,
		"limits":      map[string]any{"max": 3.0, "ratio": 0.5},
		"tags":        []any{"a", "b, c"},
	}
	assert.Equal(t, want, got)
}

// ollama/ollama#15315: a string value opened with a quote and closed with
// the delimiter, with or without its closing quote before it. The
// delimiter after a quoted value closes it only where a ',' or a closer
// follows; elsewhere it opens the next key, its comma left out.
func TestMismatchedDelimiter(t *testing.T) {
	runCases(t, []scanCase{
		done("quote then delimiter", gemma, `{a:'x<|"|>,b:1}`, `{"a":"x","b":1}`),
		done("quoted then delimiter", gemma, `{include:<|"|>*.py<|"|>,pattern:':\s*\w+'<|"|>}`, `{"include":"*.py","pattern":":\\s*\\w+"}`),
		done("double quote then delimiter", gemma, `{a:"x"<|"|>,b:"y<|"|>}`, `{"a":"x","b":"y"}`),
		done("quoted then delimiter in array", gemma, `{a:['x'<|"|>,'y'<|"|>]}`, `{"a":["x","y"]}`),
		done("delimiter then key after quoted value", gemma, `{a:"x"<|"|>b<|"|>:1}`, `{"a":"x","b":1}`),
		done("delimiter then element after quoted value", gemma, `{a:["x"<|"|>y<|"|>]}`, `{"a":["x","y"]}`),
		done("key quotes stay quotes", gemma, `{'a<|"|>b':1}`, `{"a<|\"|>b":1}`),
		done("delimiter bytes in a quoted value", gemma, `{a:'x<|y'}`, `{"a":"x<|y"}`),
		{name: "not a delimiter after a quoted value", delim: gemma, in: `{a:'x'<|y}`, n: 8, fail: true, out: `{"a":"x"}`, tr: true},
	})
	var s Scanner
	for in, want := range map[string]bool{`{a:'x<|"|>}`: true, `{a:'x'<|"|>}`: true, `{a:'x'}`: false, `{a:"x"<|"|>b<|"|>:1}`: false, `{a:<|"|>x<|"|>}`: false} {
		feed(t, &s, gemma, []byte(in))
		assert.Equal(t, want, s.Mismatched(), in)
	}
}

// TestTake checks that Take hands over the output, which the next object
// does not overwrite, and that the scanner writes that object in the room
// it was given.
func TestTake(t *testing.T) {
	var s Scanner
	room := make([]byte, 0, 64)
	r := feed(t, &s, "", []byte(`{a: 1}`))
	taken := s.Take(room)
	r2 := feed(t, &s, "", []byte(`{b: 'two'}`))
	assert.Equal(t, `{"a":1}`, r.Out)
	assert.Equal(t, `{"a":1}`, string(taken))
	assert.Equal(t, `{"b":"two"}`, r2.Out)
	assert.Same(t, &room[:1][0], &s.Bytes()[0], "the next object is written in the room given")
}
