package fsm

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestReadHash(t *testing.T) {
	for _, tt := range []struct {
		in, name, args string
		unread, ok     bool
	}{
		{`{tool => "t", args => {--command "echo test"}}`, "t", `{"command":"echo test"}`, false, true},
		{"{tool => \"t\", args => {\n  --a 1\n  --b\n  --c 'x y'\n}}", "t", `{"a":1,"b":true,"c":"x y"}`, false, true},
		{`{:name => 't', :arguments => {:a => [1, "2", nil], :b => {c: true}}}`, "t", `{"a":[1,"2",null],"b":{"c":true}}`, false, true},
		{`{"tool": "t", "args": {"k": "v\n\"q\"", "n": -1.5e3}}`, "t", `{"k":"v\n\"q\"","n":-1.5e3}`, false, true},
		{`{tool => "t", args => {k => bare_word, z => 012}}`, "t", `{"k":"bare_word","z":"012"}`, false, true},
		{`{tool => "t", args => {a => 1., b => -.5, c => -Inf, d => 0, e => 10E+2}}`, "t", `{"a":"1.","b":"-.5","c":"-Inf","d":0,"e":10E+2}`, false, true},
		{`{tool => "t", id => 3}`, "t", "", false, true},
		{`{tool => "t", args => "ls"}`, "t", "", true, true},
		{`{tool => "t", args => {k => "unterminated}}`, "", "", false, false},
		{`{tool "t"}`, "", "", false, false},
		{`{tool => "t"} trailing`, "", "", false, false},
	} {
		name, args, unread, ok := readHash([]byte(tt.in))
		if assert.Equal(t, tt.ok, ok, tt.in) && ok {
			assert.Equal(t, tt.name, string(name), tt.in)
			assert.Equal(t, tt.args, string(args), tt.in)
			assert.Equal(t, tt.unread, unread, tt.in)
		}
	}
}

func TestHashTrack(t *testing.T) {
	in := []byte(`{a => "}{", b => {c => 'd}'}, e => don't}rest`)
	var h hashTrack
	n, done := 0, false
	for i := range in { // a byte at a time
		k, d := h.write(in[i : i+1])
		n += k
		if d {
			done = true
			break
		}
	}
	assert.True(t, done)
	assert.Equal(t, len(in)-len("rest"), n)
}
