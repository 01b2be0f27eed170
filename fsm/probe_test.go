package fsm

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTextOpeners: the probe table holds every text opener of the table,
// and only the fenced ones count in a fence.
func TestTextOpeners(t *testing.T) {
	var all, fenced []string
	for k, o := range pt.ops {
		all = append(all, table[o.spec].Name+" "+o.text)
		if pt.fenced.has(k) {
			fenced = append(fenced, table[o.spec].Name)
		}
	}
	assert.Equal(t, []string{"json {", "xlam [", "pythonic [", "phi4_mini functools[", "tgi {", "functionary_v32 >>>", "rwkv **Tool Call:**"}, all)
	assert.Equal(t, []string{jsonDialect, xlam, phi4Mini, tgi}, fenced)
	assert.Equal(t, []int{3}, pt.words)
	assert.Equal(t, len("functools"), pt.word)
	assert.Equal(t, []int{5, 6}, pt.syms)
}

// TestProbeSteps feeds chunks with a declared tool and checks what each one
// releases: text that cannot start a call at once, a possible opener held
// until the bytes decide.
func TestProbeSteps(t *testing.T) {
	tests := []stepCase{
		{"a word that may become the opener is held", []string{"see func", "tion"},
			[][]string{{`text "see "`}, {`text "functi"`, `text "on"`}, nil}},
		{"the opener split anywhere", []string{"fun", "ctools", `[{"name": "get_weather"`, `, "arguments": {}}]`},
			[][]string{{}, {}, {}, {`call get_weather {}[]`}, nil}},
		{"the opener only as a word of its own", []string{"so my", `functools[{"name": "get_weather", "arguments": {}}]`},
			[][]string{{`text "so my"`}, {`text "functools"`, `call get_weather {}[]`}, nil}},
		// A ']' that ends a chunk waits: it may begin MiniMax-M3's sentinel.
		{"a bracket held until its content decides", []string{"a [", "1]"},
			[][]string{{`text "a "`}, {`text "[1"`}, {`text "]"`}}},
		{"an undeclared name goes back to the text", []string{`[{"name": "oth`, `er"`, `}]`},
			[][]string{{}, {`text "[{\"name\": \"other\""`}, {`text "}"`}, {`text "]"`}}},
		{"a python call reported at its parenthesis", []string{"[get_weather(", "city='SF'", ")", "]"},
			[][]string{{}, {}, {`call get_weather {"city":"SF"}[]`}, {`discard block_markup`}, nil}},
		{"a byte that ends one probe starts the next", []string{"{ [", `{"name": "get_weather", "arguments": {}}]`},
			[][]string{{}, {`text "{ "`, `call get_weather {}[]`}, nil}},
		{"a word line that began like the opener", []string{"Hi.\nfu", "n\n", `<invoke name="get_weather"></invoke>`},
			[][]string{{`text "Hi.\n"`}, {}, {`call get_weather [missing_opener]`}, nil}},
		{"a marker ends a probe outside a string", []string{"f", "<b>"},
			[][]string{{}, {`text "f"`, `text "<b>"`}, nil}},
	}
	declared := func(name []byte) bool { return string(name) == "get_weather" }
	runSteps(t, Options{Declared: declared}, tests)
}

// TestProbeOff: without declared tools, or with no dialect of text openers
// enabled, nothing is held back.
func TestProbeOff(t *testing.T) {
	declared := func(name []byte) bool { return true }
	for _, opt := range []Options{{}, {Declared: declared, Dialects: map[string]bool{hermes: true}}} {
		rec := &recorder{}
		m := New(opt, rec)
		m.Write([]byte("x func"))
		assert.Equal(t, []string{`text "x func"`}, rec.got)
		assert.Zero(t, m.Holding())
	}
}
