package repeat

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// item is a piece of input: text, or a marker (markup or not).
type item struct {
	s      string
	marker bool
	markup bool
}

func text(s string) item   { return item{s: s} }
func markup(s string) item { return item{s: s, marker: true, markup: true} }
func tag(s string) item    { return item{s: s, marker: true} }

// feed runs items through a guard, text cut in chunks of size chunk (0:
// whole), and returns where it fired (-1: not).
func feed(items []item, chunk int) int64 {
	fired, at := feedGuard(items, chunk).Fired()
	if !fired {
		return -1
	}
	return at
}

// feedGuard runs items through a new guard as feed does and returns it.
func feedGuard(items []item, chunk int) *Guard {
	g := New(Limits{})
	g.InText(true)
	var prev uint32
	for _, it := range items {
		b := []byte(it.s)
		if it.marker {
			g.Marker(b, it.markup, prev)
			prev = shiftIn(prev, b)
			continue
		}
		for len(b) > 0 {
			n := len(b)
			if chunk > 0 {
				n = min(chunk, n)
			}
			k := g.Text(b[:n], prev)
			prev = shiftIn(prev, b[:k])
			if k < n {
				break
			}
			b = b[n:]
		}
	}
	return g
}

func repeat(n int, unit ...item) []item {
	var out []item
	for range n {
		out = append(out, unit...)
	}
	return out
}

func size(items []item) int64 {
	var n int64
	for _, it := range items {
		n += int64(len(it.s))
	}
	return n
}

// TestGuardFires checks where the guard fires, or that it does not, for
// each kind of unit, at several chunkings: the place never depends on them.
func TestGuardFires(t *testing.T) {
	dsml := []item{markup("<｜DSML｜function_calls>"), text("\n"), markup(`<｜DSML｜invoke name="search">`), text("\n"),
		markup(`<｜DSML｜parameter name="q" string="true">`), text("x\n")}
	for _, tc := range []struct {
		name  string
		items []item
		at    int64 // -1: must not fire
	}{
		{"markup unit, 7 times", repeat(7, dsml...), -1},
		// A unit that ends in text is known complete at the next marker.
		{"markup unit, 8 times: fires once the 8th is complete", repeat(10, dsml...), size(repeat(8, dsml...)) + size(dsml[:1])},
		{"one closer repeated", repeat(20, markup("</think>")), size(repeat(8, markup("</think>")))},
		{"counter in a marker", func() []item {
			var out []item
			for i := range 20 {
				out = append(out, markup(`<tool_call call_id="call_question_behavior`+itoa(300+i)+`">`), text("\n"))
			}
			return out
		}(), size(repeat(8, markup(`<tool_call call_id="call_question_behavior300">`), text("\n"))) - 1},
		{"counter after a template token", func() []item {
			var out []item
			for i := range 20 {
				out = append(out, markup("<|im_end|>"), text("\n"), markup("<|im_start|>"), text("assistant"+itoa(57+i)+"\n"))
			}
			return out
		}(), size(repeat(8, markup("<|im_end|>"), text("\n"), markup("<|im_start|>"), text("assistant57\n"))) + size([]item{markup("<|im_end|>")})},
		{"a line, 47 times", repeat(47, text("I will now run the test.\n")), -1},
		{"a line, 48 times", repeat(60, text("I will now run the test.\n")), 48 * 25},
		{"two lines, 24 times", repeat(40, text("I will now run the test.\n"), text("Then I will check.\n")), 24 * 44},
		{"a short line, 48 times", repeat(100, text("court!\n"), text("\n")), 48*8 - 1},
		{"a line of padding", repeat(2000, text(strings.Repeat("☺", 50)+"\n")), -1},
		{"a short code line", repeat(200, text("\tX = 0\n")), -1},
		{"a phrase in one line", repeat(400, text(" I will now run the test.")), -2},
		{"one character in a line", repeat(4000, text("a")), -1},
		{"a clause of 215 bytes, across cuts", repeat(40, text(" — just like the sentient beings who sought understanding and purpose — just like Alex — and the small town — once cloaked in mist and mystery — blossomed once again — filled with hope and understanding")), -2},
		{"two letters, 200 times", repeat(200, text("ny")), -1},
		{"two letters, 1000 times", repeat(1000, text("ny")), -2},
		{"a number, 400 times", repeat(400, text("  412")), -1},
		{"a number, 2000 times", repeat(2000, text("  412")), -2},
		{"a list element, 5000 times", repeat(5000, text(" 255,")), -1},
		{"one CJK character, 119 times", append([]item{text("哎，可是我")}, repeat(119, text("像"))...), -2},
		{"one CJK character, 40 times", append([]item{text("哎，可是我")}, repeat(40, text("像"))...), -1},
		{"a row of a diagram, 1000 times", repeat(1000, text("  |                 |\n")), -2},
		{"a row of a diagram, 200 times", repeat(200, text("  |                 |\n")), -1},
		{"a line of one character, 2000 times", repeat(2000, text("=====\n")), -1},
		{"an HTML row repeated, different numbers", func() []item {
			var out []item
			for i := range 100 {
				out = append(out, tag("<tr>"), text("row "+itoa(i)+" value "+itoa(i*7)), tag("</tr>"), text("\n"))
			}
			return out
		}(), -1},
		{"calls with different arguments", func() []item {
			var out []item
			for i := range 30 {
				out = append(out, markup("<tool_call>"), text(`{"name":"read","arguments":{"path":"`+strings.Repeat("x", i)+`"}}`), markup("</tool_call>"), text("\n"))
			}
			return out
		}(), -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := feed(tc.items, 0)
			switch tc.at {
			case -1:
				assert.Equal(t, int64(-1), want, "fired")
			case -2:
				assert.Greater(t, want, int64(0), "did not fire")
			default:
				assert.Equal(t, tc.at, want)
			}
			for _, chunk := range []int{1, 2, 3, 7, 64, 1000} {
				assert.Equal(t, want, feed(tc.items, chunk), "chunk %d", chunk)
			}
		})
	}
}

