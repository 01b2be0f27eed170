package fsm

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
)

// Llama 3.1 fine-tunes that were taught `<tool_call>NAME(k="v")</tool_call>`
// (hermes_pythonic) also write the arguments as a tag's attributes, the
// parentheses left out: `<tool_call>send_message channel="general"
// message="Hi!"</tool_call>`. In a unit whose dialects include a pythonic
// one (the wrapper holds a call written as code), a body that is exactly a
// callee name and one or more `key="value"` pairs (values in double or
// single quotes, or a bare number, true, false or null), separated by
// blanks, is that call: values become JSON strings (literals stay
// literals), in order. It carries inferred_call, as no dialect writes this
// shape. Where tools are declared the name must be one and the keys must
// fit it. Anything else in the body (a sentence: `I think x="y"`, a word
// without '=', text after the pairs) leaves the unit to its dialects.

// Loose text in a unit is judged every maxSegment bytes; a body that is
// still the start of such a call there (a long message in quotes) is
// judged once more where its segment ends (the unit's closer), and only
// there: its segment count is set to attrPending.
const attrPending = math.MinInt / 2

type attrStatus uint8

const (
	attrNo     attrStatus = iota // not an attribute-style call
	attrPrefix                   // the start of one
	attrDone                     // a whole one
)

// attrBody reads the loose text buf[start:end] of a unit with no call yet
// as an attribute-style call, and reports whether it did (or holds it to
// judge it whole).
func (m *Machine) attrBody(start, end int) bool {
	if m.lv != lvBlock || m.blk.calls != 0 || m.blk.muted != 0 {
		return false
	}
	var py *Spec
	for cands := m.blk.cands; cands != 0 && py == nil; cands &= cands - 1 {
		if s := cands.first(); s.shape == shPython {
			py = s
		}
	}
	if py == nil {
		return false
	}
	name, args, keys, st := readAttrCall(m.buf[start:end])
	if m.seg.n > maxSegment && st != attrNo { // cut by the length: judged at its end
		m.seg.active, m.seg.n = true, attrPending
		return true
	}
	if st != attrDone {
		return false
	}
	if m.opt.Declared != nil && (!m.declared(name) || m.opt.FitsTool == nil || !m.opt.FitsTool(name, keys)) {
		return false
	}
	m.blk.cands, m.blk.spec = specSet(py), py
	m.call = call{loose: -1, start: start}
	m.setDialect(py)
	m.pyCall(name, args, end, RInferredCall)
	return true
}

// readAttrCall reads b as `NAME k="v" k2='w' n=5`: the callee, the
// arguments as a JSON object and their keys, when it is whole.
func readAttrCall(b []byte) (name, args []byte, keys []string, st attrStatus) {
	b = bytes.TrimLeft(b, " \t\r\n")
	name, rest := identAt(b) // forlabel.go
	if name == nil {
		return nil, nil, nil, attrNo
	}
	if args, keys, st = attrPairs(rest); st != attrDone {
		return nil, nil, nil, st
	}
	return name, args, keys, st
}

// attrPairs reads b as ` k="v" k2='w' n=5`, pairs each after blanks, up
// to blanks at its end: the arguments as a JSON object (in their order)
// and their keys, when it is whole. A key given twice is no such object.
func attrPairs(b []byte) (args []byte, keys []string, st attrStatus) {
	end := len(bytes.TrimRight(b, " \t\r\n"))
	args = append(args, '{')
	for i := 0; i < end; {
		j := i
		for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
			j++
		}
		if j == i {
			return nil, nil, attrNo // pairs are separated by blanks
		}
		k := j
		for k < len(b) && isIdentByte(b[k]) {
			k++
		}
		if k == len(b) {
			if isWordByte(b[j]) {
				return nil, nil, attrPrefix
			}
			return nil, nil, attrNo // a number ending the body is no key
		}
		if k == j || b[k] != '=' || !isWordByte(b[j]) || slices.Contains(keys, string(b[j:k])) {
			return nil, nil, attrNo
		}
		key := b[j:k]
		v, n, more := attrValue(b[k+1:])
		if more {
			return nil, nil, attrPrefix
		}
		if v == nil {
			return nil, nil, attrNo
		}
		if len(keys) > 0 {
			args = append(args, ',')
		}
		kq, _ := json.Marshal(string(key))
		args = append(append(append(args, kq...), ':'), v...)
		keys = append(keys, string(key))
		i = k + 1 + n
	}
	if len(keys) == 0 {
		return nil, nil, attrPrefix
	}
	return append(args, '}'), keys, attrDone
}

// attrValue reads a value at the start of b: a quoted string (no escapes;
// the other quote may stand inside) or a bare JSON literal. It returns the
// value as JSON and its length in b, or nil; more when b ends inside it.
func attrValue(b []byte) (v []byte, n int, more bool) {
	if len(b) == 0 {
		return nil, 0, true
	}
	if q := b[0]; q == '"' || q == '\'' {
		e := bytes.IndexByte(b[1:], q)
		if e < 0 {
			return nil, 0, true
		}
		v, err := json.Marshal(string(b[1 : 1+e]))
		if err != nil {
			return nil, 0, false
		}
		return v, e + 2, false
	}
	for n < len(b) && !isSpace(b[n]) {
		n++
	}
	if lit := b[:n]; json.Valid(lit) && lit[0] != '"' && lit[0] != '{' && lit[0] != '[' {
		return lit, n, false
	}
	return nil, 0, false
}
