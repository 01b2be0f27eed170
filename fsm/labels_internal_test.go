package fsm

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReadAttrCall: a body is an attribute-style call only when it is a
// callee and key=value pairs and nothing else; a body cut inside one is
// its start (held to be judged whole, attrbody.go).
func TestReadAttrCall(t *testing.T) {
	for _, c := range []struct {
		in, name, args string
		st             attrStatus
	}{
		{`send_message channel="general" message="Hi! How are you?"`, "send_message", `{"channel":"general","message":"Hi! How are you?"}`, attrDone},
		{" run cmd='ls \"a\"' n=5 ok=true\n", "run", `{"cmd":"ls \"a\"","n":5,"ok":true}`, attrDone},
		{`run cmd="ls`, "", "", attrPrefix},
		{`run cmd=`, "", "", attrPrefix},
		{`run cm`, "", "", attrPrefix},
		{`run`, "", "", attrPrefix},
		{`I think x="y"`, "", "", attrNo},
		{`run cmd="ls" and more`, "", "", attrNo},
		{`run cmd=ls`, "", "", attrNo}, // a bare word is no JSON literal
		{`run cmd="a"x="b"`, "", "", attrNo},
		{`{"a": 1}`, "", "", attrNo},
		{`run 5`, "", "", attrNo}, // ident bytes to the end that cannot start a key
		{"run a=1 9 ", "", "", attrNo},
	} {
		name, args, _, st := readAttrCall([]byte(c.in))
		assert.Equal(t, c.st, st, "%q", c.in)
		if c.st == attrDone {
			assert.Equal(t, c.name, string(name), "%q", c.in)
			assert.JSONEq(t, c.args, string(args), "%q", c.in)
		}
	}
}

// TestCurlyJSON: typographic quotes delimit strings; straight quotes in
// them are escaped; single curly quotes are content.
func TestCurlyJSON(t *testing.T) {
	for in, want := range map[string]string{
		"{“a”: “b”}":              `{"a": "b"}`,
		"{“a”: “say \"hi\" ‘x’”}": `{"a": "say \"hi\" ‘x’"}`,
		"{“a”: {“b”: [1, “c”]}}":  `{"a": {"b": [1, "c"]}}`,
	} {
		assert.Equal(t, want, string(curlyJSON([]byte(in))), "%q", in)
	}
}

// TestEndsWith: a quote's lead bytes are found across the held bytes and
// the chunk.
func TestEndsWith(t *testing.T) {
	w := curlyClose[:2]
	assert.True(t, endsWith(nil, []byte("x\xe2\x80"), w))
	assert.True(t, endsWith([]byte("x\xe2"), []byte("\x80"), w))
	assert.True(t, endsWith([]byte("x\xe2\x80"), nil, w))
	assert.False(t, endsWith([]byte("x"), []byte("\x80"), w))
	assert.False(t, endsWith(nil, nil, w))
}

// TestLabelPrefixes: each prefix opens a label in any case and with '_'
// for a space; a byte no prefix takes ends it.
func TestLabelPrefixes(t *testing.T) {
	for in, ok := range map[string]bool{
		"[Tool Use: a]": true, "[CALLING_TOOL: a]": true, "[Tool call: a]": true, "[using tool: a]": true,
		"[Tool Result: a]": false, "[Calling: a]": false,
	} {
		l := label{state: lbPrefix, live: 1<<len(labelPrefixes) - 1}
		good := true
		for i := 0; i < len(in) && good; i++ {
			good = l.step(in[i], i)
		}
		assert.Equal(t, ok, good && l.state == lbWait, "%q", in)
	}
}

// TestFenceOneLine: a json info string, blanks and a '{' start the body
// on the info line, marked oneLine; other info strings or a word between
// do not.
func TestFenceOneLine(t *testing.T) {
	for in, want := range map[string]int{
		"json {\"a\"":   5,
		"json\t {":      6,
		"python {\"a\"": -1,
		"json x {":      -1,
	} {
		var f fenceText
		f.open()
		n := f.text([]byte(in))
		if want < 0 {
			assert.Equal(t, len(in), n, "%q", in)
			assert.NotEqual(t, int32(oneLine), f.line, "%q", in)
			continue
		}
		assert.Equal(t, want, n, "%q", in)
		assert.Equal(t, int32(oneLine), f.line, "%q", in)
		assert.True(t, f.mayOpen(), "%q", in)
	}
}
