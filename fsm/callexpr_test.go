package fsm

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestExprLinePrefixes: the probe of a line call reads the prefixes of
// callexpr.go up to the declared name and its '(', and mayExprLine holds
// every start of such a line (else where the chunks fall would decide);
// lines that are no call are refused by both, prose lines at once.
func TestExprLinePrefixes(t *testing.T) {
	declared := func(w []byte) bool { return string(w) == "read_file" || string(w) == "terminal" }
	m := &Machine{opt: Options{Declared: declared}}
	probeName := func(line string) (string, bool) {
		p := &probe{state: pList, py: true, lineCall: true}
		for i := 0; i < len(line); i++ {
			switch p.step(line[i]) {
			case pvNot:
				return "", false
			case pvName:
				return string(p.val[:p.nval]) + "@" + line[p.body:p.body+p.nval], declared(p.val[:p.nval])
			}
		}
		return "", false
	}
	for _, line := range []string{
		`read_file(path="a")`,
		`read_file (path="a")`,
		`Action: read_file(path="a")`,
		`Tool call: terminal(command="ls")`,
		`calling TOOL:  read_file(path="a")`,
		`print(default_api.read_file(path="a"))`,
		`print (await functions.terminal(command="ls"))`,
		`await read_file(path="a")`,
		`Call: print(await default_api.read_file(path="a"))`,
	} {
		name, ok := probeName(line)
		assert.True(t, ok, "%s: the probe reads a declared name", line)
		assert.Contains(t, []string{"read_file@read_file", "terminal@terminal"}, name, "%s: the name, where the body starts", line)
		for i := 1; i <= len(line); i++ {
			assert.True(t, m.mayExprLine([]byte(line[:i])), "%q: a start of a line call is held", line[:i])
		}
	}
	for _, line := range []string{
		`I will call read_file(path="a") next`,
		`Then read_file(path="a")`,
		`Step one: read_file(path="a")`,
		`Action: write_file(path="a")`,
		`print(os.read_file(path="a"))`,
		`print(print(read_file(path="a")))`,
		`default_api.functions.read_file(path="a")`,
		`Action: Tool call: read_file(path="a")`,
	} {
		_, ok := probeName(line)
		assert.False(t, ok, "%s: no call", line)
		assert.False(t, m.mayExprLine([]byte(line)), "%s: not held", line)
	}
	for _, start := range []string{"see ", "so my", "The file ", "a [", "Note that "} {
		assert.False(t, m.mayExprLine([]byte(start)), "%q: prose is not held", start)
	}
}

// TestShellLineSteps: a shell-style line call (shellcall.go) is held from
// its first byte to its line's end, where the probe hands it over; a line
// that is not one is refused by the probe.
func TestShellLineSteps(t *testing.T) {
	m := &Machine{opt: Options{Declared: func(w []byte) bool { return string(w) == "read_file" }}}
	verdict := func(line string) probeVerdict {
		m.probe = &probe{state: pList, py: true, lineCall: true}
		for i := 0; i < len(line); i++ {
			v := m.probe.step(line[i])
			if v == pvIfDeclared {
				v = m.declaredCallee()
			}
			if v != pvMore {
				return v
			}
		}
		return pvMore
	}
	for _, line := range []string{"read_file path=\"a b\"\n", "read_file  path='c:\\x' n=\"1\" \r\n"} {
		assert.Equal(t, pvShell, verdict(line), "%q", line)
		for i := 1; i <= len(line); i++ {
			assert.True(t, m.mayExprLine([]byte(line[:i])), "%q: held", line[:i])
		}
	}
	for _, line := range []string{"read_file path=a\n", "read_file path=\"a\" x\n", "read_file is good\n", "read_file path=\"a\n\"\n", "Tool read_file path=\"a\"\n",
		"write_file path=\"a\"\n", "Ab A=\"</invoke>"} { // undeclared callees: refused at their first key, as mayExprLine refuses the line
		assert.Equal(t, pvNot, verdict(line), "%q", line)
	}
	assert.False(t, m.mayExprLine([]byte("write_file path=\"a\"")), "an undeclared name is not held")
}

// TestProbeWithinMayLineCall is TestExprLinePrefixes the other way: at
// every byte of a line call's probe that reads on, mayLineCall holds the
// line so far (else the line whose bytes come in one chunk is text at
// once, and the same line cut after its first word is probed on: markup
// in its quotes is text one way, markup the other). Lines are made of
// words, names and punctuation at random (a fixed seed).
func TestProbeWithinMayLineCall(t *testing.T) {
	m := &Machine{opt: Options{Declared: func(w []byte) bool { return string(w) == "read_file" || string(w) == "terminal" }}}
	parts := []string{"read_file", "terminal", "Ab", "await", "print", "Action", "Tool", "call", "default_api", "functions",
		".", ":", " ", "  ", "\t", "\n", "\r", "(", ")", "=", "\"", "'", "x", "-", "{", "path", "1"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		var line []byte
		for n := 1 + rng.IntN(7); n > 0; n-- {
			line = append(line, parts[rng.IntN(len(parts))]...)
		}
		if !isWordByte(line[0]) {
			continue
		}
		m.probe = &probe{state: pList, py: true, lineCall: true}
		for i, c := range line {
			v := m.probe.step(c)
			if v == pvIfDeclared {
				v = m.declaredCallee()
			}
			if v != pvMore {
				break
			}
			if !m.mayLineCall(line[:i+1]) {
				t.Fatalf("%q: the probe reads on, mayLineCall does not hold the line", line[:i+1])
			}
		}
	}
}

// TestForLabelArgs: a label line `[LABEL: NAME for KEY 'VALUE']` gives the
// declared tool and {KEY: VALUE}; anything more or less is no call.
func TestForLabelArgs(t *testing.T) {
	declared := func(w []byte) bool { return string(w) == "read_file" }
	for _, tt := range []struct{ held, name, args string }{
		{`[tool_call: read_file for absolute_path 'requirements.txt']`, "read_file", `{"absolute_path":"requirements.txt"}`},
		{`[Tool call:read_file for path "a b.txt" ]`, "read_file", `{"path":"a b.txt"}`},
		{`[tool_call: read_file for path = 'x']`, "read_file", `{"path":"x"}`},
		{`[tool_call: write_file for path 'a']`, "", ""},
		{`[tool_call: read_file for path 'a' and more]`, "", ""},
		{`[tool_call: read_file with path 'a']`, "", ""},
		{`[tool_call: read_file for path a]`, "", ""},
		{`[see: the docs] read_file for path 'a']`, "", ""},
		{`[x]`, "", ""},
	} {
		name, args, ok := forLabelArgs([]byte(tt.held), declared)
		assert.Equal(t, tt.name != "", ok, tt.held)
		assert.Equal(t, tt.name, string(name), tt.held)
		if ok {
			assert.JSONEq(t, tt.args, string(args), tt.held)
		}
	}
}

// TestShellArgs: the pairs of a shell-style line, values byte for byte.
func TestShellArgs(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{` file="c:\Users\y\a.json"`, `{"file":"c:\\Users\\y\\a.json"}`},
		{` a='1'  b="x y" `, `{"a":"1","b":"x y"}`},
		{` a="1" a="2"`, ""},
		{` a="1`, ""},
		{` =""`, ""},
		{``, ""},
	} {
		args, ok := shellArgs([]byte(tt.in))
		assert.Equal(t, tt.want != "", ok, tt.in)
		if ok {
			assert.JSONEq(t, tt.want, string(args), tt.in)
		}
	}
}
