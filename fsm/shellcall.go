package fsm

import (
	"bytes"
)

// Models asked for a call in a harness that shows them shell commands
// write it as a command line of its own:
//
//	read_file file="c:\Users\y\package.json"
//
// Such a line is a call only where it is nothing else: it starts a line
// outside code, its first word is a declared tool's name, and the rest is
// one or more key="value" pairs (single or double quotes, the value taken
// byte for byte: no escapes, as in a shell's quotes) up to the line's end.
// The keys must fit the tool's schema; the call carries inferred_call. A
// sentence ("read_file is what I used"), an unquoted value
// (`read_file path=a`, a shell variable), an undeclared name, unfit keys,
// or anything after the last value stays text; in a code fence no line
// call is looked for (usage shown to the user), nor after a line that
// introduces an illustration ("Usage:", see illustrates).

// shellKey starts a shell-style line call's first key at c, after the
// callee (p.val) and a space. The verdict, pvIfDeclared, leaves it to the
// machine to read on (declaredCallee): mayExprLine holds such a line only
// after a declared tool's name.
func (p *probe) shellKey(c byte) probeVerdict {
	p.key[0], p.nkey, p.state = c, 1, pShKey
	return pvIfDeclared
}

// declaredCallee is the verdict on a byte that a line call's probe reads
// on with only after a declared tool's name (pvIfDeclared): a shell-style
// call's first key, the blank after a callee (callexpr.go). mayExprLine
// holds such a line only then; a probe that read on without it would
// hold a line cut after its first word that the same line in one chunk
// gives to the text at once (its quotes hiding the markup after them, a
// marker the end cuts short after it kept as text, not dropped).
func (m *Machine) declaredCallee() probeVerdict {
	if m.declared(m.probe.val[:m.probe.nval]) {
		return pvMore
	}
	return pvNot
}

// shellStep advances the probe through a shell-style line call's pairs.
func (p *probe) shellStep(c byte) probeVerdict {
	switch p.state {
	case pShKey:
		switch {
		case isIdentByte(c) || c == '-':
			if p.nkey == maxProbeKey {
				return pvNot
			}
			p.key[p.nkey] = c
			p.nkey++
		case c == '=':
			p.state = pShQuote
		default:
			return pvNot
		}
	case pShQuote:
		if c != '"' && c != '\'' {
			return pvNot
		}
		p.quote, p.state = c, pShVal
	case pShVal:
		switch c {
		case p.quote:
			p.state = pShSp
		case '\n':
			return pvNot
		}
	case pShSp:
		switch {
		case c == ' ' || c == '\t' || c == '\r':
		case c == '\n':
			return pvShell
		case isWordByte(c):
			p.key[0], p.nkey, p.state = c, 1, pShKey
		default:
			return pvNot
		}
	}
	return pvMore
}

// shellKeyAt reports whether b, after a line's first word and spaces, may
// start a shell-style call's first pair as far as it shows: a key, then
// '=' (the check that keeps prose lines from costing a name lookup).
func shellKeyAt(b []byte) bool {
	i := 0
	for i < len(b) && keyByte[b[i]] {
		i++
	}
	return i == len(b) || b[i] == '='
}

// shellCall emits the shell-style line call the probe holds (m.buf, its
// line break last), when its tool is declared and its pairs fit it. It
// reports whether it did.
func (m *Machine) shellCall() bool {
	name := m.probe.val[:m.probe.nval]
	if !m.declared(name) {
		return false
	}
	args, ok := shellArgs(m.buf[len(name):])
	if !ok || !m.objectFits(name, args) || m.illustrated() {
		return false
	}
	return m.emitInferred(bytes.Clone(name), args)
}

// shellAtEOF ends a shell-style line call that the end of input cut after
// its last value, as its line's end would.
func (m *Machine) shellAtEOF() {
	if m.lv == lvProbe && m.probe.state == pShSp && !m.shellCall() {
		m.probeText()
	}
}

// shellArgs returns the arguments object of a shell-style line's pairs,
// b (` k="v" k2='w'` and the line's end), read as a tag's attributes are
// (attrbody.go; the probe let only quoted values through).
func shellArgs(b []byte) ([]byte, bool) {
	args, _, st := attrPairs(b)
	return args, st == attrDone
}