func itoa(i int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
		if i == 0 {
			return string(b)
		}
	}
}

// TestRepeating: a completed repetition of a markup unit holds calls; a
// symbol that breaks the run releases them.
func TestRepeating(t *testing.T) {
	g := New(Limits{})
	call := []byte(`{"name":"a"}`)
	step := func() {
		g.Marker([]byte("<tool_call>"), true, 0)
		g.Text(call, 0)
		g.Marker([]byte("</tool_call>"), true, 0)
	}
	step()
	assert.False(t, g.Repeating(), "the first unit")
	step()
	assert.True(t, g.Repeating(), "the second")
	g.Text([]byte("Something else entirely.\n"), 0)
	assert.False(t, g.Repeating(), "after other text")
}

// TestNumberedLines: digits fold only next to markup, so a numbered log
// is no loop however long.
func TestNumberedLines(t *testing.T) {
	g := New(Limits{})
	line := []byte("request 0000 served in 0000 ms\n")
	for i := range 100000 {
		copy(line[8:12], fmt4(i))
		copy(line[23:27], fmt4(i*7))
		require.Equal(t, len(line), g.Text(line, 0))
	}
	fired, _ := g.Fired()
	assert.False(t, fired)
}

func fmt4(i int) string {
	s := itoa(i % 10000)
	return strings.Repeat("0", 4-len(s)) + s
}

// TestLoopStart checks where the guard says the loop began, for a unit of
// markup, a phrase and a line after a distinct prefix: never after the
// first unit (a call before it is not part of the loop), and not more
// than a unit before it, at every chunking.
func TestLoopStart(t *testing.T) {
	prefix := []item{text("I will read the file first and then decide what to change.\n"), markup("<tool_call>"),
		text(`{"name": "Read", "arguments": {"file_path": "/tmp/a.go"}}`), markup("</tool_call>"), text("\n")}
	for _, tc := range []struct {
		name string
		unit []item
	}{
		{"markup", []item{markup("<|im_end|>"), text("\n"), markup("<|im_start|>"), text("assistant\n")}},
		{"phrase", []item{text("new Paragraph({ heading: HeadingLevel.HEADING_2 }), ")}},
		{"line", []item{text("    children: [new TextRun(\"1.2 a line of a table\")] }),\n")}},
	} {
		for _, chunk := range []int{0, 1, 7, 64} {
			items := append(append([]item{}, prefix...), repeat(2000, tc.unit...)...)
			g := feedGuard(items, chunk)
			fired, _ := g.Fired()
			require.True(t, fired, "%s chunk %d", tc.name, chunk)
			start, loop := g.LoopStart(), size(prefix)
			assert.LessOrEqual(t, start, loop, "%s chunk %d: the loop's start is after its first unit", tc.name, chunk)
			assert.GreaterOrEqual(t, start, loop-size(tc.unit), "%s chunk %d: the loop's start is more than a unit early", tc.name, chunk)
		}
	}
}

// TestEscapedLinesAnyPhase feeds lines written in a JSON string (`\n`
// escaped), as in a file written into a call's JSON arguments, after
// prefixes of every length up to a unit's: a line of one character
// repeated is padding at every phase of the window (a window that began
// between `\` and `n` read the `n` as a letter of the line, and the Go
// tree's `☺` lines fired), and a line of words is a loop at every phase.
func TestEscapedLinesAnyPhase(t *testing.T) {
	for _, tc := range []struct {
		line string
		loop bool
	}{
		{strings.Repeat("☺", 50) + `\n`, false},
		{`I will now run the test suite again.\n`, true},
	} {
		body := []byte(strings.Repeat(tc.line, 3000))
		for k := range len(tc.line) + 1 {
			g := New(Limits{})
			g.InText(false) // a value's bytes
			g.Text([]byte(strings.Repeat("x", k)+" "), 0)
			g.Text(body, 0)
			fired, _ := g.Fired()
			require.Equal(t, tc.loop, fired, "%q after %d bytes", tc.line, k)
		}
	}
}

// TestWholeEscapes checks the rotation of a unit that begins inside an
// escape.
func TestWholeEscapes(t *testing.T) {
	var buf [maxPeriod]byte
	for _, tc := range []struct{ unit, want string }{
		{`n☺☺\`, `\n☺☺`},
		{`"abc\`, `\"abc`},
		{`ab\\`, `ab\\`},     // an escaped backslash: whole
		{`nab\\\`, `\nab\\`}, // an escaped backslash, then an escape cut
		{`abc`, `abc`},
		{`\`, `\`},
	} {
		assert.Equal(t, tc.want, string(wholeEscapes([]byte(tc.unit), &buf)), "%q", tc.unit)
	}
}
