package lexer

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve/internal/repeat"
)

// tokensBothWays lexes input cut at cuts with the prefilter on or off, a
// repetition guard watching, and returns every field of every token,
// adjacent text merged (the prefilter only changes where text is cut), and
// what the guard reported at the end.
func tokensBothWays(input []byte, cuts []int, on bool) []string {
	var l Lexer
	l.Prefilter(on)
	g := repeat.New(repeat.Limits{})
	l.Watch(g)
	var out []string
	var text []byte
	textAt := int64(-1)
	flush := func() {
		if textAt >= 0 {
			out = append(out, fmt.Sprintf("text@%d %q", textAt, text))
			text, textAt = text[:0], -1
		}
	}
	prev := 0
	for k, c := range append(cuts, len(input)) {
		l.Feed(input[prev:c])
		prev = c
		for {
			t, ok := l.Next(k == len(cuts))
			if !ok {
				break
			}
			if t.Kind == Text {
				if textAt < 0 {
					textAt = t.Offset
				}
				text = append(text, t.Raw...)
				continue
			}
			flush()
			s := fmt.Sprintf("%v@%d %v flags=%b raw=%q name=%q ns=%q value=%q count=%d", t.Kind, t.Offset, t.Marker, t.Flags, t.Raw, t.Name, t.NS, t.Value, t.Count)
			for _, a := range t.Attrs {
				s += fmt.Sprintf(" %q=%q", a.Key, a.Val)
			}
			out = append(out, s)
		}
	}
	flush()
	fired, at := g.Fired()
	return append(out, fmt.Sprintf("guard fired=%v at=%d from=%d", fired, at, g.LoopStart()))
}

// sameBothWaysLex fails t unless the prefilter leaves the tokens of input
// cut at cuts as they are.
func sameBothWaysLex(t *testing.T, input []byte, cuts []int) {
	t.Helper()
	on, off := tokensBothWays(input, cuts, true), tokensBothWays(input, cuts, false)
	require.Equal(t, off, on, "%q cut at %v: prefilter on (actual) against off (expected)", input, cuts)
}

// markerSpellings returns, for every name of the marker tables (fused
// aliases included), the spellings of a marker with that name the lexer
// reads: tags, closers, namespaces, DSML and GCML prefixes, special tokens
// with ASCII, fullwidth and double bars and spaces around them, `▁` for
// `_`, upper case, bracket tokens, half bars, XTML tags and sentinels.
func markerSpellings() []string {
	var out []string
	add := func(format string, names map[string]markerEntry, fold func(string) string) {
		for name := range names {
			out = append(out, fmt.Sprintf(format, fold(name)))
		}
	}
	same := func(s string) string { return s }
	for _, f := range []struct {
		format string
		fold   func(string) string
	}{
		{"<%s>", same}, {"</%s>", same}, {"<%s/>", same}, {"<%s name=\"x\">", same}, {"<%s=x>", same},
		{"<%s>", same}, {"<｜DSML｜%s>", same}, {"<|DSML|%s>", same}, {"</｜DSML｜%s>", same},
		{"<｜DSML｜/%s>", same}, {"<| GCML |%s>", same}, {"<%s", same}, {"<ifm|%s>", same},
		{"<%s>", strings.ToUpper}, {"<%s>", func(s string) string { return strings.ReplaceAll(s, "_", "-") }},
		{"<%s:opensource>", same}, {"<]minimax[>[<%s>", same},
	} {
		add(f.format, tagNames, f.fold)
	}
	wide := func(s string) string { return strings.ReplaceAll(s, "_", "▁") }
	for _, f := range []struct {
		format string
		fold   func(string) string
	}{
		{"<|%s|>", same}, {"<｜%s｜>", same}, {"<｜%s｜>", wide}, {"<| %s |>", same}, {"< |%s|>", same},
		{"<||%s||>", same}, {"<‖%s‖>", same}, {"<|%s|>", strings.ToUpper}, {"[%s]", strings.ToUpper},
		{"[/%s]", strings.ToUpper}, {"<|%s", same},
	} {
		add(f.format, specialNames, f.fold)
	}
	add("<|%s>", halfBarNames, same)
	add("<%s|>", halfBarNames, same)
	add("<|open|>%s<|sep|>", xtmlNames, same)
	add("<|close|>%s<|sep|>", xtmlNames, same)
	add("< | open | >%s <| sep |>", xtmlNames, same)
	add("<]%s[>[", sentinelNames, same)
	add("]<]%s[>[ ", sentinelNames, same)
	return out
}

