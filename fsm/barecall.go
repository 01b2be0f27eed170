package fsm

import (
	"slices"
	"strings"

	"github.com/toolsieve/toolsieve/lexer"
)

// A call whose markup lost its '<' may come without its wrapper too, its
// call opener the first line of the markup:
//
//	invoke name="get_weather">
//	parameter name="location">Parisparameter>
//	invoke>
//
// Such a line is a call only where the request declares tools and the
// line names one of them: a line of its own, a whole call opener of a
// dialect whose markup may be written without '<' (bareDialects), and a
// declared tool in its name slot. Prose that writes `invoke name="x">`
// with an undeclared x, or a sentence around it, stays text; in a code
// fence no line is held (openerAt). The call carries missing_opener and
// missing_bracket; the rest of it is read as in any call (bare argument
// openers, closers without `</`: bare.go, body.go).

// bareCallNames are the call element names such a line may spell, in the
// lexer's folded spelling.
var bareCallNames = func() (names []string) {
	for i := range table {
		if !bareDialects.has(i) {
			continue
		}
		for _, op := range table[i].opens {
			if op.role != rCallOpen || op.marker != table[i].call || op.ns != "" {
				continue
			}
			for _, n := range lexer.TagNames(op.marker) {
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
	}
	for _, n := range names {
		bareFirst[n[0]] = true
	}
	return names
}()

// callPrefix reports whether w may still become a call element's name.
func callPrefix(w string) bool {
	for _, n := range bareCallNames {
		if strings.HasPrefix(n, w) {
			return true
		}
	}
	return false
}

// bareCallLine opens the call whose opener line without '<', all of
// m.buf, is token t, which the dialects cands may start in role r: a call
// opener naming a declared tool. It reports whether it did.
func (m *Machine) bareCallLine(t *lexer.Token, cands dset, r role) bool {
	cands &= bareDialects
	if r != rCallOpen || cands == 0 || m.opt.Declared == nil {
		return false
	}
	s := m.callOf(cands, t)
	if s == nil {
		return false
	}
	var name []byte
	switch s.name {
	case nameAttr:
		name, _ = s.attrOf(t, false)
	case nameValue:
		name = t.Value
	}
	if !m.declared(name) {
		return false
	}
	m.blk = block{cands: cands, spec: s, implicit: true, eol: m.probe.bare.eol}
	m.lv = lvBlock
	m.strays = 0
	m.openCall(t, s, RMissingOpener|RMissingBracket)
	return true
}

// attrsOK reports whether the line held may go on past its name: only a
// call opener carries attributes or a =VALUE; a block opener's name is
// followed by its '>' (the recognizer reads it so when no tools are
// declared).
func (l *bareLines) attrsOK() bool {
	return !l.calls || l.nw == 0 || slices.Contains(bareCallNames, string(l.word[:l.nw]))
}
