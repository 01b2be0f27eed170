package fsm

import (
	"bytes"

	"github.com/toolsieve/toolsieve/lexer"
)

// role is what a token means in the current context.
type role uint8

const (
	rNone role = iota
	rBlockOpen
	rBlockClose
	rCallOpen
	rCallClose
	rParamOpen
	rParamClose
	rKeyOpen
	rKeyClose
	rValOpen
	rValClose
	rThinkOpen
	rStrayClose
	rSep      // the call's header is complete: <｜tool▁sep｜>, [ARGS], <|message|>
	rID       // an id follows: [CALL_ID]
	rTypeOpen // the type of the key's value: <ifm|arg_type>
	rTypeClose
)

// roleAtText classifies a token met in plain text, with the dialects it
// may start and those of them that it starts in a borrowed spelling.
func (m *Machine) roleAtText(t *lexer.Token) (role, dset, dset) {
	switch t.Kind {
	case lexer.Special:
		if t.Marker == lexer.ThoughtStart {
			return rThinkOpen, 0, 0 // minicpm3's reasoning, like <think>
		}
		if t.Has(lexer.Closing) { // [/NAME] opens nothing
			if m.ix.used.has(t.Marker) {
				return rStrayClose, 0, 0
			}
			return rNone, 0, 0
		}
		if cands, variants, r := m.openersOf(t); r != rNone {
			return r, cands, variants
		}
		if m.ix.used.has(t.Marker) || m.left.called && m.left.blank && m.turnEnd(t) { // turnend.go
			return rStrayClose, 0, 0
		}
		return rNone, 0, 0
	case lexer.Tag:
	default:
		return rNone, 0, 0
	}
	switch {
	case t.Has(lexer.Closing):
		if structural[t.Marker] && m.ix.used.has(t.Marker) {
			return rStrayClose, 0, 0
		}
		return rNone, 0, 0
	case t.Has(lexer.SelfClosing):
		return rNone, 0, 0
	case t.Marker == lexer.Think:
		return rThinkOpen, 0, 0
	case t.Marker == lexer.Unknown:
		if d := declTag & m.ix.on; d != 0 && !t.Has(lexer.Unclosed) && !t.Has(lexer.HalfBar) && m.opt.Declared(t.Name) && !m.openToolShown(t) {
			return rCallOpen, d, 0
		}
		if d := m.toolAttrOpens(t); d != 0 { // attrtag.go
			return rCallOpen, d, 0
		}
		return rNone, 0, 0
	}
	cands, variants, r := m.openersOf(t)
	if r == rNone && framing[t.Marker] && m.ix.used.has(t.Marker) {
		return rStrayClose, 0, 0 // <|open|>response<|sep|>: framing, not text
	}
	if r == rNone && t.Marker != lexer.Think {
		if d := m.nameElemOpens(t) | m.toolAttrOpens(t); d != 0 { // nameelem.go, attrtag.go
			return rCallOpen, d, 0
		}
	}
	return r, cands, variants
}

// unit returns the dialects the token is judged by: the call's once a
// call is open, else the block's candidates.
func (m *Machine) unit() (*Spec, dset) {
	if m.lv >= lvCall {
		return m.call.spec, specSet(m.call.spec)
	}
	return m.blk.spec, m.blk.cands
}

