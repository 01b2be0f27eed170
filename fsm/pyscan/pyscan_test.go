package pyscan

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// result is everything a run of the scanner reports.
type result struct {
	Calls     []string // "name args" for each CallDone
	Status    Status   // ListDone, Failed, or More when the input ran out
	N         int      // bytes consumed over all writes
	ErrOffset int      // offset named by Err (-1 when nil)
	Started   bool
	Fin       string // "name args" from Finish, "" when not ok
	FinTrunc  bool
}

// feed runs s, reset to mode, over in cut at the given positions
// (ascending), then finishes it. It writes each chunk until it is used up,
// the list is done or the scanner failed, as a caller would, and checks the
// Write contract on the way.
func feed(t testing.TB, s *Scanner, mode Mode, in []byte, cuts ...int) result {
	t.Helper()
	s.Reset(mode)
	r := result{Status: More, ErrOffset: -1}
	prev := 0
	cuts = append(cuts, len(in))
feeding:
	for _, cut := range cuts {
		chunk := in[prev:cut]
		prev = cut
		for len(chunk) > 0 {
			n, st := s.Write(chunk)
			if n < 0 || n > len(chunk) {
				t.Fatalf("Write consumed %d of %d bytes", n, len(chunk))
			}
			r.N += n
			chunk = chunk[n:]
			switch st {
			case CallDone:
				if !json.Valid(s.Args()) {
					t.Fatalf("invalid JSON args %q for input %q", s.Args(), in)
				}
				r.Calls = append(r.Calls, string(s.Name())+" "+string(s.Args()))
				if s.Calls() != len(r.Calls) {
					t.Fatalf("Calls()=%d after %d calls", s.Calls(), len(r.Calls))
				}
			case More:
				if len(chunk) != 0 {
					t.Fatalf("Write returned More with %d bytes left", len(chunk))
				}
			case ListDone, Failed:
				r.Status = st
				break feeding
			}
		}
	}
	if r.N != s.Len() {
		t.Fatalf("consumed %d bytes but Len()=%d", r.N, s.Len())
	}
	if r.Status == Failed != s.Failed() {
		t.Fatalf("status %v but Failed()=%v", r.Status, s.Failed())
	}
	if err := s.Err(); err != nil {
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("Err() is %T, want *SyntaxError", err)
		}
		r.ErrOffset = se.Offset
		if se.Offset != r.N {
			t.Fatalf("error offset %d but consumed %d", se.Offset, r.N)
		}
	}
	r.Started = s.Started()
	name, args, tr, ok := s.Finish()
	if ok {
		if !json.Valid(args) {
			t.Fatalf("invalid JSON from Finish %q for input %q", args, in)
		}
		r.Fin = string(name) + " " + string(args)
		r.FinTrunc = tr
	}
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
func checkChunking(t *testing.T, mode Mode, in []byte) result {
	t.Helper()
	var s Scanner
	whole := feed(t, &s, mode, in)
	require.Equal(t, whole, feed(t, &s, mode, in, oneByteCuts(len(in))...), "1-byte chunks")
	for i := 0; i <= len(in); i++ {
		require.Equal(t, whole, feed(t, &s, mode, in, i), "split at %d", i)
	}
	return whole
}

type pyCase struct {
	name  string
	mode  Mode
	in    string
	calls []string // "name args" of the completed calls
	st    Status   // final status (More when the input ran out)
	n     int      // bytes consumed; all means len(in)
	fin   string   // "name args" Finish returns, "" for ok=false
}

const all = -1

func runCases(t *testing.T, cases []pyCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := checkChunking(t, tc.mode, []byte(tc.in))
			n := tc.n
			if n == all {
				n = len(tc.in)
			}
			assert.Equal(t, tc.calls, r.Calls, "calls")
			assert.Equal(t, tc.st, r.Status, "status")
			assert.Equal(t, n, r.N, "consumed")
			if tc.st == Failed {
				assert.Equal(t, n, r.ErrOffset, "error offset")
			} else {
				assert.Equal(t, -1, r.ErrOffset, "error offset")
			}
			assert.Equal(t, tc.fin, r.Fin, "finish")
			assert.Equal(t, tc.fin != "", r.FinTrunc, "truncated")
		})
	}
}

