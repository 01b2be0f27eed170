package fsm

import (
	"bytes"
	"encoding/json"

	"github.com/toolsieve/toolsieve/lexer"
)

// The special-token dialects (deepseek_v3, deepseek_v31, kimi_k2, mistral,
// llama3, harmony) share the block machinery of the tag dialects: a token
// opens a unit, a call gathers its name as loose text up to a separator
// token, and the arguments are a JSON body.

// Extra roles of special tokens.
const (
	rSep = rStrayClose + 1 + iota // the name is complete: <｜tool▁sep｜>, [ARGS], <|message|>
	rID                           // an id follows: [CALL_ID]
)

// specialDialect tells which dialect switch governs a special token.
func specialDialect(mk lexer.Marker) []string {
	switch mk {
	case lexer.ToolCallsBegin, lexer.ToolCallsEnd, lexer.ToolCallBegin, lexer.ToolCallEnd,
		lexer.ToolSep, lexer.SectionBegin, lexer.SectionEnd, lexer.ArgumentBegin:
		return []string{DeepSeekV3, DeepSeekV31, KimiK2}
	case lexer.MistralToolCalls, lexer.MistralArgs, lexer.MistralCallID:
		return []string{Mistral}
	case lexer.PythonTag, lexer.EndOfMessage:
		return []string{Llama3}
	case lexer.HarmonyStart, lexer.HarmonyChannel, lexer.HarmonyMessage, lexer.HarmonyConstrain,
		lexer.HarmonyCall, lexer.HarmonyEnd, lexer.HarmonyReturn:
		return []string{Harmony}
	}
	return nil
}

func (m *Machine) specialEnabled(mk lexer.Marker) bool {
	for _, d := range specialDialect(mk) {
		if m.opt.enabled(d) {
			return true
		}
	}
	return false
}

// specialAtText classifies a special token met in text.
func (m *Machine) specialAtText(t *lexer.Token) (role, family) {
	if !m.specialEnabled(t.Marker) {
		return rNone, famNone
	}
	switch t.Marker {
	case lexer.ToolCallsBegin, lexer.SectionBegin:
		return rBlockOpen, famToken
	case lexer.ToolCallBegin:
		return rCallOpen, famToken
	case lexer.MistralToolCalls:
		return rBlockOpen, famMistral
	case lexer.PythonTag:
		return rBlockOpen, famLlama
	case lexer.HarmonyStart, lexer.HarmonyChannel:
		return rBlockOpen, famHarmony
	}
	return rStrayClose, famNone
}

// specialRole classifies a special token inside markup of family fam.
func specialRole(t *lexer.Token, fam family) role {
	switch fam {
	case famToken:
		switch t.Marker {
		case lexer.ToolCallBegin:
			return rCallOpen
		case lexer.ToolCallEnd:
			return rCallClose
		case lexer.ToolCallsBegin, lexer.SectionBegin:
			return rBlockOpen
		case lexer.ToolCallsEnd, lexer.SectionEnd:
			return rBlockClose
		case lexer.ToolSep, lexer.ArgumentBegin:
			return rSep
		}
	case famMistral:
		switch t.Marker {
		case lexer.MistralToolCalls:
			return rCallOpen
		case lexer.MistralArgs:
			return rSep
		case lexer.MistralCallID:
			return rID
		}
	case famLlama:
		switch t.Marker {
		case lexer.EndOfMessage:
			return rBlockClose
		case lexer.PythonTag:
			return rCallOpen
		}
	case famHarmony:
		switch t.Marker {
		case lexer.HarmonyMessage:
			return rSep
		case lexer.HarmonyCall, lexer.HarmonyEnd, lexer.HarmonyReturn:
			return rCallClose
		case lexer.HarmonyStart:
			return rBlockOpen
		}
	}
	return rNone
}

// openSpecial starts a unit at a special-token opener met in text.
func (m *Machine) openSpecial(t *lexer.Token, fam family) {
	m.begin(t)
	m.blk = block{fam: fam, open: infoOf(t)}
	m.lv = lvBlock
	switch fam {
	case famMistral, famLlama:
		m.openCall(t, fam, 0) // the opener is the call's first token
	case famHarmony:
		m.blk.implicit = true // one message, one call; it may start at <|channel|>
		m.openCall(t, fam, 0)
	}
}

// collectsLoose reports whether text in the current call is loose text:
// a name, id, header, key or value written without tags of its own.
func (m *Machine) collectsLoose() bool {
	c := &m.call
	switch c.fam {
	case famGLM:
		return true
	case famToken:
		return !c.sep || !c.named
	case famMistral:
		return c.name.b == c.name.a && !c.done
	case famHarmony:
		return !c.sep
	}
	return false
}

// textLooseCall gathers loose text inside a call.
func (m *Machine) textLooseCall(b []byte) int {
	c := &m.call
	if c.loose < 0 {
		i := firstNonSpace(b)
		if i < 0 {
			m.add(b)
			return len(b)
		}
		if m.jsonCanStart(b[i]) {
			if m.add(b[:i]) {
				m.startJSON()
			}
			return i
		}
		c.loose = len(m.buf) + i
	}
	switch {
	case c.fam == famToken && c.sep: // deepseek_v3: the name is the line after `function<｜tool▁sep｜>`
		from := max(0, c.loose-len(m.buf)) // the name starts at its first non-space byte
		if j := bytes.IndexAny(b[from:], "\n`{"); j >= 0 {
			j += from
			if !m.add(b[:j]) {
				return j
			}
			m.setName(bytes.TrimSpace(m.looseText(len(m.buf))))
			c.loose = -1
			c.named = true
			return j
		}
	case c.fam == famHarmony:
		if room := maxHeader - (len(m.buf) - c.start); len(b) > room {
			// Too long for a header: not a harmony message after all.
			room = max(room, 0)
			if m.add(b[:room]) {
				m.toText()
			}
			return room
		}
	}
	m.add(b)
	return len(b)
}

