package fsm

import (
	"bytes"
	"slices"
)

// A line call (linecall.go) may come with a prefix that Gemini, ReAct
// agents and other harnesses write before a Python call expression of a
// declared tool:
//
//	Action: json_spec_list_keys(path="data")
//	Tool call: read_file(path="a.txt")
//	print(default_api.get_weather(city="Paris"))
//	print(await functions.read_file(path="a.txt"))
//
// The prefix is, in this order and each optional: a label (a word and
// ':', or two words whose first is one of labelLeads), a print( wrapper,
// `await`, a namespace
// (exprNamespaces) glued to the name by '.'. The line must still be the
// call and nothing else: the declared tool's name, its arguments in Python
// keywords, the wrapper's ')' and the end of the line. Words before the
// name without a label's ':' are a sentence ("I will call read_file(path)
// next" stays text), an undeclared name or another namespace (`os.remove`)
// is no call, and in a code fence no line call is looked for, nor after
// text that introduced an illustration ("Usage:", see illustrates). Because the
// prefix is a guess, the call must fit the tool's schema (objectFits) and
// carries inferred_call.

// labelLeads are the words a label of two words before a line call starts
// with (`Tool call:`, `Function call:`, `Calling tool:`); any word glued to
// ':' is a label of one (`Action:`). Only these lines are held at a chunk's
// end after their first word and a space, so that prose lines are not.
var labelLeads = []string{"tool", "function", "calling"}

// labelLead reports whether w is one of labelLeads, in any case (by its
// length first: most lines of prose start with no such word).
func labelLead(w []byte) bool {
	for _, l := range labelLeads {
		if len(w) == len(l) && w[0]|0x20 == l[0] && bytes.EqualFold(w, []byte(l)) {
			return true
		}
	}
	return false
}

// calleeByte marks the bytes that go on a callee's name after its first
// (isIdentByte, '.', '-'), and keyByte those of a shell-style key.
var calleeByte, keyByte = func() (c, k [256]bool) {
	for b := range 256 {
		k[b] = isIdentByte(byte(b)) || b == '-'
		c[b] = k[b] || b == '.'
	}
	return c, k
}()

// exprNamespaces are the namespaces models write before a tool's name:
// Gemini's default_api, OpenAI's functions.
var exprNamespaces = []string{"default_api", "functions"}

// exprPre is what a line call's prefix held, as the probe read it.
type exprPre struct {
	words uint8 // words read before the current one, with no ':' yet
	label bool  // a label's ':' was read
	wrap  uint8 // print( wrappers opened: as many ')' must end the line
	shut  uint8 // their ')' read after the call's
	await bool  // `await` was read
	ns    bool  // a namespace was read
}

// guessed reports whether the line call had a prefix.
func (e *exprPre) guessed() bool { return e.label || e.wrap > 0 || e.await || e.ns }

// namespace is called at a '.' in a line call's callee: when the callee so
// far is a namespace, it is dropped and the name starts after the '.'.
func (p *probe) namespace() bool {
	if p.expr.ns || !slices.Contains(exprNamespaces, string(p.val[:p.nval])) {
		return false
	}
	p.expr.ns, p.nval, p.body = true, 0, p.seen
	return true
}

// callParen steps the probe by the '(' after a callee: print( opens a
// wrapper (the callee comes next), else the callee is the call's name,
// unless words without a label stood before it (a sentence).
func (p *probe) callParen() probeVerdict {
	if p.lineCall && (p.expr.words > 0 && !p.expr.label) {
		return pvNot
	}
	if p.lineCall && p.expr.wrap == 0 && !p.expr.await && !p.expr.ns && string(p.val[:p.nval]) == "print" {
		p.expr.wrap++
		p.state = pList
		return pvMore
	}
	p.python = true
	return pvName
}

// labelEnd steps the probe by a ':' glued to a word at the line's start:
// the words so far were a label.
func (p *probe) labelEnd() probeVerdict {
	if p.expr.guessed() || p.nval == 0 {
		return pvNot
	}
	p.expr.label = true
	p.state = pList
	return pvMore
}

// spacedLead reports whether the callee a line call's probe read may be
// followed by blanks whatever the declared tools (as mayExprLine holds
// such a line): print or await without a namespace, or a label's first
// word.
func (p *probe) spacedLead() bool {
	w := p.val[:p.nval]
	return !p.expr.ns && (p.expr.wrap == 0 && string(w) == "print" || !p.expr.await && string(w) == "await") ||
		!p.expr.guessed() && p.expr.words == 0 && labelLead(w)
}

