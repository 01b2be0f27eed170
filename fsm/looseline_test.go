package fsm

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLooseLineSteps: a gemma4 call whose tokens were lost is held while
// its line may still be one, reported when its line ends, and given back
// whole when text follows it on its line. Only gemma4 is on: its line
// calls need no other line dialect.
func TestLooseLineSteps(t *testing.T) {
	opt := Options{
		Dialects: map[string]bool{gemma4: true},
		Declared: func(n []byte) bool { return string(n) == "write_file" },
	}
	runSteps(t, opt, []stepCase{
		{"held, then reported at the line's end", []string{"ok\ncall:wri", "te_file{path:a}", "\nnext"},
			[][]string{{`text "ok\n"`}, nil, {`call write_file {"path":"a"}[missing_opener]`}, {`text "next"`}}},
		{"reported at the end of input", []string{"call:write_file{path:", "<|\"|>a<|\"|>}"},
			[][]string{nil, nil, {`call write_file {"path":"a"}[missing_opener]`}}},
		{"text after it on its line", []string{"call:write_file{path:a}", " is the format\n"},
			[][]string{nil, {`text "call:write_file{path:a} "`, `text "is the format\n"`}, nil}},
		{"an undeclared name", []string{"call:read_file{path:a}\n"},
			[][]string{{`text "call:read_file{path:a}\n"`}, nil}},
		{"not at a line start", []string{"so call:write_file{path:a}\n"},
			[][]string{{`text "so call:write_file{path:a}\n"`}, nil}},
	})
}

// TestMayLooseLine checks what a line start may still become.
func TestMayLooseLine(t *testing.T) {
	m := New(Options{Declared: func(n []byte) bool { return string(n) == "grep" }}, &recorder{})
	for in, want := range map[string]bool{
		"c": true, "call": true, "call:": true, "call:gr": true, "call:grep": true, "call:grep{": true,
		"call:grep(": false, "call:read{": false, "cal:grep{": false, "call: grep{": false,
	} {
		assert.Equal(t, want, m.mayLooseLine([]byte(in)), in)
	}
}
