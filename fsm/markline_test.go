package fsm

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMarkLineSteps: DSML markers written as lines without brackets are
// held while the line may still be one, read as the marker when the line
// ends, and given back as text when the line, or the next, says otherwise.
func TestMarkLineSteps(t *testing.T) {
	opt := Options{Dialects: map[string]bool{dsmlDialect: true}}
	runSteps(t, opt, []stepCase{
		{"a call in marker lines, cut anywhere", []string{"ok\nDS", "ML | tool_calls\nDSML | inv", "oke name=\"f\"\nDSML | parameter name=\"a\" string=\"true\"\nx", "\nDSML | /param", "eter\nDSML | /invoke", "\nDSML | /tool_calls"},
			[][]string{{`text "ok\n"`}, nil, {`start f`}, nil, nil, {`call f a="x" [marker_variant corrupted_closer missing_bracket]`}, {`discard block_markup`}}},
		{"the next parameter closes the first", []string{"DSML | tool_calls\nDSML | invoke name=\"f\"\nDSML | parameter name=\"a\" string=\"true\"\nx\nDSML | parameter name=\"b\" string=\"false\"\n2\nDSML | /parameter\nDSML | /invoke\n"},
			[][]string{{`start f`, `call f a="x" b="2" [marker_variant corrupted_closer missing_closer missing_bracket]`}, {`discard block_markup`}}},
		{"a wrapper line before prose", []string{"DSML | tool_calls\n", "is the wrapper\n"},
			[][]string{nil, {`text "DSML | tool_calls\nis "`, `text "the wrapper\n"`}, nil}},
		{"a marker line in a sentence", []string{"see DSML | tool_calls\n"},
			[][]string{{`text "see DSML | tool_calls\n"`}, nil}},
		{"no bar after the word", []string{"DSML tool_calls\n"},
			[][]string{{`text "DSML tool_calls\n"`}, nil}},
	})
}

// TestMayMarkLine checks what a line start may still become.
func TestMayMarkLine(t *testing.T) {
	m := New(Options{}, &recorder{})
	for in, want := range map[string]bool{
		"D": true, "DSML": true, "dsml |": true, "DSML | too": true, "DSML｜invoke name=\"x\"": true, "｜DSML｜": true,
		"GCML | tool_calls\n": true, "DSML | tool_calls\n": true, "DSML|/invoke\n": true,
		"Dear": false, "DSMLx": false, "DSML tool_calls": false, "DSML | notes | more\n": false, "DSML | tool_calls is\n": false,
	} {
		assert.Equal(t, want, m.mayMarkLine([]byte(in)), in)
	}
}
