package jsonspan

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

var indexSeeds = []string{
	``, ` `, `{}`, `[]`, ` { } `, `[ ]`, `{"a":1}`, `{"a" : [1, 2 ,{"b":null}] , "c":{}}`,
	`[[[]],[{}],"x",true,false,null,-0.5e+3]`, `"s"`, `1`, `-`, `01`, `1.`, `1e`, `tru`, `nul`,
	`{"a":1,}`, `[1,]`, `{"a"}`, `{"a":}`, `{,}`, `[,1]`, `{"a":1}x`, `{"a":1} `, `{"a":1}}`,
	`"\u12g4"`, `"\u1234"`, `"\x"`, "\"a\tb\"", `"\"\\\/\b\f\n\r\t"`, `"ab`, `"ab\`, `{"a\"b":2}`,
	`{"id":"c","choices":[{"index":0,"delta":{"content":"hi \"x\""},"finish_reason":null}]}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"é"}}`,
	"{\"a\":\"\xff\"}", "\t\r\n[1]\n", `[1 2]`, `{"a" 1}`, `{1:2}`,
}

// checkIndex checks that Parse agrees with Valid, and that Members and
// Elems answer as the package functions do at every offset.
func checkIndex(t *testing.T, x *Index, b []byte) {
	t.Helper()
	if got, want := x.Parse(b), Valid(b); got != want {
		t.Fatalf("Parse(%q) = %v, Valid %v", b, got, want)
	}
	for i := 0; i <= len(b); i++ {
		gm, gok := x.Members(b, i, nil)
		wm, wok := Members(b, i, nil)
		if gok != wok || !reflect.DeepEqual(gm, wm) {
			t.Fatalf("Members(%q, %d) = %v %v, want %v %v", b, i, gm, gok, wm, wok)
		}
		ge, gok := x.Elems(b, i, nil)
		we, wok := Elems(b, i, nil)
		if gok != wok || !reflect.DeepEqual(ge, we) {
			t.Fatalf("Elems(%q, %d) = %v %v, want %v %v", b, i, ge, gok, we, wok)
		}
	}
}

func TestIndex(t *testing.T) {
	var x Index
	for _, s := range indexSeeds {
		checkIndex(t, &x, []byte(s))
	}
	// Other bytes than the parsed document: the package functions answer.
	x.Parse([]byte(`{"a":1}`))
	if ms, ok := x.Members([]byte(`{"b":2}`), 0, nil); !ok || string(ms[0].Key) != "b" {
		t.Fatalf("another document: %v %v", ms, ok)
	}
	// A document over maxIndexed is only validated; the package functions
	// answer about it.
	big := []byte(`{"a":[` + strings.Repeat(`1,`, maxIndexed/2) + `2],"b":{"c":3}}`)
	if !x.Parse(big) || x.of(big) {
		t.Fatal("large document: not valid, or indexed")
	}
	if ms, ok := x.Members(big, len(big)-8, nil); !ok || string(ms[0].Key) != "c" {
		t.Fatalf("large document: %v %v", ms, ok)
	}
	if x.Parse(big[:len(big)-1]) {
		t.Fatal("large document cut short: valid")
	}
	checkIndex(t, &x, []byte(`{"a":[1,2],"b":{"c":3}}`))
	// The depth bound is Valid's.
	for _, n := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		b := []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
		if x.Parse(b) != Valid(b) {
			t.Fatalf("depth %d: Parse and Valid differ", n)
		}
	}
}

// TestIndexJobEvents checks the index on the sample stream events.
func TestIndexJobEvents(t *testing.T) {
	var x Index
	for _, st := range loadJobStreams(t) {
		for _, ev := range st.events {
			if !x.Parse(ev) {
				t.Fatalf("%s: not valid: %s", st.name, ev)
			}
			checkIndex(t, &x, ev)
		}
	}
}

// TestIndexAllocs: a warmed-up Index parses an event without allocating.
func TestIndexAllocs(t *testing.T) {
	var x Index
	ev := []byte(`{"id":"c","choices":[{"index":0,"delta":{"content":"hi \"x\""},"finish_reason":null}]}`)
	var ms []Member
	n := testing.AllocsPerRun(100, func() {
		x.Parse(ev)
		ms, _ = x.Members(ev, 0, ms[:0])
	})
	if n != 0 {
		t.Fatalf("%v allocations per event", n)
	}
}

// FuzzIndex parses a document, then another with the same Index (which
// parses on from where the two part when the first was valid), and checks
// the second.
func FuzzIndex(f *testing.F) {
	for i, s := range indexSeeds {
		f.Add([]byte(indexSeeds[(i+1)%len(indexSeeds)]), []byte(s))
	}
	for _, p := range resumePairs {
		f.Add([]byte(p[0]), []byte(p[1]))
	}
	var x Index
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if len(a) > 4096 || len(b) > 4096 {
			return
		}
		x.Parse(a)
		checkIndex(t, &x, b)
	})
}

// resumePairs are documents that begin alike.
var resumePairs = [][2]string{
	{`{"id":"chatcmpl-b","object":"chat.completion.chunk","seq":12,"choices":[{"index":0,"delta":{"content":"a"}}]}`,
		`{"id":"chatcmpl-b","object":"chat.completion.chunk","seq":13,"choices":[{"index":0,"delta":{"content":"bc"}}]}`},
	{`{"id":"chatcmpl-b","object":"chat.completion.chunk","seq":12,"choices":[{"index":0,"delta":{"content":"a"}}]}`,
		`{"id":"chatcmpl-b","object":"chat.completion.chunk","seq":1,"choices":[]}`},
	{`{"id":"chatcmpl-b","object":"chat.completion.chunk","seq":12,"choices":[{"index":0,"delta":{"content":"a"}}]}`,
		`{"id":"chatcmpl-b","object":"chat.completion.chunk","seq":12,"choices":[{"index":0,"delta":{"content":"a"}}]} x`},
	{`{"id":"chatcmpl-b","object":"chat.completion.chunk","seq":12,"choices":[{"index":0,"delta":{"content":"a"}}]}`,
		`{"id":"chatcmpl-b","object":"chat.completion.chunk", "seq":12}`},
	{`[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,[17,18],19]`, `[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,[17,18,{"a":[]}],19,20]`},
	{`[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,[17,18],19]`, `[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,[17,18`},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"yz\n"}}`},
	{`{"a":{"b":{"c":{"d":"0123456789abcdef"}}}}`, `{"a":{"b":{"c":{"d":"0123456789abcdefg"}, "e":1}}}`},
	{`{"a":{"b":{"c":{"d":"0123456789abcdef"}}}}`, `{"a":{"b":{"c":{"d":"0123456789abcdef"}}}}`},
	{`{"x":{"y":1,"z":"0123456789abcdefghij"}}`, `{"x":1,"y":{"z":"0123456789abcdefghij"}}`},
	{`{"x":[1,{"z":"0123456789abcdefghij"}]}`, `{"x":{"y":[1],"z":"0123456789abcdefghij"}}`},
	{`[{"q":1},"0123456789abcdefghij",2]`, `[{"q":[1,2]},"0123456789abcdefghij",2]`},
	{`{"id":"c","seq":9,"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}]}`,
		`{"id":"c","seq":10,"choices":[{"index":0,"delta":{"content":"xyz"},"logprobs":null,"finish_reason":null}]}`},
	{`{"id":"c","seq":9,"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}]}`,
		`{"id":"c","seq":10,"choices":[{"index":0,"delta":{"content":"xyz"}},{"logprobs":null,"finish_reason":null}]}`},
	{`{"id":"c","seq":9,"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}]}`,
		`{"id":"c","seq":10,"choices":[{"index":0,"delta":{"content":"xyz","logprobs":null,"finish_reason":null}]}`},
}

