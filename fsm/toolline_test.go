package fsm

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A line's first word cut by a chunk's end holds the line back only while
// it may still become a declared name (in any case, as Declared reads
// names); without the names every word may.
func TestDeclNamesMayBe(t *testing.T) {
	var d *declNames
	assert.True(t, d.mayBe([]byte("The")), "no names: any word may")
	m := New(Options{
		Declared: func(name []byte) bool { return string(name) == "read_file" || string(name) == "Bash" },
		Fits:     func([]string) (string, bool) { return "", false },
	}, &recorder{})
	m.DeclareNames([]string{"read_file", "Bash"})
	for w, want := range map[string]bool{
		"r": true, "rea": true, "read_file": true, "READ_F": true, "b": true, "bas": true, "Bash": true,
		"The": false, "rx": false, "read_files": false, "a": false,
	} {
		assert.Equal(t, want, m.tail.names.mayBe([]byte(w)), "word %q", w)
	}
	assert.True(t, m.mayToolLine([]byte("rea")), "a declared name's start")
	assert.False(t, m.mayToolLine([]byte("The")), "no declared name's start")
	assert.True(t, m.mayToolLine([]byte("read_file>")))
	assert.False(t, m.mayToolLine([]byte("The>")))
}