// roleIn classifies a token inside markup, as seen from level lv.
func (m *Machine) roleIn(t *lexer.Token, lv level) role {
	s, cands := m.unit()
	if t.Kind == lexer.Special {
		r := tokenRoleOf(cands, t.Marker)
		if t.Has(lexer.Closing) { // [/NAME] closes what [NAME] opens
			switch r {
			case rBlockOpen:
				return rBlockClose
			case rCallOpen:
				return rCallClose
			}
			return rNone
		}
		return r
	}
	if t.Kind != lexer.Tag {
		return rNone
	}
	closing := t.Has(lexer.Closing)
	pick := func(open, close role) role {
		if closing {
			return close
		}
		return open
	}
	if s != nil && s.name == nameTag && t.Marker != lexer.Unknown && closing && m.call.slot >= slotElem && bytes.Equal(t.Name, m.nameOf(m.call.name)) {
		return rCallClose // a name element's own closer (</function>, nameelem.go)
	}
	if s != nil && s.name == nameTag && m.call.slot != slotOwn {
		if r, ok := m.elemParamRole(t, lv); ok { // paramelem.go
			return r
		}
	}
	if s != nil && s.name == nameTag && t.Marker == lexer.Unknown {
		switch {
		case closing && bytes.Equal(t.Name, m.nameOf(m.call.name)):
			return rCallClose
		case closing && lv == lvValue && bytes.Equal(t.Name, m.nameOf(m.val.tagName)):
			return rParamClose
		case !closing && lv == lvCall && !t.Has(lexer.SelfClosing):
			return rParamOpen
		}
		return rNone
	}
	if s != nil && s.name == nameToolAttr && closing && t.Marker == m.call.open.marker && (lv == lvCall || lv == lvValue && t.Marker != lexer.Unknown) {
		return rCallClose // the element's own closer: nothing else closes at this level (attrtag.go)
	}
	if s != nil && s.childParams && lv >= lvCall && t.Marker != s.call && t.Marker != s.block {
		return m.childRole(t, lv) // childtags.go
	}
	if tagTokens[t.Marker] {
		if r := tokenRoleOf(cands, t.Marker); r != rNone {
			return r // a tag that acts as a token (hy_v3's <tool_sep>)
		}
	}
	if callTags[t.Marker] && anyOf(cands, func(c *Spec) bool { return c.call == t.Marker }) {
		return pick(rCallOpen, rCallClose) // a dialect's own call element, though another's wrapper is named so
	}
	if blockTags[t.Marker] && (s == nil || s.shape != shAttrJSON || t.Marker == s.block) {
		return pick(rBlockOpen, rBlockClose)
	}
	switch {
	case t.Marker == lexer.Unknown:
		return rNone
	case s != nil && s.key == t.Marker:
		return pick(rKeyOpen, rKeyClose)
	case s != nil && s.value == t.Marker:
		return pick(rValOpen, rValClose)
	case s != nil && s.argType == t.Marker:
		return pick(rTypeOpen, rTypeClose)
	case anyOf(cands, func(c *Spec) bool { return c.call == t.Marker }):
		return pick(rCallOpen, rCallClose)
	case callEnds[t.Marker] && anyOf(cands, func(c *Spec) bool { return c.callEnd == t.Marker }):
		return rCallClose // `</end_function_call>` as well: a misspelt closer (note)
	case anyOf(cands, func(c *Spec) bool { return c.param == t.Marker }):
		return pick(rParamOpen, rParamClose)
	case closing && structural[t.Marker]:
		return rStrayClose
	}
	return rNone
}

// markerInfo is what the machine keeps of an opener after its token is gone.
type markerInfo struct {
	marker  lexer.Marker
	dsml    bool
	variant bool
}

func infoOf(t *lexer.Token) markerInfo {
	return markerInfo{
		marker:  t.Marker,
		dsml:    t.Has(lexer.DSML),
		variant: t.Flags&lexer.Variant != 0 || t.Has(lexer.DSML) && t.Has(lexer.ASCIIBar),
	}
}

func (m *Machine) nameOf(s span) []byte { return m.names[s.a:s.b] }

func (m *Machine) keepName(b []byte) span {
	a := len(m.names)
	m.names = append(m.names, b...)
	return span{a, len(m.names)}
}

// note records what a token says about the call's repairs.
func (m *Machine) note(t *lexer.Token) {
	info := infoOf(t)
	if m.call.spec.variant(t) != 0 || info.dsml && t.Has(lexer.ASCIIBar) {
		m.call.repairs |= RMarkerVariant
	}
	if t.Has(lexer.Unclosed) {
		m.call.repairs |= RUnclosedTag
	}
	if t.Has(lexer.LateSlash) || t.Has(lexer.Closing) && t.Marker == m.call.spec.callEnd && t.Marker != lexer.Unknown {
		m.call.repairs |= RCorruptedCloser
	}
	if t.Marker != lexer.Unknown && m.call.spec.mixes && info.dsml != m.call.open.dsml {
		m.call.repairs |= RMixedDialect
	}
}

// tagInMarkup handles a tag inside a block; its bytes are already at the
// end of m.buf.
func (m *Machine) tagInMarkup(t *lexer.Token) {
	tokStart := len(m.buf) - len(t.Raw)
	if t.Has(lexer.Sentinel) && tokStart > 0 && m.buf[tokStart-1] == ']' {
		tokStart-- // the ']' that begins MiniMax-M3's sentinel `]<]minimax[>[`
	}
	switch m.lv {
	case lvBlock:
		m.tagInBlock(t, tokStart)
	case lvCall:
		m.tagInCall(t, tokStart)
	case lvValue:
		m.tagInValue(t, tokStart)
	case lvJSON:
		m.tagInJSON(t, tokStart)
	case lvPy:
		m.tagInPy(t, tokStart)
	case lvLoose:
		m.tagInLoose(t, tokStart)
	case lvHash:
		m.tagInHash(t, tokStart)
	}
}

