package fsm

import "bytes"

// Two dialects write a call's header as loose text at the start of a
// `<tool_call>` block, before a JSON object: step_audio_2 a type word on a
// line of its own and the name on the next (`function\nNAME\n{..}`),
// glm53_flash the name ended by '>', after a display label and '/'
// (`Weather/get_weather>{..}`). The block's first segment of loose text is
// judged against them before glm's bare name (closeSegment).

// lineHeader reads step_audio_2's header: text is header text until the
// name's line is complete (textLooseCall).
var lineHeader = header{loose: func(c *call) bool { return !c.hdr.named }}

// headerSegment reads loose text s at the start of a block as the header
// of a call of one of the block's candidates. It returns the dialect and
// the name, nil when a later line holds it.
func (m *Machine) headerSegment(s []byte) (*Spec, []byte, bool) {
	w := bytes.TrimSpace(s)
	for cands := m.blk.cands; cands != 0; cands &= cands - 1 {
		spec := cands.first()
		switch {
		case spec.typeLine != "" && string(w) == spec.typeLine:
			return spec, nil, true
		case spec.nameGT && len(w) > 1 && w[len(w)-1] == '>':
			if name, ok := labelledName(w[:len(w)-1]); ok {
				return spec, name, true
			}
		}
	}
	return nil, nil, false
}

// labelledName is the name of `Label/NAME` (or of `NAME` alone): the part
// after the last '/', a tool name; the label before it may hold spaces and
// further '/', not markup.
func labelledName(w []byte) ([]byte, bool) {
	name := w[bytes.LastIndexByte(w, '/')+1:]
	if !isIdent(name) || bytes.IndexAny(w, "<>\n") >= 0 {
		return nil, false
	}
	return name, true
}