const maxHeader = 512

func (m *Machine) setName(name []byte) {
	m.call.named = true
	m.call.name = m.keepName(name)
	if len(name) > 0 && !m.blk.implicit {
		m.sink.CallStart(name)
	}
}

// tagSpecialInCall handles a separator or id token inside a call.
func (m *Machine) tagSpecialInCall(t *lexer.Token, r role, tokStart int) {
	c := &m.call
	header := bytes.TrimSpace(m.looseText(tokStart))
	c.loose = -1
	switch c.fam {
	case famToken:
		c.sep = true
		switch {
		case t.Marker == lexer.ArgumentBegin || bytes.HasPrefix(header, []byte("functions.")):
			c.dialect = KimiK2
			m.kimiName(header)
		case string(header) == "function":
			c.dialect = DeepSeekV3
		default:
			c.dialect = DeepSeekV31
			m.setName(header)
		}
	case famMistral:
		if r == rID {
			m.setName(header)
			c.wantID = true
			return
		}
		if c.wantID {
			c.id = m.keepName(header)
		} else {
			m.setName(header)
		}
	case famHarmony:
		c.sep = true
		m.harmonyHeader(tokStart)
	}
}

// kimiName takes the name and id from `functions.NAME:IDX`.
func (m *Machine) kimiName(header []byte) {
	m.call.id = m.keepName(header)
	name := bytes.TrimPrefix(header, []byte("functions."))
	if i := bytes.LastIndexByte(name, ':'); i > 0 {
		name = name[:i]
	}
	m.setName(name)
}

// harmonyHeader decides what a harmony message is once its header
// (buf[call.start:end]) is complete: a call (it names a recipient),
// reasoning (the analysis channel) or the answer.
func (m *Machine) harmonyHeader(end int) {
	h := m.buf[m.call.start:end]
	if i := bytes.Index(h, []byte("to=")); i >= 0 {
		name := h[i+3:]
		j := 0
		for j < len(name) && (isWordByte(name[j]) || name[j] == '.' || name[j] == '-' || '0' <= name[j] && name[j] <= '9') {
			j++
		}
		name = bytes.TrimPrefix(name[:j], []byte("functions."))
		m.call.dialect = Harmony
		m.setName(name)
		return
	}
	// Not a call: the header is discarded, the message is reasoning or text.
	analysis := bytes.Contains(h, []byte("analysis"))
	m.flushDiscard(len(m.buf), "harmony_header")
	m.toText()
	if analysis {
		m.lv = lvThink
		m.harmonyThink = true
	}
}

// tagInHarmonyThink ends harmony reasoning at the message's end.
func (m *Machine) tagInHarmonyThink(t *lexer.Token) bool {
	switch t.Marker {
	case lexer.HarmonyEnd, lexer.HarmonyReturn, lexer.HarmonyCall:
		m.lv = lvText
		m.harmonyThink = false
		m.sink.Discard(t.Raw, "harmony_end")
		return true
	case lexer.HarmonyStart, lexer.HarmonyChannel:
		m.lv = lvText
		m.harmonyThink = false
		m.tagInText(t)
		return true
	}
	return false
}

// envelopes turns a JSON array of {"name":..,"arguments":..} objects
// (mistral) into calls, all reported at once.
func (m *Machine) envelopes(out []byte) {
	var list []json.RawMessage
	if json.Unmarshal(out, &list) != nil {
		return
	}
	m.envs = m.envs[:0]
	for _, e := range list {
		name, args := m.envelope(e)
		if len(name) > 0 {
			m.envs = append(m.envs, env{name: m.keepName(name), args: args})
		}
	}
}

type env struct {
	name span
	args []byte
}

// envelope reads the name and arguments of one call object.
func (m *Machine) envelope(out []byte) (name, args []byte) {
	var e struct {
		Name       string          `json:"name"`
		Tool       string          `json:"tool"`
		Function   json.RawMessage `json:"function"`
		Arguments  json.RawMessage `json:"arguments"`
		Parameters json.RawMessage `json:"parameters"`
		Args       json.RawMessage `json:"args"`
		Input      json.RawMessage `json:"input"`
	}
	if json.Unmarshal(out, &e) != nil {
		return nil, nil
	}
	n := firstNonEmpty(e.Name, e.Tool)
	if len(e.Function) > 0 && e.Function[0] == '{' { // {"function": {"name":..,"arguments":..}}
		return m.envelope(e.Function)
	}
	if n == "" && len(e.Function) > 0 {
		_ = json.Unmarshal(e.Function, &n)
	}
	a := e.Arguments
	for _, x := range []json.RawMessage{e.Parameters, e.Args, e.Input} {
		if len(a) == 0 || string(a) == "null" {
			a = x
		}
	}
	if len(a) > 0 && a[0] == '"' { // arguments as a JSON string
		var s string
		if json.Unmarshal(a, &s) == nil {
			a = m.repairJSON([]byte(s))
		}
	}
	if len(a) == 0 || a[0] != '{' {
		a = []byte("{}")
	}
	return bytes.TrimSpace([]byte(n)), a
}