func (m *Machine) tagInBlock(t *lexer.Token, tokStart int) {
	if m.fenceCloses(t) {
		return
	}
	if t.Kind == lexer.Backticks {
		m.fenceIn(t)
		return
	}
	if m.toolTagInBlock(t) { // blocktag.go
		return
	}
	switch m.roleIn(t, lvBlock) {
	case rCallOpen:
		mk := t.Marker
		if t.Kind == lexer.Special {
			mk = lexer.Unknown
		}
		s := choose(m.blk.cands, mk, m.blk.open.dsml || t.Has(lexer.DSML), shNone)
		if t.Has(lexer.Sentinel) { // written after a sentinel: the dialect that writes them
			if alt := choose(m.blk.cands&sentinelDialects, mk, false, shNone); alt != nil {
				s = alt
			}
		}
		if s == nil {
			return
		}
		m.openCall(t, s, 0)
	case rBlockClose:
		m.openers = 0
		m.endBlock(len(m.buf))
	case rBlockOpen:
		if m.blk.calls > 0 && m.blk.spec != nil && m.blk.spec.chained && !t.Has(lexer.Closing) {
			m.reopen(t) // glm53_flash: <tool_call>A/f>{..}<tool_call>B/g>{..}
			return
		}
		m.blk.nested++
		if m.blk.nested > m.opt.Runaway.NestedBlocks {
			m.runaway(RunawayNestedBlocks)
		}
	case rParamOpen:
		m.paramSlot(t)
	case rCallClose:
		if t.Kind == lexer.Special && m.blk.calls > 0 { // the end token of a call its body ended (inkling)
			m.flushDiscard(len(m.buf), DiscardBlockMarkup)
		}
	}
}

// openCall starts a call of dialect s at opener t (already in m.buf).
func (m *Machine) openCall(t *lexer.Token, s *Spec, rep Repairs) {
	m.openers++
	if int(m.openers) > m.opt.Runaway.OpenersWithoutCloser {
		m.runaway(RunawayUnclosedOpeners)
		return
	}
	m.call = call{open: infoOf(t), start: len(m.buf) - len(t.Raw), repairs: rep, loose: -1}
	m.blk.words = 0
	m.setDialect(s)
	if m.blk.open.variant || m.blk.variants&specSet(s) != 0 {
		m.call.repairs |= RMarkerVariant
	}
	if s.mixes && !m.blk.implicit && m.blk.open.dsml != m.call.open.dsml {
		m.call.repairs |= RMixedDialect
	}
	m.note(t)
	if isSlotOpener(s, t) {
		m.call.repairs |= RMisplacedName
		m.call.slot = slotParam // on probation (slots.go)
	}
	var name []byte
	switch s.name {
	case nameAttr:
		name, _ = s.attrOf(t, false)
		name = unescapeAttrName(name)
	case nameValue:
		name = t.Value
	case nameTag:
		name = t.Name
		if !m.declared(name) {
			m.call.slot = slotElem // a name element: its content names the tool (nameelem.go)
		}
	case nameToolAttr:
		name = m.toolAttr(t)
	}
	m.call.name = m.keepName(bytes.TrimSpace(name))
	m.lv = lvCall
	if s.shape == shAttrJSON {
		m.toolElement(t)
		return
	}
	if !m.blk.implicit && m.call.slot == slotOwn {
		m.callStart(m.nameOf(m.call.name))
	}
}

// setDialect settles the dialect of the call in progress. A dialect that is
// not enabled is muted: its markup is still parsed, so that it ends where
// it should, and is then passed on as text.
func (m *Machine) setDialect(s *Spec) {
	m.call.spec = s
	m.call.muted = m.ix.on&specSet(s) == 0
}

// callStart signals a call's name once it is known. When arguments are
// streamed, the call starts later, once an argument opened (stream.go).
func (m *Machine) callStart(name []byte) {
	if !m.opt.Stream {
		m.startCall(name)
	}
}

