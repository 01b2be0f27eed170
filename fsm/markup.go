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
)

// roleAtText classifies a token met in plain text.
func (m *Machine) roleAtText(t *lexer.Token) (role, family) {
	if t.Kind == lexer.Special {
		return m.specialAtText(t)
	}
	if t.Kind != lexer.Tag {
		return rNone, famNone
	}
	if t.Has(lexer.Closing) {
		if structural[t.Marker] {
			return rStrayClose, famNone
		}
		return rNone, famNone
	}
	if t.Has(lexer.SelfClosing) {
		return rNone, famNone
	}
	o := &m.opt
	switch t.Marker {
	case lexer.FunctionCalls, lexer.ToolCalls:
		if o.enabled(Anthropic) || o.enabled(DSML) {
			return rBlockOpen, famInvoke
		}
	case lexer.ToolCall:
		if string(t.NS) == "minimax" {
			if o.enabled(MiniMax) {
				return rBlockOpen, famInvoke
			}
		} else if o.enabled(Qwen3Coder) || o.enabled(Hermes) || o.enabled(GLM) {
			return rBlockOpen, famToolCall
		}
	case lexer.ToolUse:
		if o.enabled(Hermes) {
			return rBlockOpen, famHermes
		}
	case lexer.InvokeToolCall:
		if o.enabled(InvokeToolCall) {
			return rBlockOpen, famITC
		}
	case lexer.Invoke:
		if _, ok := t.Attr("name"); ok && (o.enabled(Anthropic) || o.enabled(DSML)) {
			return rCallOpen, famInvoke
		}
	case lexer.Function:
		if len(t.Value) > 0 && o.enabled(Qwen3Coder) {
			return rCallOpen, famQwen
		}
	case lexer.Think:
		return rThinkOpen, famNone
	case lexer.Unknown:
		if o.enabled(ToolTag) && !t.Has(lexer.Unclosed) && o.Declared != nil && o.Declared(t.Name) {
			return rCallOpen, famToolTag
		}
	}
	return rNone, famNone
}