func TestCanonical(t *testing.T) {
	runCases(t, []pyCase{
		{name: "llama example", in: `[get_weather(city='San Francisco', metric="celsius"), register_user(name='Doe', age=9, tags=['a','b'], extra={'k': None}, ok=True)]`,
			calls: []string{
				`get_weather {"city":"San Francisco","metric":"celsius"}`,
				`register_user {"name":"Doe","age":9,"tags":["a","b"],"extra":{"k":null},"ok":true}`,
			}, st: ListDone, n: all},
		{name: "single call", in: `[get_weather(city="Paris")]`, calls: []string{`get_weather {"city":"Paris"}`}, st: ListDone, n: all},
		{name: "no args", in: `[f()]`, calls: []string{`f {}`}, st: ListDone, n: all},
		{name: "no args with space", in: `[f( )]`, calls: []string{`f {}`}, st: ListDone, n: all},
		{name: "dotted name", in: `[functions.get_time(tz='UTC')]`, calls: []string{`functions.get_time {"tz":"UTC"}`}, st: ListDone, n: all},
		{name: "dashed name", in: `[get-time()]`, calls: []string{`get-time {}`}, st: ListDone, n: all},
		{name: "empty list", in: `[]`, st: ListDone, n: all},
		{name: "bytes after the list not consumed", in: `[f()]<|python_end|>`, calls: []string{`f {}`}, st: ListDone, n: 5},
		{name: "leading whitespace", in: " \n\t[f()]", calls: []string{`f {}`}, st: ListDone, n: all},
		{name: "calls without comma", in: `[f() g()]`, calls: []string{`f {}`, `g {}`}, st: ListDone, n: all},
		{name: "trailing comma after last call", in: `[f(), g(),]`, calls: []string{`f {}`, `g {}`}, st: ListDone, n: all},
		{name: "calls on lines inside list", in: "[\n  f(a=1),\n  g(b=2)\n]", calls: []string{`f {"a":1}`, `g {"b":2}`}, st: ListDone, n: all},
	})
}