func (m *Machine) startCall(name []byte) {
	if len(name) > 0 && !m.call.muted && !m.call.started {
		m.call.started = true
		m.sink.CallStart(name)
	}
}

// toolElement completes an invoke_tool_call <tool name=.. args=../> call.
func (m *Machine) toolElement(t *lexer.Token) {
	if args, ok := t.Attr("args"); ok {
		src := decodeAttrJSON(args)
		m.call.args = m.repairJSON(src)
		if a := m.call.args; !isBlank(src) && (len(a) == 0 || a[0] != '{' || lostContent(src, a)) {
			m.markUnread()
		}
	}
	m.completeCall(len(m.buf), 0)
}

func (m *Machine) tagInCall(t *lexer.Token, tokStart int) {
	if m.commandCloses(t, tokStart) || m.fenceCloses(t) {
		return
	}
	if m.call.swap != nil {
		m.settleSwap(t, tokStart)
		return
	}
	if m.call.slot == slotParam && m.settleParamSlot(t, tokStart) {
		return
	}
	if t.Kind == lexer.Backticks {
		m.fenceIn(t)
		return
	}
	if m.call.spec.shape == shHarmony && m.harmonyFraming(t, tokStart) {
		return
	}
	m.kvSibling(t)
	if m.selfClosingArg(t, tokStart) { // selfclose.go
		return
	}
	if m.misspeltParam(t) { // paramspell.go
		m.openMisspelt(t, tokStart)
		return
	}
	m.invokeChildren(t) // invokechild.go
	if s := m.elementIn(t, tokStart); s != nil {
		m.unwrapCall(t, s, tokStart)
		return
	}
	r := m.roleIn(t, lvCall)
	switch r {
	case rSep, rID:
		m.tagSpecialInCall(t, r, tokStart)
	case rParamOpen:
		if m.call.spec.name == nameTag && !m.childParam(elemArgName(t)) {
			// An element that shares a declared tool's name (<search>,
			// <details>) but holds other elements: HTML, not a call.
			m.toText()
			return
		}
		m.looseValue(tokStart)
		m.openValue(t, false)
	case rKeyOpen:
		m.bareHeader(tokStart)
		m.looseValue(tokStart)
		m.openValue(t, true)
	case rTypeOpen:
		m.looseValue(tokStart)
		m.openValue(t, false)
		m.val.isType = true
	case rValOpen:
		m.looseValue(tokStart)
		if !m.call.kv.has {
			m.call.repairs |= RMissingArgKey
		}
		m.openValue(t, false)
	case rKeyClose: // `city</arg_key>`: the opener was missing
		m.call.repairs |= RMissingArgKey
		m.call.kv.key = m.keepName(bytes.TrimSpace(m.looseText(tokStart)))
		m.call.kv.has = true
		m.call.loose = -1
	case rValClose: // `SF</arg_value>`: the opener was missing
		m.call.repairs |= RMissingArgValue
		m.addParam(m.call.kv.key, m.looseSpan(tokStart), HintNone)
		m.call.kv.has = false
		m.call.loose = -1
	case rCallClose:
		if m.elemArgsFollow() { // nameelem.go
			return
		}
		m.note(t)
		m.openers = 0
		m.bareHeader(tokStart)
		m.looseValue(tokStart)
		if s := m.call.spec; t.Kind == lexer.Special && s.call != lexer.Unknown && !s.call.IsSpecial() {
			// A token closes the call around its element (step3's
			// <｜tool_call_end｜>): the element's own closer is missing.
			m.completeCall(tokStart, RMissingCloser)
		} else {
			m.completeCall(len(m.buf), 0)
		}
	case rBlockClose:
		m.openers = 0
		m.bareHeader(tokStart)
		m.looseValue(tokStart)
		if m.call.spec.call == lexer.Unknown { // the block is the call: its closer too
			m.completeCall(len(m.buf), 0)
		} else {
			m.completeCall(tokStart, RMissingCloser)
		}
		if m.lv == lvBlock {
			m.endBlock(len(m.buf))
		}
	case rCallOpen:
		if int(m.openers) >= m.opt.Runaway.OpenersWithoutCloser {
			m.runaway(RunawayUnclosedOpeners)
			return
		}
		m.looseValue(tokStart)
		m.call.byOpener = true
		m.completeCall(tokStart, RMissingCloser)
		if m.lv == lvBlock {
			m.tagInBlock(t, 0)
		} else {
			m.reopen(t)
		}
	case rBlockOpen:
		if int(m.openers) >= m.opt.Runaway.OpenersWithoutCloser {
			m.runaway(RunawayUnclosedOpeners)
			return
		}
		m.looseValue(tokStart)
		if m.swapOpen(t, tokStart) {
			return
		}
		m.call.byOpener = true
		m.completeCall(tokStart, RMissingCloser)
		m.reopen(t)
	}
}