// roleIn classifies a token inside markup of family fam, as seen from
// level lv.
func (m *Machine) roleIn(t *lexer.Token, lv level) role {
	fam := m.blk.fam
	if m.lv >= lvCall {
		fam = m.call.fam
	}
	if t.Kind == lexer.Special {
		return specialRole(t, fam)
	}
	if t.Kind != lexer.Tag {
		return rNone
	}
	closing := t.Has(lexer.Closing)
	if fam == famToolTag && t.Marker == lexer.Unknown {
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
	if _, ok := blockMarkers[t.Marker]; ok {
		if fam == famITC && t.Marker == lexer.InvokeToolCall || fam != famITC {
			if closing {
				return rBlockClose
			}
			return rBlockOpen
		}
	}
	g := &grammars[fam]
	switch {
	case t.Marker == lexer.Unknown:
		return rNone
	case fam == famGLM && t.Marker == lexer.ArgKey:
		if closing {
			return rKeyClose
		}
		return rKeyOpen
	case fam == famGLM && t.Marker == lexer.ArgValue:
		if closing {
			return rValClose
		}
		return rValOpen
	case t.Marker == g.call || fam == famToolCall && (t.Marker == lexer.Function || t.Marker == lexer.Invoke):
		if closing {
			return rCallClose
		}
		return rCallOpen
	case t.Marker == g.param && g.param != lexer.Unknown:
		if closing {
			return rParamClose
		}
		return rParamOpen
	case closing && structural[t.Marker]:
		return rStrayClose
	}
	return rNone
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
	if info.variant {
		m.call.repairs |= RMarkerVariant
	}
	if t.Has(lexer.Unclosed) {
		m.call.repairs |= RUnclosedTag
	}
	if t.Has(lexer.LateSlash) {
		m.call.repairs |= RCorruptedCloser
	}
	if t.Marker != lexer.Unknown && t.Marker != lexer.Tool && m.call.fam == famInvoke && info.dsml != m.call.open.dsml {
		m.call.repairs |= RMixedDialect
	}
}

// tagInMarkup handles a tag inside a block; its bytes are already at the
// end of m.buf.
func (m *Machine) tagInMarkup(t *lexer.Token) {
	tokStart := len(m.buf) - len(t.Raw)
	switch m.lv {
	case lvBlock:
		m.tagInBlock(t, tokStart)
	case lvCall:
		m.tagInCall(t, tokStart)
	case lvValue:
		m.tagInValue(t, tokStart)
	case lvJSON:
		m.tagInJSON(t, tokStart)
	}
}

func (m *Machine) tagInBlock(t *lexer.Token, tokStart int) {
	switch m.roleIn(t, lvBlock) {
	case rCallOpen:
		fam := m.blk.fam
		if fam == famToolCall {
			fam = famQwen
			if t.Marker == lexer.Invoke {
				fam = famInvoke
			}
		}
		m.openCall(t, fam, 0)
	case rBlockClose:
		m.openers = 0
		m.endBlock(len(m.buf))
	case rBlockOpen:
		m.blk.nested++
		if m.blk.nested > m.opt.Runaway.NestedBlocks {
			m.runaway("nested_block_openers")
		}
	}
}

// openCall starts a call at opener t (already in m.buf).
func (m *Machine) openCall(t *lexer.Token, fam family, rep Repairs) {
	m.openers++
	if m.openers > m.opt.Runaway.OpenersWithoutCloser {
		m.runaway("unclosed_openers")
		return
	}
	m.call = call{fam: fam, open: infoOf(t), start: len(m.buf) - len(t.Raw), repairs: rep, loose: -1}
	m.call.dialect = dialectOf(fam, m.blk.open, m.call.open)
	if m.blk.open.variant {
		m.call.repairs |= RMarkerVariant
	}
	if m.blk.fam == famToolCall && fam == famInvoke {
		m.call.dialect = MiniMax
		m.call.repairs |= RMarkerVariant
	}
	if fam == famInvoke && !m.blk.implicit && m.blk.open.dsml != m.call.open.dsml {
		m.call.repairs |= RMixedDialect
	}
	m.note(t)
	var name []byte
	switch fam {
	case famInvoke, famITC:
		name, _ = t.Attr("name")
		name = unescapeAttrName(name)
	case famQwen:
		name = t.Value
	case famToolTag:
		name = t.Name
	}
	m.call.name = m.keepName(bytes.TrimSpace(name))
	m.lv = lvCall
	if fam == famITC {
		m.toolElement(t)
		return
	}
	if !m.blk.implicit && m.call.name.b > m.call.name.a {
		m.sink.CallStart(m.nameOf(m.call.name))
	}
}

// toolElement completes an invoke_tool_call <tool name=.. args=../> call.
func (m *Machine) toolElement(t *lexer.Token) {
	if args, ok := t.Attr("args"); ok {
		m.call.args = m.repairJSON(decodeAttrJSON(args))
	}
	m.completeCall(len(m.buf), 0)
}

func (m *Machine) tagInCall(t *lexer.Token, tokStart int) {
	r := m.roleIn(t, lvCall)
	switch r {
	case rSep, rID:
		m.tagSpecialInCall(t, r, tokStart)
	case rParamOpen:
		m.glmLoose(tokStart)
		m.openValue(t, false)
	case rKeyOpen:
		m.glmLoose(tokStart)
		m.openValue(t, true)
	case rValOpen:
		m.glmLoose(tokStart)
		if !m.call.hasKey {
			m.call.repairs |= RMissingArgKey
		}
		m.openValue(t, false)
	case rKeyClose: // `city</arg_key>`: the opener was missing
		m.call.repairs |= RMissingArgKey
		m.call.glmKey = m.keepName(bytes.TrimSpace(m.looseText(tokStart)))
		m.call.hasKey = true
		m.call.loose = -1
	case rValClose: // `SF</arg_value>`: the opener was missing
		m.call.repairs |= RMissingArgValue
		m.addParam(m.call.glmKey, m.looseSpan(tokStart), HintNone)
		m.call.hasKey = false
		m.call.loose = -1
	case rCallClose:
		m.note(t)
		m.openers = 0
		m.glmLoose(tokStart)
		m.completeCall(len(m.buf), 0)
	case rBlockClose:
		m.openers = 0
		m.glmLoose(tokStart)
		if grammars[m.call.fam].call == lexer.Unknown { // the block is the call: its closer too
			m.completeCall(len(m.buf), 0)
		} else {
			m.completeCall(tokStart, RMissingCloser)
		}
		if m.lv == lvBlock {
			m.endBlock(len(m.buf))
		}
	case rCallOpen:
		if m.openers >= m.opt.Runaway.OpenersWithoutCloser {
			m.runaway("unclosed_openers")
			return
		}
		m.glmLoose(tokStart)
		m.completeCall(tokStart, RMissingCloser)
		if m.lv == lvBlock {
			m.tagInBlock(t, 0)
		} else {
			m.reopen(t)
		}
	case rBlockOpen:
		if m.openers >= m.opt.Runaway.OpenersWithoutCloser {
			m.runaway("unclosed_openers")
			return
		}
		m.glmLoose(tokStart)
		m.completeCall(tokStart, RMissingCloser)
		m.reopen(t)
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

func (m *Machine) openValue(t *lexer.Token, glmKey bool) {
	m.note(t)
	m.val = value{start: len(m.buf), closer: t.Marker, glmKey: glmKey, eq: len(t.Value) > 0}
	switch m.call.fam {
	case famInvoke, famQwen: // either spelling: name="K" or =K
		n, ok := t.Attr("name")
		if !ok {
			n = t.Value
		}
		m.val.name = m.keepName(unescapeAttrName(n))
		if s, ok := t.Attr("string"); ok {
			switch string(s) {
			case "true":
				m.val.hint = HintString
			case "false":
				m.val.hint = HintJSON
			}
		}
	case famToolTag:
		m.val.tagName = m.keepName(t.Name)
		m.val.name = m.val.tagName
	case famGLM:
		m.val.name = m.call.glmKey
	}
	m.lv = lvValue
}

// closeValue ends the value in progress at buf[:end].
func (m *Machine) closeValue(end int, rep Repairs) {
	m.lv = lvCall
	m.call.repairs |= rep
	v := span{m.val.start, end}
	if m.val.glmKey {
		m.call.glmKey = m.keepName(bytes.TrimSpace(m.buf[v.a:v.b]))
		m.call.hasKey = true
		return
	}
	if m.call.fam == famGLM {
		if !m.call.hasKey {
			return
		}
		m.call.hasKey = false
	}
	m.addParam(m.val.name, v, m.val.hint)
}

func (m *Machine) addParam(name, v span, hint Hint) {
	if grammars[m.call.fam].trimNL {
		v = trimNewline(m.buf, v)
	}
	m.call.params = append(m.call.params, pspan{name: name, val: v, hint: hint})
}

// trimNewline drops one leading and one trailing newline of a value.
func trimNewline(b []byte, v span) span {
	if v.a < v.b && b[v.a] == '\n' {
		v.a++
	} else if v.a+1 < v.b && b[v.a] == '\r' && b[v.a+1] == '\n' {
		v.a += 2
	}
	if v.a < v.b && b[v.b-1] == '\n' {
		v.b--
		if v.a < v.b && b[v.b-1] == '\r' {
			v.b--
		}
	}
	return v
}

// GLM writes keys and values as loose text when it drops their tags.

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

// glmLoose turns loose text before a tag into the value of a pending key.
func (m *Machine) glmLoose(end int) {
	if m.call.fam != famGLM || m.call.loose < 0 {
		return
	}
	if m.call.hasKey && !isBlank(m.looseText(end)) {
		m.call.repairs |= RMissingArgValue
		s := m.looseSpan(end)
		m.addParam(m.call.glmKey, span{s.a, trimRight(m.buf, s)}, HintNone)
		m.call.hasKey = false
	}
	m.call.loose = -1
}

func trimRight(b []byte, s span) int {
	for s.b > s.a && isSpace(b[s.b-1]) {
		s.b--
	}
	return s.b
}

func (m *Machine) tagInValue(t *lexer.Token, tokStart int) {
	r := m.roleIn(t, lvValue)
	closing := t.Has(lexer.Closing)
	if m.val.depth > 0 && closing && r != rNone && r != rStrayClose {
		m.val.depth-- // closes markup that the value itself holds
		return
	}
	switch {
	case r == rKeyClose && m.val.glmKey: // keys hold no markup: no need to look ahead
		m.closeValue(tokStart, 0)
	case r == rParamClose && t.Marker == m.val.closer || r == rValClose && !m.val.glmKey:
		var rep Repairs
		if t.Has(lexer.SelfClosing) || t.Has(lexer.LateSlash) {
			rep |= RCorruptedCloser
		}
		if t.Flags&lexer.Variant != 0 {
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
	case r == rParamOpen && m.call.fam != famToolTag && (len(t.Value) > 0) == m.val.eq, r == rKeyOpen, r == rValOpen:
		// The next argument: this one's closer is missing. An opener of
		// another spelling, or of a call or block, is value content
		// (a file that holds markup).
		m.closeValue(tokStart, RMissingCloser)
		m.tagInCall(t, tokStart)
	case r == rParamOpen, r == rCallOpen, r == rBlockOpen:
		m.val.depth++ // markup inside the value: its closer is content too
	}
}

// corruptParamCloser reports whether closer t is a misspelt closer of the
// value in progress: `</parameter1>`, `</parameterfunction>`, `</param>`,
// `</content>`, or `</KEY>` for a parameter named KEY.
func (m *Machine) corruptParamCloser(t *lexer.Token) bool {
	name := t.Name
	if m.call.fam == famToolTag {
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
		for i < len(b) && isSpace(b[i]) {
			if b[i] == '\n' {
				p.newline = true
			}
			i++
		}
		if i > 0 {
			m.add(b[:i])
			return i
		}
		if p.role != rParamClose {
			m.decide(nil, b, false)
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
		if c == '>' || len(m.buf)+i+1-p.seg > maxSegment {
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
		r := m.roleIn(t, lvCall)
		switch p.role {
		case rParamClose:
			switch r {
			case rParamOpen, rCallClose, rBlockClose, rCallOpen, rBlockOpen, rKeyOpen, rValOpen:
				fits = true
			}
			if m.call.fam == famToolTag && r == rParamOpen {
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
		if grammars[m.call.fam].call == lexer.Unknown { // the block is the call: its closer too
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