// TestIndexReuseRandom parses documents that share their start and their
// end, with random values (some not JSON) in between, one after another
// with the same Index, which reuses the scan of each for the next.
func TestIndexReuseRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	wrappers := [][2]string{
		{`{"id":"0123456789abcdef","v":`, `,"tail":"0123456789abcdef"}`},
		{`[[{"k":`, `}],"0123456789abcdefgh",{"z":[1,2,{"y":null}]}]`},
		{`{"a":{"b":[`, `,{"c":"0123456789abcdef"}]},"d":[true,false,"0123456789"]}`},
		{`{"x":`, `}`},
		{``, ` , "0123456789abcdefghij"}`},
		{`{"p":"0123456789abcdef",`, `"q":"0123456789abcdef"}`},
	}
	var x Index
	for n := 0; n < 20000; n++ {
		w := wrappers[rng.IntN(len(wrappers))]
		doc := w[0] + randomJSON(rng, 3) + w[1]
		if rng.IntN(20) == 0 {
			i := rng.IntN(len(doc) + 1)
			const junk = `{}[]\",:x `
			doc = doc[:i] + string(junk[rng.IntN(len(junk))]) + doc[i:]
		}
		checkIndex(t, &x, []byte(doc))
	}
}

// randomJSON returns a random JSON value, nested at most depth deep.
func randomJSON(rng *rand.Rand, depth int) string {
	switch k := rng.IntN(9); {
	case depth > 0 && k < 2:
		var b strings.Builder
		b.WriteByte('{')
		for i := range rng.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + string(rune('a'+rng.IntN(3))) + `":` + randomJSON(rng, depth-1))
		}
		b.WriteByte('}')
		return b.String()
	case depth > 0 && k < 4:
		var b strings.Builder
		b.WriteByte('[')
		for i := range rng.IntN(4) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(randomJSON(rng, depth-1))
		}
		b.WriteByte(']')
		return b.String()
	case k < 6:
		return `"` + strings.Repeat("ab\"c"[:1+rng.IntN(4)], rng.IntN(6)) + `"`
	case k < 7:
		return strconv.Itoa(rng.IntN(2000) - 1000)
	case k < 8:
		return [...]string{"true", "false", "null", "1.5e3", "0"}[rng.IntN(5)]
	}
	return `"0123456789abcdef"`
}