// nextWord steps the probe by c, a word's first byte after a word and
// spaces: after `await` it starts the callee, else the word before was one
// of a label's.
func (p *probe) nextWord(c byte) probeVerdict {
	switch w := string(p.val[:p.nval]); {
	case w == "await" && !p.expr.await && !p.expr.ns:
		p.expr.await = true
	case !p.expr.guessed() && p.expr.words == 0 && !labelLead(p.val[:p.nval]):
		return p.shellKey(c) // shellcall.go: the machine reads on only after a declared callee
	case p.expr.guessed() || p.expr.words > 0 || !labelLead(p.val[:p.nval]):
		return pvNot
	default:
		p.expr.words++
	}
	p.val[0], p.nval, p.state, p.body = c, 1, pCallee, p.seen-1
	return pvMore
}

// exprLead reports whether a line whose first word is w, then rest after
// spaced (or not) spaces, may go on as a line call with a prefix: ':'
// glued to w, or a word after `await` or a label's first word, or a key and
// '=' (shellcall.go). Most lines of prose fail here at the cost of a few
// comparisons, the name lookups left to mayExprLine.
func exprLead(w, rest []byte, spaced bool) bool {
	switch c := rest[0]; {
	case c == ':':
		return !spaced
	case !spaced || !isWordByte(c):
		return false
	}
	return len(w) == 5 && string(w) == "await" || labelLead(w) || shellKeyAt(rest)
}

// mayExprLine reports whether the line that starts b may be a line call,
// as far as b shows: its prefix (see exprPre), then a declared tool's
// name, optional spaces and '('. It accepts at least every start the
// probe goes on with, so that where the chunks fall does not matter.
func (m *Machine) mayExprLine(b []byte) bool {
	var e exprPre
	i := 0
	for {
		j := i + 1
		for j < len(b) && (isIdentByte(b[j]) || b[j] == '.' || b[j] == '-') {
			j++
		}
		if j-i > maxProbeVal {
			return false
		}
		if j == len(b) {
			return true // the word may go on
		}
		w := b[i:j]
		k := j
		for k < len(b) && (b[k] == ' ' || b[k] == '\t') {
			k++
		}
		if k == len(b) { // spaces after w: what may follow them
			return m.opt.Declared(stripNamespace(w)) || e.wrap == 0 && string(w) == "print" ||
				!e.await && string(w) == "await" || !e.guessed() && e.words == 0 && labelLead(w)
		}
		switch c := b[k]; {
		case c == '(':
			if e.words > 0 && !e.label {
				return false
			}
			if e.wrap == 0 && !e.await && string(w) == "print" {
				e.wrap = 1
				k++
			} else {
				return m.opt.Declared(stripNamespace(w))
			}
		case c == ':' && k == j && !e.guessed():
			e.label = true
			k++
		case isWordByte(c) && k > j && string(w) == "await" && !e.await:
			e.await = true
		case isWordByte(c) && k > j && !e.guessed() && e.words == 0 && shellKeyAt(b[k:]) && m.opt.Declared(w):
			return true // a shell-style line call may follow (shellcall.go)
		case isWordByte(c) && k > j && !e.guessed() && e.words == 0 && labelLead(w):
			e.words++
		default:
			return false
		}
		for k < len(b) && (b[k] == ' ' || b[k] == '\t') {
			k++
		}
		if k == len(b) {
			return true
		}
		if !isWordByte(b[k]) {
			return false
		}
		i = k
	}
}

// stripNamespace returns w without one of exprNamespaces and its '.'.
func stripNamespace(w []byte) []byte {
	for _, ns := range exprNamespaces {
		if len(w) > len(ns) && string(w[:len(ns)]) == ns && w[len(ns)] == '.' {
			return w[len(ns)+1:]
		}
	}
	return w
}

// exprWrapClose takes c, a byte after a line call's ')': a print( wrapper's
// ')' is part of the call's line. It reports whether it took c.
func (m *Machine) exprWrapClose(c byte) bool {
	if c != ')' || m.probe == nil || m.probe.expr.shut >= m.probe.expr.wrap {
		return false
	}
	m.probe.expr.shut++
	return true
}

// exprUnfit reports whether the line call just read, name(args), had a
// prefix (see exprPre) and is no call after all: a wrapper was left
// open, or the arguments do not fit the declared tool. A call that had a
// prefix gets inferred_call in rep.
func (m *Machine) exprUnfit(name, args []byte, rep *Repairs) bool {
	p := m.probe
	if p == nil || !p.lineCall || !p.expr.guessed() && m.code != codeFence { // toolcode.go
		return false
	}
	*rep |= RInferredCall
	if c := bytes.IndexByte(m.buf, ':'); p.expr.label && c >= 0 && illustrates(m.buf[:c+1]) {
		return true // `Example: NAME(..)` shows a call
	}
	return p.expr.shut < p.expr.wrap || m.opt.FitsTool == nil || !m.objectFits(name, args) || m.illustrated()
}