func TestValues(t *testing.T) {
	one := func(name, args, want string) pyCase {
		return pyCase{name: name, in: "[f(" + args + ")]", calls: []string{"f " + want}, st: ListDone, n: all}
	}
	runCases(t, []pyCase{
		// Strings.
		one("single quotes", `a='x'`, `{"a":"x"}`),
		one("double quotes", `a="x"`, `{"a":"x"}`),
		one("empty strings", `a='', b=""`, `{"a":"","b":""}`),
		one("double quote inside single", `a='say "hi"'`, `{"a":"say \"hi\""}`),
		one("apostrophe inside double", `a="it's"`, `{"a":"it's"}`),
		one("escaped quotes", `a='it\'s', b="\"q\""`, `{"a":"it's","b":"\"q\""}`),
		one("short escapes", `a='\n\t\r\\\b\f'`, `{"a":"\n\t\r\\\b\f"}`),
		one("bell and vtab", `a='\a\v'`, `{"a":"\u0007\u000b"}`),
		one("hex escapes", `a='\x41\x7e\xe9\x00'`, `{"a":"A~é\u0000"}`),
		one("u escapes", `a='\u00e9\u4e2d\u0022\u005c'`, `{"a":"é中\"\\"}`),
		one("U escape", `a='\U0001F600'`, `{"a":"😀"}`),
		one("surrogate pair escapes kept", `a='\ud83d\ude00'`, `{"a":"\ud83d\ude00"}`),
		one("octal escapes", `a='\0\101\7x'`, `{"a":"\u0000A\u0007x"}`),
		one("unknown escapes kept", `a='\d+\.\w \N{DASH}'`, `{"a":"\\d+\\.\\w \\N{DASH}"}`),
		one("truncated hex escape kept", `a='\x4g', b='\u12'`, `{"a":"\\x4g","b":"\\u12"}`),
		one("out of range U escape kept", `a='\U00110000'`, `{"a":"\\U00110000"}`),
		one("line continuation", "a='ab\\\ncd'", `{"a":"abcd"}`),
		one("raw control characters", "a='x\ny\tz\x01'", `{"a":"x\ny\tz\u0001"}`),
		one("del byte", "a='\x7f'", "{\"a\":\"\x7f\"}"),
		one("unicode", `city='杭州', note="naïve ✓ 😀"`, `{"city":"杭州","note":"naïve ✓ 😀"}`),
		one("markers in strings", `a='<|python_end|>]) ', b="</function_calls>"`, `{"a":"<|python_end|>]) ","b":"</function_calls>"}`),
		// Prefixes.
		one("raw string", `a=r'\d\n\'', b=R"\"x"`, `{"a":"\\d\\n\\'","b":"\\\"x"}`),
		one("raw string backslash at end of escape", `a=r'\\'`, `{"a":"\\\\"}`),
		one("bytes and unicode prefixes", `a=b'x\x41', b=u'y', c=rb'\z', d=Br'\w'`, `{"a":"xA","b":"y","c":"\\z","d":"\\w"}`),
		// Triple quotes.
		one("triple single", `a='''x'''`, `{"a":"x"}`),
		one("triple double", `a="""line1
line2 "quoted" ""two"" """`, `{"a":"line1\nline2 \"quoted\" \"\"two\"\" "}`),
		one("triple with quotes inside", `a='''it's ''ok'' '''`, `{"a":"it's ''ok'' "}`),
		one("triple with escaped quote", `a='''x\''''`, `{"a":"x'"}`),
		one("empty triple", `a='''''', b=""""""`, `{"a":"","b":""}`),
		one("raw triple", `a=r'''\d'''`, `{"a":"\\d"}`),
		// Implicit concatenation.
		one("adjacent strings", `a='ab' "cd"  r'\e'`, `{"a":"abcd\\e"}`),
		one("adjacent strings in group", "a=('ab'\n   'cd')", `{"a":"abcd"}`),
		one("adjacent empty strings", `a='' ''`, `{"a":""}`),
		// Numbers.
		one("ints", `a=0, b=42, c=-7, d=+3`, `{"a":0,"b":42,"c":-7,"d":3}`),
		one("leading zero int", `a=020, b=-007, c=00`, `{"a":"020","b":"-007","c":"00"}`),
		one("floats", `a=1.5, b=-1.5e3, c=2E-2, d=0.0, e=1e+10`, `{"a":1.5,"b":-1.5e3,"c":2e-2,"d":0.0,"e":1e+10}`),
		one("underscores", `a=1_000, b=1_0.2_5, c=1e1_0`, `{"a":1000,"b":10.25,"c":1e10}`),
		one("leading dot", `a=.5, b=-.25, c=+.5e1`, `{"a":0.5,"b":-0.25,"c":0.5e1}`),
		one("trailing dot", `a=5., b=5.e3, c=0.`, `{"a":5.0,"b":5.0e3,"c":0.0}`),
		one("big int", `a=123456789012345678901234567890`, `{"a":123456789012345678901234567890}`),
		// Literals.
		one("python literals", `a=True, b=False, c=None`, `{"a":true,"b":false,"c":null}`),
		one("json literals", `a=true, b=false, c=null`, `{"a":true,"b":false,"c":null}`),
		// Containers.
		one("list", `a=[1, 'x', True, None]`, `{"a":[1,"x",true,null]}`),
		one("tuple", `a=(1, 2), b=(1,), c=()`, `{"a":[1,2],"b":[1],"c":[]}`),
		one("group is its value", `a=(1), b=('x'), c=((([2])))`, `{"a":1,"b":"x","c":[2]}`),
		one("dict", `a={'k': 'v', "n": 1}`, `{"a":{"k":"v","n":1}}`),
		one("dict number and literal keys", `a={1: 'x', -2.5: 'y', 020: 'z', True: 1, None: 2}`, `{"a":{"1":"x","-2.5":"y","020":"z","true":1,"null":2}}`),
		one("empty containers", `a=[], b={}, c=()`, `{"a":[],"b":{},"c":[]}`),
		one("nested", `a=[[1, [2, (3, 4)]], {'k': [{'x': ('y', {})}]}]`, `{"a":[[1,[2,[3,4]]],{"k":[{"x":["y",{}]}]}]}`),
		one("groups inside containers", `a=[(1), (2, 3), ((4))], b={'k': ('v')}`, `{"a":[1,[2,3],4],"b":{"k":"v"}}`),
		one("tuple of groups", `a=((1), (2),)`, `{"a":[1,2]}`),
		// Trailing commas.
		one("trailing commas everywhere", `a=[1, 2,], b={'k': 1,}, c=(1, 2,), d=1,`, `{"a":[1,2],"b":{"k":1},"c":[1,2],"d":1}`),
		// Whitespace.
		one("whitespace everywhere", " a = [ 1 , 2 ] ,\n\tb\t=\t{ 'k' : ( 1 , ) } ,\r\n c = 'x' ", `{"a":[1,2],"b":{"k":[1]},"c":"x"}`),
		one("keyword with digits", `a_1=1, _b2=2`, `{"a_1":1,"_b2":2}`),
		{name: "dict as the only argument", in: `[f({"a": 1, "b": {"c": [true, null]}}), g( {'k': 'v'}, ), h({})]`,
			calls: []string{`f {"a":1,"b":{"c":[true,null]}}`, `g {"k":"v"}`, `h {}`}, st: ListDone, n: all},
		{name: "spaces between name and paren", in: "[ f  \t( a=1 ) , g ( ) ]", calls: []string{`f {"a":1}`, `g {}`}, st: ListDone, n: all},
	})
}