// kvSibling moves a key/value call that holds no argument yet to the
// block's candidate whose key element t is: glm's and telechat4's calls
// differ only in their key and value tags, so the first key decides.
func (m *Machine) kvSibling(t *lexer.Token) {
	c := &m.call
	if c.spec.shape != shKV || len(c.params) > 0 || c.kv.has || t.Kind != lexer.Tag ||
		t.Marker == lexer.Unknown || t.Marker == c.spec.key || t.Has(lexer.Closing) {
		return
	}
	for cands := m.blk.cands &^ specSet(c.spec); cands != 0; cands &= cands - 1 {
		if s := cands.first(); s.shape == shKV && s.key == t.Marker && s.call == c.spec.call {
			m.setDialect(s)
			return
		}
	}
}

// elementIn reports the dialect whose call element t opens inside a token
// call that holds nothing but its header yet (step3 writes
// `<｜tool_call_begin｜>function<｜tool_sep｜>` around its invoke).
func (m *Machine) elementIn(t *lexer.Token, tokStart int) *Spec {
	c := &m.call
	if c.spec.header == nil || c.hdr.named || c.done || len(c.params) > 0 || c.jsonEnv ||
		t.Kind != lexer.Tag || t.Marker == lexer.Unknown || t.Has(lexer.Closing) || !isBlank(m.looseText(tokStart)) {
		return nil
	}
	s := choose(m.blk.cands&^specSet(c.spec), t.Marker, t.Has(lexer.DSML), shXML)
	if s == nil || s.name == nameAttr && !hasAttr(s, t) {
		return nil
	}
	return s
}

func hasAttr(s *Spec, t *lexer.Token) bool {
	_, ok := s.attrOf(t, false)
	return ok
}

// unwrapCall turns the token call in progress into the unit around a call
// of dialect s, whose element t (already in m.buf) opens it: the unit is
// s's from now on.
func (m *Machine) unwrapCall(t *lexer.Token, s *Spec, tokStart int) {
	rep := m.call.repairs
	m.openers-- // one call: its token opener and its element count once
	m.call = call{loose: -1}
	m.lv = lvBlock
	m.blk.cands, m.blk.spec = specSet(s), s
	m.tagInBlock(t, tokStart)
	if m.lv == lvCall {
		m.call.repairs |= rep
	}
}

// reopen ends the unit before opener t, whose bytes end m.buf, and handles
// t afresh at the text level.
func (m *Machine) reopen(t *lexer.Token) {
	if m.lv != lvBlock && m.lv != lvText {
		return
	}
	m.buf = m.buf[:len(m.buf)-len(t.Raw)]
	if m.lv == lvBlock {
		m.endBlock(len(m.buf))
	}
	m.tagInText(t)
}

func (m *Machine) openValue(t *lexer.Token, isKey bool) {
	m.note(t)
	m.val = value{start: len(m.buf), closer: t.Marker, isKey: isKey, eq: len(t.Value) > 0}
	switch s := m.call.spec; {
	case s.childParams:
		m.val.tagName = m.keepName(t.Name)
		m.val.name = m.val.tagName
	case s.shape == shXML: // either spelling: name="K" or =K
		n, ok := s.attrOf(t, true)
		if !ok {
			n = t.Value
		}
		m.val.name = m.keepName(unescapeAttrName(n))
		if v, ok := t.Attr("string"); ok {
			switch string(v) {
			case "true":
				m.val.hint = HintString
			case "false":
				m.val.hint = HintJSON
			}
		} else if s.strDefault {
			m.val.hint = HintString
		}
		if v, ok := t.Attr("type"); ok && s.typed {
			m.val.hint = typeHint(v)
		}
	case s.name == nameTag:
		m.val.tagName = m.keepName(t.Name)
		m.val.name = m.keepName(elemArgName(t))
	case s.key != lexer.Unknown:
		m.val.name = m.call.kv.key
		m.val.hint = m.call.kv.hint
	}
	m.lv = lvValue
}