// TestPrefilterKeepsMarkers: every spelling of every marker of the
// recognizer's tables passes the prefilter (no trigger of it is one the
// prefilter takes as text), alone, after text and at every split, with the
// same tokens as without it; the canonical spellings are read as markers.
func TestPrefilterKeepsMarkers(t *testing.T) {
	spellings := markerSpellings()
	require.Greater(t, len(spellings), 1000)
	read := 0
	for _, s := range spellings {
		in := []byte("x " + s + " y")
		// Where the recognizer, without the prefilter, reads a marker
		// (some spellings make none: `[TOOL_CALL:END]`), the prefilter
		// must leave its trigger to the recognizer.
		var l Lexer
		l.Prefilter(false)
		l.Feed(in)
		for {
			tok, ok := l.Next(true)
			if !ok {
				break
			}
			if tok.Kind != Text && tok.Kind != Backticks && (tok.Marker != Unknown || tok.Kind == Special) {
				read++
				require.Equal(t, -1, rejectedAt(in, int(tok.Offset)), "%q: the prefilter takes the trigger at %d as text", in, tok.Offset)
			}
		}
		sameBothWaysLex(t, in, nil)
		for i := 1; i < len(in); i++ {
			sameBothWaysLex(t, in, []int{i})
		}
	}
	assert.Greater(t, read, 1000, "spellings read as markers")
	for _, s := range []string{"<tool_call>", "</invoke>", "<｜tool▁calls▁begin｜>", "<|channel|>", "[TOOL_CALLS]", "[/TOOL_CALL]",
		"<|tool_call>", "<tool_call|>", "<|open|>call tool=\"f\"<|sep|>", "<]minimax[>[", "<｜DSML｜invoke name=\"f\">", "<toolcalls>"} {
		var l Lexer
		l.Feed([]byte("a " + s))
		var got []Marker
		for {
			tok, ok := l.Next(true)
			if !ok {
				break
			}
			if tok.Kind != Text {
				got = append(got, tok.Marker)
			}
		}
		require.Len(t, got, 1, s)
		assert.NotEqual(t, Unknown, got[0], s)
	}
}

// TestPrefilterRejects: the triggers the prefilter takes as text, and
// those it leaves to the recognizer; an idle Lexer returns the first kind
// as the first byte of a text token.
func TestPrefilterRejects(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int // rejectedAt(in, 0)
	}{
		{"< b", 2}, {"<= b", 1}, {"<<EOF", 1}, {"<1", 1}, {"<$f>", 1}, {"<![CDATA[", 1}, {"<`", 1},
		{"[]byte", 1}, {"[i]", 1}, {"[1, 2]", 1}, {"[T, U any]", 2}, {"[ -f", 1}, {"[[wiki]]", 1},
		{"<div>", -1}, {"</p>", -1}, {"< |x|>", -1}, {"<|", -1}, {"<｜", -1}, {"<]", -1}, {"<", -1}, {"< ", -1},
		{"[TOOL_CALLS]", -1}, {"[/TOOL_CALL]", -1}, {"[ARGS", -1}, {"[", -1}, {"`x`", -1},
	} {
		assert.Equal(t, tc.want, rejectedAt([]byte(tc.in), 0), "%q", tc.in)
	}
	texts := func(l *Lexer, in string) (out []string) {
		l.Feed([]byte(in))
		for tok, ok := l.Next(true); ok; tok, ok = l.Next(true) {
			out = append(out, fmt.Sprintf("%v %q", tok.Kind, tok.Raw))
		}
		return out
	}
	var l Lexer
	assert.Equal(t, []string{`text "for i := 0; i "`, `text "< n; i++ { xs"`, `text "[i] = y "`, `text "<"`, `text "<= 1 "`, "backticks \"`\""},
		texts(&l, "for i := 0; i < n; i++ { xs[i] = y <<= 1 `"))
	l.Prefilter(false)
	assert.Equal(t, []string{`text "a "`, `text "< "`, `text "b"`}, texts(&l, "a < b"), "prefilter off")
}

// TestPrefilterSameTokens compares the tokens with the prefilter on and
// off on random inputs thick with triggers, cut at random points, and on
// code-like text.
func TestPrefilterSameTokens(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 31))
	pieces := []string{"<", "[", "]", "`", "```", " ", "\n", "/", "|", "｜", "=", "\"", ">", "a", "Z", "_", "0", "é",
		"<tool_call>", "</invoke>", "[TOOL_CALLS]", "<|channel|>", "<｜DSML｜", "<]minimax[>[", "<|open|>", "<|sep|>",
		"call", "xs[i]", "a < b", "<div class=\"x\">", "<<EOF", "<=", "[A", "\xc3"}
	for range 4000 {
		var b strings.Builder
		for range 1 + rng.IntN(16) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		in := []byte(b.String())
		var cuts []int
		for i := 1 + rng.IntN(4); i < len(in); i += 1 + rng.IntN(6) {
			cuts = append(cuts, i)
		}
		sameBothWaysLex(t, in, nil)
		sameBothWaysLex(t, in, cuts)
	}
	code := strings.Repeat("Use `map[string]int`; `a < b && c > d` holds; x[0] = y[i] <<= 2 [1, [2]] <br/> [T, U any] < |x|>\n", 64)
	for _, n := range []int{1, 2, 3, 4, 7, 64, 4096} {
		var cuts []int
		for i := n; i < len(code); i += n {
			cuts = append(cuts, i)
		}
		sameBothWaysLex(t, []byte(code), cuts)
	}
}

// TestNextTrigger compares the word-at-a-time scan with the table, at
// every start, on bytes with triggers, their neighbours and high bytes.
func TestNextTrigger(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	const alphabet = "<[`;=\\_a\x00\x80\xff\xbc\xdb\xe0"
	for range 2000 {
		p := make([]byte, rng.IntN(40))
		for i := range p {
			if rng.IntN(4) == 0 {
				p[i] = alphabet[rng.IntN(len(alphabet))]
			} else {
				p[i] = byte(rng.IntN(256))
			}
		}
		for i := 0; i <= len(p); i++ {
			want := i
			for want < len(p) && !triggers[p[want]] {
				want++
			}
			require.Equal(t, want, nextTrigger(p, i), "%q from %d", p, i)
		}
	}
}