// TestIndexResume checks parsing on from where two documents part.
func TestIndexResume(t *testing.T) {
	for _, p := range resumePairs {
		for _, pair := range [][2]string{p, {p[1], p[0]}} {
			var x Index
			x.Parse([]byte(pair[0]))
			checkIndex(t, &x, []byte(pair[1]))
			// Once more, from a document that was not valid.
			x.Parse([]byte(pair[0] + "x"))
			checkIndex(t, &x, []byte(pair[1]))
		}
	}
}

// BenchmarkIndexEvent reads the fields of typical OpenAI chunks as the
// rewriter does: validated, then members found level by level, with the
// package functions (scan) or with an Index; parse is the Index's pass
// alone, lookups its answers alone. The chunks differ as a stream's do.
func BenchmarkIndexEvent(b *testing.B) {
	var evs [][]byte
	for _, c := range []string{`Hello`, ` wor`, `ld, `, `how are`} {
		evs = append(evs, []byte(`{"id":"chatcmpl-b","object":"chat.completion.chunk","created":1,"model":"m","seq":`+
			strconv.Itoa(1230+len(evs))+`,"choices":[{"index":0,"delta":{"content":"`+c+`"},"logprobs":null,"finish_reason":null}]}`))
	}
	var x Index
	var ms, cms, dms []Member
	var els []Span
	read := func(ev []byte, members func([]byte, int, []Member) ([]Member, bool), elems func([]byte, int, []Span) ([]Span, bool)) {
		ms, _ = members(ev, 0, ms[:0])
		cm, _ := Lookup(ev, ms, "choices")
		els, _ = elems(ev, cm.Start, els[:0])
		cms, _ = members(ev, els[0].Start, cms[:0])
		dm, _ := Lookup(ev, cms, "delta")
		dms, _ = members(ev, dm.Start, dms[:0])
		if _, ok := Lookup(ev, dms, "content"); !ok {
			b.Fatal("no content")
		}
	}
	size := int64(len(evs[0]))
	b.Run("scan", func(b *testing.B) {
		b.SetBytes(size)
		n := 0
		for b.Loop() {
			ev := evs[n%len(evs)]
			n++
			if !Valid(ev) {
				b.Fatal("not valid")
			}
			read(ev, Members, Elems)
		}
	})
	b.Run("index", func(b *testing.B) {
		b.SetBytes(size)
		n := 0
		for b.Loop() {
			ev := evs[n%len(evs)]
			n++
			if !x.Parse(ev) {
				b.Fatal("not valid")
			}
			read(ev, x.Members, x.Elems)
		}
	})
	b.Run("lookups", func(b *testing.B) {
		x.Parse(evs[0])
		for b.Loop() {
			read(evs[0], x.Members, x.Elems)
		}
	})
	b.Run("parse", func(b *testing.B) {
		b.SetBytes(size)
		n := 0
		for b.Loop() {
			x.Parse(evs[n%len(evs)])
			n++
		}
	})
	b.Run("parse-full", func(b *testing.B) { // nothing in common with the document before
		b.SetBytes(size)
		n := 0
		for b.Loop() {
			x.prev = x.prev[:0]
			x.Parse(evs[n%len(evs)])
			n++
		}
	})
}