// typeHint reads a type attribute: a string is raw text, another JSON
// type a JSON value; an unknown type says nothing.
func typeHint(t []byte) Hint {
	switch string(t) {
	case "string":
		return HintString
	case "number", "integer", "boolean", "null", "object", "array":
		return HintJSON
	}
	return HintNone
}

// closeValue ends the value in progress at buf[:end].
func (m *Machine) closeValue(end int, rep Repairs) {
	m.lv = lvCall
	m.call.repairs |= rep
	if m.call.spec.command != "" {
		m.commandValue(end) // cut off (the end of input): the value as it stands
		return
	}
	v := span{m.val.start, max(end, m.val.start)} // a closer found reaching back (a bare one) may start inside the opener
	if m.val.isKey {
		m.call.kv.key = m.keepName(bytes.TrimSpace(m.buf[v.a:v.b]))
		m.call.kv.has = true
		m.call.kv.hint = HintNone
		return
	}
	if m.val.isType { // `array[string]`: the base type says how the value is written
		t := bytes.TrimSpace(m.buf[v.a:v.b])
		if i := bytes.IndexByte(t, '['); i >= 0 {
			t = t[:i]
		}
		m.call.kv.hint = typeHint(bytes.ToLower(t))
		return
	}
	if m.call.spec.key != lexer.Unknown {
		if !m.call.kv.has {
			m.markUnread() // a value without its key
			return
		}
		m.call.kv.has = false
	}
	m.addParam(m.val.name, v, m.val.hint)
}

func (m *Machine) addParam(name, v span, hint Hint) {
	if m.trimsNL() {
		v = trimNewline(m.buf, v)
	}
	if m.call.spec.cdata {
		v = unwrapCDATA(m.buf, v)
	}
	p := pspan{name: name, val: v, hint: hint}
	if m.call.spec.entities {
		m.decodeEntities(&p) // entities.go
	}
	if m.call.spec.childParams {
		m.childObject(&p) // childtags.go
	}
	m.call.params = append(m.call.params, p)
	m.elemNamed() // nameelem.go
}

// paramValue is the value of argument p of the call in progress.
func (m *Machine) paramValue(p *pspan) []byte {
	if p.inNames {
		return m.names[p.val.a:p.val.b]
	}
	return m.buf[p.val.a:p.val.b]
}

// Key/value dialects (glm) write keys and values as loose text when they
// drop their tags.

func (m *Machine) looseSpan(end int) span {
	if m.call.loose < 0 || m.call.loose > end {
		return span{end, end}
	}
	return span{m.call.loose, end}
}

func (m *Machine) looseText(end int) []byte {
	s := m.looseSpan(end)
	return m.buf[s.a:s.b]
}

// looseValue turns loose text before a tag into the value of a pending key.
func (m *Machine) looseValue(end int) {
	if m.call.spec.key == lexer.Unknown || m.call.loose < 0 {
		return
	}
	if !m.call.kv.has && !isBlank(m.looseText(end)) {
		m.markUnread() // loose text that is neither a key nor a key's value
	} else if m.call.kv.has && !isBlank(m.looseText(end)) {
		m.call.repairs |= RMissingArgValue
		s := m.looseSpan(end)
		m.addParam(m.call.kv.key, span{s.a, trimRight(m.buf, s)}, HintNone)
		m.call.kv.has = false
	}
	m.call.loose = -1
}