func TestLines(t *testing.T) {
	runCases(t, []pyCase{
		{name: "two calls on two lines", mode: Lines, in: "get_weather(city=\"Paris\")\nget_time(tz='UTC')\n",
			calls: []string{`get_weather {"city":"Paris"}`, `get_time {"tz":"UTC"}`}, st: More, n: all},
		{name: "commas and blank lines", mode: Lines, in: "\n f(a=1),\n\n, g()\r\n",
			calls: []string{`f {"a":1}`, `g {}`}, st: More, n: all},
		{name: "multi-line arguments", mode: Lines, in: "f(\n  a=[1,\n     2],\n)\n",
			calls: []string{`f {"a":[1,2]}`}, st: More, n: all},
		{name: "closer after calls fails", mode: Lines, in: "f()\n</function_calls>",
			calls: []string{`f {}`}, st: Failed, n: 4},
		{name: "brackets fail", mode: Lines, in: "[f()]", st: Failed, n: 0},
		{name: "leading comma fails", mode: Lines, in: ",f()", st: Failed, n: 0},
		{name: "prose fails at second word", mode: Lines, in: "hello world", st: Failed, n: 6},
		{name: "cut call", mode: Lines, in: "f(a=1)\ng(b='x", calls: []string{`f {"a":1}`}, st: More, n: all, fin: `g {"b":"x"}`},
	})
}

