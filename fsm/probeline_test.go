package fsm

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSymbolSteps feeds chunks to a machine with declared tools and checks
// what each releases around the symbol openers, name lines and line calls
// (probeline.go, linecall.go): a prefix of an opener is held until the
// next bytes decide, text that cannot start one passes at once, a call
// goes out with its last byte.
func TestSymbolSteps(t *testing.T) {
	tests := []stepCase{
		{"an arrow opener split anywhere", []string{"Checking. >", ">", `>get_weather` + "\n" + `{"city": `, `"SF"}`},
			[][]string{{`text "Checking. "`}, {}, {}, {`call get_weather {"city": "SF"}[]`}, nil}},
		{"arrows that are no opener go back", []string{"a >>", " b"},
			[][]string{{`text "a "`}, {`text ">> "`, `text "b"`}, nil}},
		{"the answer's header is dropped", []string{"all", "\nFine.>>>get_weather\n{}"},
			[][]string{{}, {`discard stray_token`, `text "Fine."`, `call get_weather {}[]`}, nil}},
		{"the first line names the call", []string{"get_wea", "ther\n", `{"city": "SF"}`},
			[][]string{{}, {}, {`call get_weather {"city": "SF"}[]`}, nil}},
		{"a label opener held until its fence", []string{"Done.\n**Tool Ca", "ll:**\n", "```json\n" + `{"name": "get_weather", "arguments": {}}`, "\n```\nok"},
			[][]string{{`text "Done.\n"`}, {}, {`call get_weather {}[]`}, {`discard block_markup`, `text "\n"`}, {`text "ok"`}}}, // "ok" may begin a word line
		{"bold text is no label", []string{"**Tool", " Time** is"},
			[][]string{{}, {`text "**Tool T"`, `text "ime** is"`}, nil}},
		{"a line call goes out with its line's newline", []string{"Sure.\nget_weather(city=", `"SF")`, "\nok"},
			[][]string{{`text "Sure.\n"`}, {}, {`call get_weather {"city":"SF"}[]`}, {`text "ok"`}}},
		{"prose after a line call's parenthesis makes it text", []string{"get_weather(city='SF')", " is one call."},
			[][]string{{}, {`text "get_weather(city='SF') "`, `text "is one call."`}, nil}},
	}
	declared := func(name []byte) bool { return string(name) == "get_weather" }
	runSteps(t, Options{Declared: declared}, tests)
}

// TestSymbolOpenersWithoutTools: rwkv's label counts without declared
// tools; the openers of dialects that need them do not.
func TestSymbolOpenersWithoutTools(t *testing.T) {
	rec := &recorder{}
	m := New(Options{}, rec)
	m.Write([]byte(">>>get_weather\n{}\nget_weather(city='SF')\n**Tool Call:**\n```json\n{\"name\": \"f\", \"arguments\": {}}\n```"))
	m.Close()
	var text string
	var others []string
	for _, e := range rec.got {
		if s, ok := strings.CutPrefix(e, "text "); ok {
			u, _ := strconv.Unquote(s)
			text += u
		} else {
			others = append(others, e)
		}
	}
	assert.Equal(t, ">>>get_weather\n{}\nget_weather(city='SF')\n", text)
	assert.Equal(t, []string{`call f {}[]`, `discard block_markup`}, others)
}