func (m *Machine) tagInValue(t *lexer.Token, tokStart int) {
	if m.commandCloses(t, tokStart) {
		return
	}
	if start, ok := m.lostXTMLCloser(t, tokStart); ok { // xtmlcut.go
		m.expect(rParamClose, start, RMissingBracket)
		return
	}
	r := m.roleIn(t, lvValue)
	closing := t.Has(lexer.Closing)
	if m.val.depth > 0 && closing && r == rParamClose && tokStart-m.val.nested > nestGap {
		// The value's own closer, long after the markup the value opened:
		// that may have been only mentioned (a comment, a quote). What
		// follows decides, as for a closer in a value that holds none.
		m.expect(rParamClose, tokStart, 0)
		m.pend.inner = true
		return
	}
	if m.val.depth > 0 && closing && r != rNone && r != rStrayClose {
		m.val.depth-- // closes markup that the value itself holds
		switch {
		case r == rCallClose && m.val.calls > 0:
			m.val.calls--
		case r == rBlockClose && m.val.blocks > 0:
			m.val.blocks--
		}
		return
	}
	switch {
	case r == rKeyClose && m.val.isKey, r == rTypeClose && m.val.isType: // keys and types hold no markup: no need to look ahead
		m.closeValue(tokStart, 0)
	case r == rValOpen && m.val.isKey && m.call.spec.bareKey: // the value's opener ends the key
		m.closeValue(tokStart, 0)
		m.tagInCall(t, tokStart)
	case r == rParamClose && t.Marker == m.val.closer || r == rValClose && !m.val.isKey:
		var rep Repairs
		if t.Has(lexer.SelfClosing) || t.Has(lexer.LateSlash) {
			rep |= RCorruptedCloser
		}
		if m.call.spec.variant(t) != 0 {
			rep |= RMarkerVariant
		}
		if t.Has(lexer.Unclosed) {
			rep |= RUnclosedTag
		}
		m.expect(rParamClose, tokStart, rep)
	case closing && m.corruptParamCloser(t):
		m.expect(rParamClose, tokStart, RCorruptedCloser)
	case r == rCallClose:
		m.expect(rCallClose, tokStart, RMissingCloser)
	case r == rBlockClose:
		m.expect(rBlockClose, tokStart, RMissingCloser)
	case r == rParamOpen && m.call.spec.name != nameTag && (len(t.Value) > 0) == m.val.eq && m.val.calls == 0, r == rKeyOpen, r == rValOpen:
		// The next argument: this one's closer is missing. An opener of
		// another spelling, or of a call or block, is value content
		// (a file that holds markup), and so is a parameter opener after
		// a call opener the value holds: that call's (a loop re-opening
		// block, call and parameter inside the value is counted below).
		m.closeValue(tokStart, RMissingCloser)
		m.tagInCall(t, tokStart)
	case r == rParamOpen, r == rCallOpen, r == rBlockOpen:
		m.val.depth++ // markup inside the value: its closer is content too
		// A file may quote markup, closed as it goes or far apart; a loop
		// opens it again and again inside the value and never closes it.
		if m.val.nested > 0 && tokStart-m.val.nested > nestGap {
			m.val.calls, m.val.blocks = 0, 0
		}
		m.val.nested = len(m.buf)
		switch {
		case r == rCallOpen:
			if m.val.calls++; int(m.val.calls) > m.opt.Runaway.OpenersWithoutCloser {
				m.runaway(RunawayUnclosedOpeners)
			}
		case r == rBlockOpen:
			if m.val.blocks++; int(m.val.blocks) > m.opt.Runaway.NestedBlocks {
				m.runaway(RunawayNestedBlocks)
			}
		}
	}
}

