package pyscan

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fuzzSeeds are inputs for the fuzz corpus, beside the table cases.
var fuzzSeeds = []string{
	`[get_weather(city='San Francisco', metric="celsius"), register_user(name='Doe', age=9, tags=['a','b'], extra={'k': None}, ok=True)]`,
	`[f(a=(1), b=(1,), c=(), d=("a" "b"), e='''x''y''', g=r'\n\'', h=020, i=-1.5e3, j=1_000, k=.5, l=5., m=+3)]`,
	`[f(n={1: 2, 'x' r'y': [], None: 1}, s='\x41\u00e9\U0001F600\ud83d\ude00\d\0\101\
')]`,
	"get_weather(city=\"Paris\")\nget_time(tz='UTC')\n",
	`[text](http://x)`, `[1, 2, 3]`, `hello world`, `[f(a='x`, `[f(a=[1,2`, `[f(a=`, `[f(`, `[f`,
	"[f(a=\"\"\"multi\nline \"q\" \"\"\"), g(b=b'\\xff', c=rb'\\'', d=u\"\u00e9\")]",
	`[f(a=((([{'k': ((1,),)}]))))]`,
	`[f({"a": 1, "b": [true, null]}), g( {'k': 'v'}, ), h({})]`, `[f({"a": {"b`,
}

func FuzzScanner(f *testing.F) {
	for _, in := range fuzzSeeds {
		f.Add([]byte(in), uint16(len(in)/2), false)
		f.Add([]byte(in), uint16(len(in)/3), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, split uint16, lines bool) {
		mode := List
		if lines {
			mode = Lines
		}
		var s Scanner
		// feed checks n <= len(p), More only when p is used up, valid JSON
		// objects from CallDone and Finish, and the error offset.
		whole := feed(t, &s, mode, data)
		cut := int(split) % (len(data) + 1)
		if two := feed(t, &s, mode, data, cut); !reflect.DeepEqual(whole, two) {
			t.Fatalf("split at %d differs:\nwhole %+v\nsplit %+v", cut, whole, two)
		}
		if len(data) <= 512 {
			if one := feed(t, &s, mode, data, oneByteCuts(len(data))...); !reflect.DeepEqual(whole, one) {
				t.Fatalf("1-byte chunks differ:\nwhole %+v\nbytes %+v", whole, one)
			}
		}
		for _, c := range whole.Calls {
			name, args, _ := strings.Cut(c, " ")
			if name == "" || len(name) > maxName || !strings.HasPrefix(args, "{") {
				t.Fatalf("bad call %q", c)
			}
		}
		if whole.Status == Failed && whole.ErrOffset >= len(data) {
			t.Fatalf("failed at offset %d of %d", whole.ErrOffset, len(data))
		}
	})
}

func TestSeedsChunking(t *testing.T) {
	for i, in := range fuzzSeeds {
		for _, mode := range []Mode{List, Lines} {
			t.Run(strconv.Itoa(i)+"/"+strconv.Itoa(int(mode)), func(t *testing.T) {
				checkChunking(t, mode, []byte(in))
			})
		}
	}
}

// longStringCall builds a call of about size bytes with one long string
// argument holding plain text, escapes, quotes and non-ASCII text.
func longStringCall(size int) []byte {
	var b strings.Builder
	b.WriteString(`[write_file(path='/tmp/out.txt', content='`)
	for b.Len() < size {
		b.WriteString(`The quick brown fox "jumps" over the lazy dog; it\'s 杭州 ✓\n\tand more text here. `)
	}
	b.WriteString(`')]`)
	return []byte(b.String())
}

// manyArgsCall builds a call of about size bytes with many small arguments
// of every kind.
func manyArgsCall(size int) []byte {
	var b strings.Builder
	b.WriteString(`[configure(`)
	for i := 0; b.Len() < size; i++ {
		k := strconv.Itoa(i)
		b.WriteString("s" + k + `='v', n` + k + `=-12.5e3, i` + k + `=1_000, b` + k + `=True, z` + k + `=None, `)
		b.WriteString("l" + k + `=[1, 'x', (2, 3)], d` + k + `={'k': "w", 7: [False]}, `)
	}
	b.WriteString(`)]`)
	return []byte(b.String())
}

func TestBigCalls(t *testing.T) {
	for _, doc := range [][]byte{longStringCall(1 << 20), manyArgsCall(1 << 20)} {
		var s Scanner
		s.Reset(List)
		calls := 0
		for i := 0; i < len(doc); i += 4 {
			p := doc[i:min(i+4, len(doc))]
			for len(p) > 0 {
				n, st := s.Write(p)
				require.NotEqual(t, Failed, st, "%v", s.Err())
				p = p[n:]
				if st == CallDone {
					calls++
					var v map[string]any
					require.NoError(t, json.Unmarshal(s.Args(), &v))
					assert.NotEmpty(t, v)
				}
			}
		}
		assert.Equal(t, 1, calls)
	}
}

// benchCall feeds doc to a scanner in 4-byte chunks, as a streaming caller
// would, and checks that exactly one call came out.
func benchCall(b *testing.B, doc []byte) {
	var s Scanner
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		s.Reset(List)
		calls := 0
		for i := 0; i < len(doc); i += 4 {
			p := doc[i:min(i+4, len(doc))]
			for len(p) > 0 {
				n, st := s.Write(p)
				p = p[n:]
				switch st {
				case CallDone:
					calls++
				case Failed:
					b.Fatal(s.Err())
				}
			}
		}
		if calls != 1 {
			b.Fatalf("%d calls", calls)
		}
	}
}

func BenchmarkScanner(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"64KiB", 64 << 10}, {"1MiB", 1 << 20}} {
		b.Run("string/"+size.name, func(b *testing.B) { benchCall(b, longStringCall(size.n)) })
		b.Run("args/"+size.name, func(b *testing.B) { benchCall(b, manyArgsCall(size.n)) })
	}
}