func TestFailures(t *testing.T) {
	runCases(t, []pyCase{
		// Not calls at all.
		{name: "markdown link", in: `[text](http://x)`, st: Failed, n: 5},
		{name: "list of numbers", in: `[1, 2, 3]`, st: Failed, n: 1},
		{name: "list of strings", in: `['a']`, st: Failed, n: 1},
		{name: "prose", in: `hello world`, st: Failed, n: 0},
		{name: "json object", in: `{"name": "f"}`, st: Failed, n: 0},
		{name: "name then prose", in: `[see below]`, st: Failed, n: 5},
		{name: "leading comma", in: `[, f()]`, st: Failed, n: 1},
		{name: "newline before paren", in: "[f\n()]", st: Failed, n: 2},
		// Arguments Python allows but a tool call cannot use.
		{name: "positional number", in: `[f(1)]`, st: Failed, n: 3},
		{name: "dict then keyword", in: `[f({'a': 1}, b=2)]`, st: Failed, n: 13},
		{name: "keyword then dict", in: `[f(b=2, {'a': 1})]`, st: Failed, n: 8},
		{name: "two dicts", in: `[f({}, {})]`, st: Failed, n: 7},
		{name: "dict then two commas", in: `[f({},,)]`, st: Failed, n: 6},
		{name: "positional string", in: `[f('x')]`, st: Failed, n: 3},
		{name: "positional identifier", in: `[f(x)]`, st: Failed, n: 4},
		{name: "positional identifier then keyword", in: `[f(x, a=1)]`, st: Failed, n: 4},
		{name: "positional after keyword", in: `[f(a=1, 2)]`, st: Failed, n: 8},
		{name: "bare identifier value", in: `[f(a=b)]`, st: Failed, n: 6},
		{name: "bare identifier value with literal start", in: `[f(a=nothing)]`, st: Failed, n: 6},
		{name: "literal prefix of identifier", in: `[f(a=Trueish)]`, st: Failed, n: 9},
		{name: "nested call as value", in: `[f(a=g(1))]`, st: Failed, n: 5},
		{name: "nested call positional", in: `[f(g(1))]`, st: Failed, n: 4},
		{name: "call after string prefix letter", in: `[f(a=u(1))]`, st: Failed, n: 6},
		{name: "double star", in: `[f(**kw)]`, st: Failed, n: 3},
		{name: "star args", in: `[f(*a)]`, st: Failed, n: 3},
		{name: "f-string", in: `[f(a=f'x')]`, st: Failed, n: 6},
		{name: "attribute value", in: `[f(a=None.x)]`, st: Failed, n: 9},
		{name: "dotted keyword", in: `[f(a.b=1)]`, st: Failed, n: 4},
		{name: "identifier dict key", in: `[f(a={k: 1})]`, st: Failed, n: 6},
		{name: "set", in: `[f(a={1, 2})]`, st: Failed, n: 7},
		{name: "dict unpack", in: `[f(a={**b})]`, st: Failed, n: 6},
		{name: "tuple key", in: `[f(a={(1, 2): 3})]`, st: Failed, n: 6},
		// Bad syntax.
		{name: "unbalanced close paren", in: `[f(a=1))]`, calls: []string{`f {"a":1}`}, st: Failed, n: 7},
		{name: "mismatched closer", in: `[f(a=[1)]`, st: Failed, n: 7},
		{name: "mismatched brace", in: `[f(a={'k': 1])]`, st: Failed, n: 12},
		{name: "missing comma between args", in: `[f(a=1 b=2)]`, st: Failed, n: 7},
		{name: "missing comma in list", in: `[f(a=[1 2])]`, st: Failed, n: 8},
		{name: "double equals", in: `[f(a==1)]`, st: Failed, n: 5},
		{name: "colon instead of equals", in: `[f(a: 1)]`, st: Failed, n: 4},
		{name: "lone minus", in: `[f(a=-)]`, st: Failed, n: 6},
		{name: "lone dot", in: `[f(a=.)]`, st: Failed, n: 6},
		{name: "exponent without digits", in: `[f(a=1e)]`, st: Failed, n: 7},
		{name: "double underscore in number", in: `[f(a=1__0)]`, st: Failed, n: 7},
		{name: "trailing underscore in number", in: `[f(a=10_)]`, st: Failed, n: 8},
		{name: "leading zero float", in: `[f(a=01.5)]`, st: Failed, n: 7},
		{name: "hex int", in: `[f(a=0x10)]`, st: Failed, n: 6},
		{name: "complex", in: `[f(a=1j)]`, st: Failed, n: 6},
		{name: "comment", in: `[f(a=1 # x)]`, st: Failed, n: 7},
		{name: "double comma", in: `[f(a=1,,)]`, st: Failed, n: 7},
		{name: "bad prefix combination", in: `[f(a=ub'x')]`, st: Failed, n: 6},
		{name: "list closer in lines", mode: Lines, in: `f()]`, calls: []string{`f {}`}, st: Failed, n: 3},
	})
}

