package fsm

// Gemini and other models write a call's arguments as a loose object,
// keys without quotes, right after the tool's name:
//
//	default_api:mandatory_tool{categoryNames:[],suggestedTitle:null}
//
// A probed '{' in text may open such an object: its first key, unquoted,
// ends the probe (no call object names its tool so), and the object is
// held as bare arguments (bareargs.go) only when the text right before it
// anchors a declared tool (textTail.anchor: its name, then at most a label
// gap). The JSON scanner reads the unquoted keys (json_repaired), and the
// keys must fit the tool (inferred_call). A '{' after a word that names no
// declared tool, or after a sentence, stays text: `{foo: 1}` in prose or a
// JavaScript object is never held past its first key.

// unquotedKey steps the probe inside an unquoted key by c: ident bytes
// go on, the ':' that ends the key gives up on a call object with a key
// read (mayBeBareArgs decides), anything else is no object.
func (p *probe) unquotedKey(c byte) probeVerdict {
	switch {
	case isIdentByte(c) && p.nkey < maxProbeKey:
		p.key[p.nkey] = c
		p.nkey++
		return pvMore
	case c == ':':
		p.state, p.ukey = pColon, true
	}
	return pvNot
}

// looseAnchored reports whether bare arguments with unquoted keys may be
// a call: a label line named the tool (anchor.go), or the text just
// before the object ends with a declared tool's name and a label gap.
func (m *Machine) looseAnchored() bool {
	return m.probe.anchor.b > 0 || m.tail.anchor(m.declared) != nil
}