// corruptParamCloser reports whether closer t is a misspelt closer of the
// value in progress: `</parameter1>`, `</parameterfunction>`, `</param>`,
// `</content>`, or `</KEY>` for a parameter named KEY.
func (m *Machine) corruptParamCloser(t *lexer.Token) bool {
	name := t.Name
	if m.call.spec.name == nameTag {
		return false
	}
	if equalFold(name, "content") || bytes.EqualFold(name, m.nameOf(m.val.name)) {
		return true
	}
	want := m.val.closer.String()
	n := 0
	for n < len(name) && n < len(want) && lower(name[n]) == want[n] {
		n++
	}
	return n >= 5
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func equalFold(b []byte, s string) bool { return bytes.EqualFold(b, []byte(s)) }

// expect makes the closer at buf[start:] pending: whether it closes depends
// on the next significant token.
func (m *Machine) expect(r role, start int, rep Repairs) {
	m.pend = pending{active: true, role: r, start: start, end: len(m.buf), repairs: rep, seg: -1}
	m.pend.fromJSON = m.lv == lvJSON
}

// textPending passes whitespace after a pending closer; the first other
// byte decides it. After a parameter closer, text is first gathered up to a
// newline, a '>' or maxSegment bytes: it may be a misspelt closer of the
// call (`</parameter>\ninvfunction_calls>`).
func (m *Machine) textPending(b []byte) int {
	p := &m.pend
	if p.seg < 0 {
		i := 0
		for i < len(b) && (isSpace(b[i]) || b[i] == ']' && m.call.spec.sentinel) { // a sentinel's ']' waits with the whitespace
			if b[i] == '\n' {
				p.newline = true
			}
			i++
		}
		if i > 0 {
			m.add(b[:i])
			return i
		}
		if m.call.slot == slotLabel && p.role == rParamClose {
			m.endLabelled(*p) // text after a labelled call's last argument
			return 0
		}
		if p.role != rParamClose {
			m.decide(nil, b, false)
			return 0
		}
		if m.elemNameCloses() { // nameelem.go
			return 0
		}
		p.seg = len(m.buf)
	}
	for i, c := range b {
		if c == '\n' {
			if m.add(b[:i]) {
				m.judgePending()
			}
			return i
		}
		p.rune.step(c)
		if c == '>' || len(m.buf)+i+1-p.seg > maxSegment && p.rune.whole() && (!m.blk.eol || len(m.buf)+i+1-p.seg > maxMarkLine) {
			if m.add(b[:i+1]) {
				m.judgePending()
			}
			return i + 1
		}
	}
	m.add(b)
	return len(b)
}

// judgePending settles a parameter closer followed by text: it closes only
// if the text is a misspelt closer of the call or block.
func (m *Machine) judgePending() {
	p := m.pend
	m.pend.active = false
	r, ok := m.corruptCloser(m.buf[p.seg:])
	if !ok && m.bareOpenerAt(p.seg) { // `/parameter>\nparameter name="b">`: the next argument
		r, ok = rParamOpen, true
	}
	if !ok {
		r, ok = m.markRoleAt(p.seg) // markline.go
	}
	if !ok {
		r, ok = m.toolCloserAt(p.seg) // toolline.go
	}
	if !ok || r == rParamClose {
		return // the closer was value content
	}
	m.closeValue(p.start, p.repairs)
	m.seg = segment{active: true, start: p.seg}
	m.closeSegment(len(m.buf))
}

// decide settles the pending closer given the next token t, or text, or
// the end of input.
func (m *Machine) decide(t *lexer.Token, text []byte, eof bool) {
	p := m.pend
	m.pend.active = false
	fits := eof
	switch {
	case eof:
	case t != nil:
		if m.substitutedCloser(p, t) || m.labelledEnds(p, t) {
			return
		}
		r := m.roleIn(t, lvCall)
		switch p.role {
		case rParamClose:
			switch r {
			case rParamOpen, rCallClose, rBlockClose, rCallOpen, rBlockOpen, rKeyOpen, rValOpen:
				fits = true
			}
			if m.call.spec.name == nameTag && r == rParamOpen {
				fits = !t.Has(lexer.Closing)
			}
		default:
			fits = r != rParamClose && r != rCallClose && r != rValClose && t.Kind != lexer.Backticks
			if p.fromJSON {
				fits = r == rBlockClose || r == rBlockOpen || r == rCallOpen
			}
		}
	default:
		fits = p.role != rParamClose && p.newline && (!p.fromJSON || p.repairs&RCorruptedCloser != 0)
	}
	if !fits {
		if p.fromJSON {
			m.feedBytes(m.buf[p.start:])
		}
		if p.inner {
			m.val.depth-- // it closed markup the value held
		}
		return
	}
	switch p.role {
	case rParamClose:
		m.closeValue(p.start, p.repairs)
	case rCallClose:
		m.endBody(p.start)
		m.openers = 0
		m.completeCall(p.end, p.repairs)
	case rBlockClose:
		m.endBody(p.start)
		m.openers = 0
		end := p.start
		if m.call.spec.call == lexer.Unknown { // the block is the call: its closer too
			end = p.end
		}
		m.completeCall(end, p.repairs)
		if m.lv == lvBlock {
			m.endBlock(min(p.end-end, len(m.buf)))
		}
	}
}

// endBody ends a value or JSON body at buf[:end] because its call closes.
func (m *Machine) endBody(end int) {
	switch m.lv {
	case lvValue:
		m.closeValue(end, RMissingCloser)
	case lvJSON:
		m.finishJSON()
	}
}

// unescapeAttrName drops backslashes a model wrote before quotes in a name.
func unescapeAttrName(b []byte) []byte {
	if bytes.IndexByte(b, '\\') < 0 {
		return b
	}
	return bytes.ReplaceAll(b, []byte(`\`), nil)
}

// childParam reports whether a child element named name is a parameter of
// the declared tool whose element holds it (tool_tag).
func (m *Machine) childParam(name []byte) bool {
	if m.call.slot == slotElem {
		return m.elemChild(name) // nameelem.go
	}
	return m.takes(m.elemTool(), name)
}