func TestFinish(t *testing.T) {
	runCases(t, []pyCase{
		{name: "cut string", in: `[f(a='x`, st: More, n: all, fin: `f {"a":"x"}`},
		{name: "cut list", in: `[f(a=[1,2`, st: More, n: all, fin: `f {"a":[1,2]}`},
		{name: "cut after equals", in: `[f(a=`, st: More, n: all, fin: `f {}`},
		{name: "cut after paren", in: `[f(`, st: More, n: all, fin: `f {}`},
		{name: "cut dict argument", in: `[f({"a": 1, "b": [2`, st: More, n: all, fin: `f {"a":1,"b":[2]}`},
		{name: "cut after dict argument", in: `[f({"a": 1},`, st: More, n: all, fin: `f {"a":1}`},
		{name: "cut name", in: `[f`, st: More, n: all},
		{name: "cut name and spaces", in: `[f `, st: More, n: all},
		{name: "nothing", in: ``, st: More, n: all},
		{name: "only bracket", in: `[`, st: More, n: all},
		{name: "after a call", in: `[f(), `, calls: []string{`f {}`}, st: More, n: all},
		{name: "cut keyword", in: `[f(a=1, bb`, st: More, n: all, fin: `f {"a":1}`},
		{name: "cut keyword before equals", in: `[f(a=1, b `, st: More, n: all, fin: `f {"a":1}`},
		{name: "cut after comma", in: `[f(a=1,`, st: More, n: all, fin: `f {"a":1}`},
		{name: "cut after value", in: `[f(a=1 `, st: More, n: all, fin: `f {"a":1}`},
		{name: "cut literal", in: `[f(a=1, b=Tr`, st: More, n: all, fin: `f {"a":1}`},
		{name: "cut prefix", in: `[f(a=r`, st: More, n: all, fin: `f {}`},
		{name: "cut after adjacent string prefix", in: `[f(a='x' r`, st: More, n: all, fin: `f {"a":"x"}`},
		{name: "cut after opening quote", in: `[f(a='`, st: More, n: all, fin: `f {"a":""}`},
		{name: "cut after two quotes", in: `[f(a=''`, st: More, n: all, fin: `f {"a":""}`},
		{name: "cut triple string", in: `[f(a='''x`, st: More, n: all, fin: `f {"a":"x"}`},
		{name: "cut triple string closer", in: `[f(a='''x''`, st: More, n: all, fin: `f {"a":"x"}`},
		{name: "cut escape", in: `[f(a='x\`, st: More, n: all, fin: `f {"a":"x"}`},
		{name: "cut hex escape", in: `[f(a='x\u00`, st: More, n: all, fin: `f {"a":"x"}`},
		{name: "cut octal escape", in: `[f(a='x\0`, st: More, n: all, fin: `f {"a":"x"}`},
		{name: "cut raw escape", in: `[f(a=r'x\`, st: More, n: all, fin: `f {"a":"x\\"}`},
		{name: "cut in multibyte char", in: "[f(a='x\xe6\x9d", st: More, n: all, fin: `f {"a":"x"}`},
		{name: "cut after multibyte char", in: "[f(a='x\xe6\x9d\xad", st: More, n: all, fin: `f {"a":"x杭"}`},
		{name: "cut in 4-byte char", in: "[f(a='\xf0\x9f\x98", st: More, n: all, fin: `f {"a":""}`},
		{name: "cut number", in: `[f(a=12`, st: More, n: all, fin: `f {"a":12}`},
		{name: "cut number dot", in: `[f(a=5.`, st: More, n: all, fin: `f {"a":5.0}`},
		{name: "cut number exponent", in: `[f(a=5e+`, st: More, n: all, fin: `f {"a":5}`},
		{name: "cut number sign", in: `[f(a=1, b=-`, st: More, n: all, fin: `f {"a":1}`},
		{name: "cut number underscore", in: `[f(a=1_`, st: More, n: all, fin: `f {"a":1}`},
		{name: "cut leading zero", in: `[f(a=02`, st: More, n: all, fin: `f {"a":"02"}`},
		{name: "cut dict key", in: `[f(a={'k': 1, 'j`, st: More, n: all, fin: `f {"a":{"k":1}}`},
		{name: "cut dict after key", in: `[f(a={'k'`, st: More, n: all, fin: `f {"a":{}}`},
		{name: "cut dict after colon", in: `[f(a={'k':`, st: More, n: all, fin: `f {"a":{}}`},
		{name: "cut dict number key", in: `[f(a={1`, st: More, n: all, fin: `f {"a":{}}`},
		{name: "cut dict value", in: `[f(a={'k': 'v`, st: More, n: all, fin: `f {"a":{"k":"v"}}`},
		{name: "cut nested", in: `[f(a=[{'k': [1, (2,`, st: More, n: all, fin: `f {"a":[{"k":[1,[2]]}]}`},
		{name: "cut group", in: `[f(a=('x'`, st: More, n: all, fin: `f {"a":"x"}`},
		{name: "cut empty tuple", in: `[f(a=(`, st: More, n: all, fin: `f {"a":[]}`},
		{name: "cut group after groups", in: `[f(a=[(1), (`, st: More, n: all, fin: `f {"a":[1,[]]}`},
		{name: "cut member after group", in: `[f(a=(1), b=(`, st: More, n: all, fin: `f {"a":1,"b":[]}`},
		{name: "cut dropped member holding a group", in: `[f(a=(1), b={'k': (2), 'j'`, st: More, n: all, fin: `f {"a":1,"b":{"k":2}}`},
		{name: "second call cut", in: `[f(a=1), g(b=`, calls: []string{`f {"a":1}`}, st: More, n: all, fin: `g {}`},
		{name: "failed gives no call", in: `[f(a=1, 2`, st: Failed, n: 8},
	})
}

func TestFinishIdempotent(t *testing.T) {
	var s Scanner
	s.Reset(List)
	s.Write([]byte(`[f(a='x`))
	n1, a1, tr1, ok1 := s.Finish()
	n2, a2, tr2, ok2 := s.Finish()
	assert.Equal(t, "f", string(n1))
	assert.Equal(t, `{"a":"x"}`, string(a1))
	assert.True(t, tr1 && ok1)
	assert.Equal(t, string(n1), string(n2))
	assert.Equal(t, string(a1), string(a2))
	assert.Equal(t, tr1, tr2)
	assert.Equal(t, ok1, ok2)
	assert.Equal(t, `{"a":"x"}`, string(s.Args()))
	n, st := s.Write([]byte(`y')]`))
	assert.Equal(t, 0, n)
	assert.Equal(t, More, st)

	s.Reset(List)
	s.Write([]byte(`[f`))
	_, _, _, ok := s.Finish()
	assert.False(t, ok)
	_, _, _, ok = s.Finish()
	assert.False(t, ok)
}

func TestWriteContract(t *testing.T) {
	var s Scanner
	s.Reset(List)
	in := []byte(`[f(a=1), g(b='x')] tail`)
	n, st := s.Write(in)
	require.Equal(t, CallDone, st)
	assert.Equal(t, len(`[f(a=1)`), n)
	assert.Equal(t, "f", string(s.Name()))
	assert.Equal(t, `{"a":1}`, string(s.Args()))
	in = in[n:]
	n, st = s.Write(in)
	require.Equal(t, CallDone, st)
	assert.Equal(t, len(`, g(b='x')`), n)
	assert.Equal(t, "g", string(s.Name()))
	assert.Equal(t, `{"b":"x"}`, string(s.Args()))
	in = in[n:]
	n, st = s.Write(in)
	assert.Equal(t, ListDone, st)
	assert.Equal(t, 1, n)
	n, st = s.Write(in[n:])
	assert.Equal(t, ListDone, st)
	assert.Equal(t, 0, n)
	assert.Equal(t, 2, s.Calls())

	// Failure is sticky.
	s.Reset(List)
	n, st = s.Write([]byte(`[f(1)]`))
	assert.Equal(t, Failed, st)
	assert.Equal(t, 3, n)
	assert.True(t, s.Failed())
	n, st = s.Write([]byte(`)]`))
	assert.Equal(t, Failed, st)
	assert.Equal(t, 0, n)
	var se *SyntaxError
	require.ErrorAs(t, s.Err(), &se)
	assert.Equal(t, 3, se.Offset)
	assert.Equal(t, byte('1'), se.Byte)
	assert.Contains(t, se.Error(), "offset 3")

	// An empty write.
	s.Reset(Lines)
	n, st = s.Write(nil)
	assert.Equal(t, 0, n)
	assert.Equal(t, More, st)
	assert.NoError(t, s.Err())
}

func TestAccessors(t *testing.T) {
	type probe struct {
		prefix                    string
		started, inString, inCall bool
	}
	for _, p := range []probe{
		{"", false, false, false},
		{"  ", false, false, false},
		{"[", true, false, false},
		{"[ f", true, false, true},
		{"[f ", true, false, true},
		{"[f(", true, false, true},
		{"[f(a", true, false, true},
		{"[f(a=", true, false, true},
		{"[f(a='", true, true, true},
		{"[f(a=''", true, false, true},
		{"[f(a='''", true, true, true},
		{"[f(a='''x''", true, true, true},
		{"[f(a='x", true, true, true},
		{"[f(a='x\\", true, true, true},
		{"[f(a='x\\u0", true, true, true},
		{"[f(a='x\\0", true, true, true},
		{"[f(a=r'x\\", true, true, true},
		{"[f(a='x'", true, false, true},
		{"[f(a='x')", true, false, false},
		{"[f(a='x'),", true, false, false},
		{"[f(a='x')]", true, false, false},
	} {
		var s Scanner
		s.Reset(List)
		in := []byte(p.prefix)
		for len(in) > 0 {
			n, st := s.Write(in)
			require.NotEqual(t, Failed, st, "%q", p.prefix)
			in = in[n:]
			if st == ListDone {
				break
			}
		}
		assert.Equal(t, p.started, s.Started(), "Started after %q", p.prefix)
		assert.Equal(t, p.inString, s.InString(), "InString after %q", p.prefix)
		assert.Equal(t, p.inCall, s.InCall(), "InCall after %q", p.prefix)
	}
}

func TestLimits(t *testing.T) {
	name := strings.Repeat("n", maxName)
	runCases(t, []pyCase{
		{name: "longest name", in: "[" + name + "()]", calls: []string{name + " {}"}, st: ListDone, n: all},
		{name: "name too long", in: "[" + name + "x()]", st: Failed, n: 1 + maxName},
	})
	deep := "[f(a=" + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + ")]"
	want := "f {\"a\":" + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + "}"
	r := checkChunking(t, List, []byte(deep))
	assert.Equal(t, []string{want}, r.Calls)
	tooDeep := "[f(a=" + strings.Repeat("{'k':", maxDepth) + "[1]" + ")]"
	r = checkChunking(t, List, []byte(tooDeep))
	assert.Equal(t, Failed, r.Status)
	assert.Equal(t, len("[f(a=")+5*maxDepth, r.ErrOffset)
}

func TestDecodesAsPython(t *testing.T) {
	// Spot checks that the JSON decodes to the values Python would build.
	var s Scanner
	s.Reset(List)
	in := []byte(`[f(s='a\tb"c\'d\\e\u00e9\ud83d\ude00', n=-1.5e3, i=1_000, l=[True, None, (1,)], d={2: 'x'}, g=('x' 'y'))]`)
	n, st := s.Write(in)
	require.Equal(t, CallDone, st)
	require.Equal(t, len(in)-1, n)
	var got map[string]any
	require.NoError(t, json.Unmarshal(s.Args(), &got))
	assert.Equal(t, map[string]any{
		"s": "a\tb\"c'd\\eé😀",
		"n": -1500.0,
		"i": 1000.0,
		"l": []any{true, nil, []any{1.0}},
		"d": map[string]any{"2": "x"},
		"g": "xy",
	}, got)
}

func TestResetReusesBuffers(t *testing.T) {
	var s Scanner
	in := []byte(`[f(a='` + strings.Repeat("x", 4096) + `', b=[(1), (2, 3)]), g(c={'k': 1})]`)
	run := func() {
		s.Reset(List)
		p := in
		for len(p) > 0 {
			n, st := s.Write(p)
			p = p[n:]
			if st == ListDone || st == Failed {
				break
			}
		}
	}
	run()
	require.Equal(t, 2, s.Calls())
	allocs := testing.AllocsPerRun(20, run)
	assert.Zero(t, allocs)
}

// TestTake checks that Take hands over the arguments of the call just
// done, which the next call in the list does not overwrite, and that the
// scanner writes that next call in the room it was given.
func TestTake(t *testing.T) {
	var s Scanner
	s.Reset(List)
	in := []byte(`[a(x=1), b(y="two")]`)
	room := make([]byte, 0, 64)
	var taken []byte
	for len(in) > 0 {
		n, st := s.Write(in)
		in = in[n:]
		switch st {
		case CallDone:
			if taken == nil {
				taken = s.Take(room)
				continue
			}
			assert.Equal(t, `{"y":"two"}`, string(s.Args()))
			assert.Same(t, &room[:1][0], &s.Args()[0], "the second call is written in the room given")
		case ListDone:
			in = nil
		case Failed:
			t.Fatalf("failed at %q", in)
		}
	}
	assert.Equal(t, `{"x":1}`, string(taken))
}
