package fsm

import "github.com/toolsieve/toolsieve/lexer"

// slot says where the name of the call in progress was written when it was
// not in its own slot. Such a call carries misplaced_name.
type slot uint8

const (
	slotOwn   slot = iota
	slotParam      // the first <parameter=NAME>, no <function=> before it: not yet confirmed
	slotLabel      // a harness label line, [Tool Use: NAME] (label.go)
	slotProse      // prose before a bare arguments object: no name yet (bareargs.go)
	slotFused      // a name run into its first key: on probation until the value's opener (fusedname.go)
	slotElem       // a name element (<function>) whose tool is not named yet (nameelem.go)
	slotNamed      // a name element whose content named a declared tool, in call.tool
	slotArgs       // a named name element closed in a wrapper: its arguments may follow
)

// A qwen3_coder call without its <function=NAME> opener sometimes names
// itself with its first parameter element, <parameter=NAME>, in the
// wrapper or bare in the text. The element opens a call named NAME (the
// table lists <parameter=> as an opener of the dialect, which openCall
// tells from the call element) on probation: NAME is the name only if the
// element holds nothing, which the next token shows, with whitespace only
// between:
//
//   - another <parameter=K>: the element had no value and no closer;
//   - its own </parameter>, or the call's or wrapper's closer (the end of
//     input in a wrapper), when NAME is a declared tool (a declared tool
//     called with no arguments).
//
// Anything else, text included, shows an argument instead: a bare element
// goes back to the text; inside a wrapper the call loses the name, and
// since a call without a name is never reported, its markup becomes text
// with an error event when it ends.

// slotDialect is the dialect among cands whose call is named by the =VALUE
// of its call element and whose argument element t is, or nil.
func slotDialect(cands dset, t *lexer.Token) *Spec {
	for ; cands != 0; cands &= cands - 1 {
		if s := cands.first(); s.shape == shXML && s.name == nameValue && s.param == t.Marker && s.dsml == t.Has(lexer.DSML) {
			return s
		}
	}
	return nil
}

// isSlotOpener reports whether t, opening a call of dialect s, is its
// argument element standing in the name's slot.
func isSlotOpener(s *Spec, t *lexer.Token) bool {
	return s.param != lexer.Unknown && t.Marker == s.param && t.Marker != s.call
}

// paramSlot opens a call at an argument element met in a wrapper where a
// call element belongs, if its =VALUE may be the call's name.
func (m *Machine) paramSlot(t *lexer.Token) {
	if len(t.Value) == 0 {
		return
	}
	if s := slotDialect(m.blk.cands, t); s != nil {
		m.openCall(t, s, 0)
	}
}

func (m *Machine) declared(name []byte) bool {
	return m.opt.Declared != nil && m.opt.Declared(name)
}

// settleParamSlot decides a name in a parameter slot at the next token t
// (its bytes end m.buf at tokStart). It reports whether t was handled.
func (m *Machine) settleParamSlot(t *lexer.Token, tokStart int) bool {
	declared := m.declared(m.nameOf(m.call.name))
	switch r := m.roleIn(t, lvCall); {
	case r == rParamOpen && len(t.Value) > 0 && !t.Has(lexer.Closing):
		m.confirmSlot()
	case r == rParamClose && declared:
		m.confirmSlot()
		return true // the empty element's closer
	case (r == rCallClose || r == rBlockClose) && declared:
		m.confirmSlot()
	default:
		return m.denySlot(t, tokStart)
	}
	return false
}

// slotText handles text after a name in a parameter slot: whitespace is
// markup, anything else an argument's value. It reports the bytes it took
// and whether it handled b.
func (m *Machine) slotText(b []byte) (int, bool) {
	i := firstNonSpace(b)
	switch {
	case i < 0:
		m.add(b)
		return len(b), true
	case i > 0:
		m.add(b[:i])
		return i, true
	}
	return 0, m.denySlot(nil, len(m.buf))
}

func (m *Machine) confirmSlot() {
	m.call.slot = slotOwn
	if !m.blk.implicit {
		m.callStart(m.nameOf(m.call.name))
	}
}

// denySlot takes back a name from a parameter slot, before token t (nil:
// text) whose bytes end m.buf at tokStart. A bare element goes back to the
// text, and t is handled there: it reports true. In a wrapper the call
// goes on without a name: it reports false.
func (m *Machine) denySlot(t *lexer.Token, tokStart int) bool {
	m.call.slot = slotOwn
	if !m.blk.implicit {
		m.call.name = span{}
		return false
	}
	m.openers--
	m.buf = m.buf[:tokStart]
	m.toText()
	if t != nil {
		m.tagInText(t)
	}
	return true
}

// slotAtEOF decides a name in a parameter slot at the end of input.
func (m *Machine) slotAtEOF() {
	if m.lv != lvCall || m.call.slot != slotParam {
		return
	}
	if !m.blk.implicit && m.declared(m.nameOf(m.call.name)) {
		m.confirmSlot()
	} else {
		m.denySlot(nil, len(m.buf))
	}
}
