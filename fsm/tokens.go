package fsm

import (
	"bytes"
	"encoding/json"

	"github.com/toolsieve/toolsieve/internal/jsonspan"

	"github.com/toolsieve/toolsieve/lexer"
)

// The special-token dialects (deepseek_v3, deepseek_v31, kimi_k2, mistral,
// llama3, harmony) share the block machinery of the tag dialects: a token
// opens a unit, a call gathers its name as loose header text up to a
// separator token, and the arguments are a JSON body. What differs is how
// the header reads: each such dialect's table entry carries a header hook.

// openSpecial starts a unit at a special-token opener met in text.
func (m *Machine) openSpecial(t *lexer.Token, cands, variants dset) {
	if !m.begin(t) {
		return
	}
	m.openBlock(t, cands, variants)
	s := choose(cands, lexer.Unknown, false, shNone)
	switch {
	case s.shape == shHarmony: // it may start at <|channel|>
		m.blk.implicit = true // one message, one call
		m.openCall(t, s, 0)
	case tokenRoleOf(cands, t.Marker) == rCallOpen:
		m.blk.implicit = s.message
		m.openCall(t, s, 0) // the opener is the call's first token
	}
}

// collectsLoose reports whether text in the current call is loose text:
// a name, id, header, key or value written without tags of its own.
func (m *Machine) collectsLoose() bool {
	s := m.call.spec
	switch {
	case s.key != lexer.Unknown:
		return true
	case s.header != nil:
		return s.header.loose(&m.call)
	}
	return false
}

// textLooseCall gathers loose text inside a call.
func (m *Machine) textLooseCall(b []byte) int {
	c := &m.call
	if c.loose < 0 {
		i := firstNonBlank(b)
		if i < 0 {
			m.add(b)
			return len(b)
		}
		if m.jsonCanStart(b[i]) {
			if m.add(b[:i]) {
				m.startJSON(b[i])
			}
			return i
		}
		c.loose = len(m.buf) + i
	}
	switch {
	case c.spec.braceName && c.name.b == c.name.a && !c.hdr.idNext:
		// [TOOL_CALLS]add{..}: a name followed by its arguments without
		// the separator token; the '{' ends the name when it is one.
		from := max(0, c.loose-len(m.buf))
		if j := bytes.IndexByte(b[from:], '{'); j >= 0 {
			j += from
			if isIdent2(m.looseText(len(m.buf)), b[max(0, c.loose-len(m.buf)):j]) {
				if !m.add(b[:j]) {
					return j
				}
				m.setName(bytes.TrimSpace(m.looseText(len(m.buf))))
				c.loose = -1
				return j
			}
		}
	case c.spec.shape == shTokens && c.hdr.sep, c.spec.typeLine != "" && !c.hdr.named:
		// deepseek_v3: the name is the line after `function<｜tool▁sep｜>`;
		// step_audio_2: the line after `function`.
		from := max(0, c.loose-len(m.buf)) // the name starts at its first non-space byte
		if j := bytes.IndexAny(b[from:], "\n`{"); j >= 0 {
			j += from
			if !m.add(b[:j]) {
				return j
			}
			m.setName(bytes.TrimSpace(m.looseText(len(m.buf))))
			c.loose = -1
			return j
		}
	case c.spec.shape == shLoose:
		return m.textLooseHeader(b)
	case c.spec.header != nil && c.spec.header.ident:
		if i := m.notName(b); i >= 0 {
			if m.add(b[:i+1]) {
				m.toText() // not a name: the opener was prose
			}
			return i + 1
		}
	case c.spec.command != "":
		return m.textCommandName(b)
	case c.spec.shape == shHarmony:
		if room := maxHeader - (len(m.buf) - c.start); len(b) > room {
			// Too long for a header: not a harmony message after all. b
			// holds whole characters: the cut falls between two.
			room = max(room, 0)
			for room < len(b) && b[room]&0xC0 == 0x80 {
				room++
			}
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

// notName returns where loose header text b (more of the header at
// buf[call.loose:]) shows it is no name, else -1: a byte that no name
// holds, or a second word.
func (m *Machine) notName(b []byte) int {
	for i, x := range b {
		pos := len(m.buf) + i // where x will be in m.buf
		var prev byte
		if i > 0 {
			prev = b[i-1]
		} else if len(m.buf) > 0 {
			prev = m.buf[len(m.buf)-1]
		}
		switch {
		case isSpace(x):
		case !isIdentByte(x) && x != '-' && x != '.' && x != ':':
			return i
		case isSpace(prev) && m.call.loose >= 0 && m.call.loose < pos-1:
			return i
		}
	}
	return -1
}

func (m *Machine) setName(name []byte) {
	m.call.hdr.named = true
	if isCallID(name) { // an id where the name belongs (callid.go)
		name = nil
	}
	m.call.name = m.keepName(name)
	if !m.blk.implicit {
		m.callStart(name)
	}
}

// tagSpecialInCall hands a separator or id token to the call's header hook.
func (m *Machine) tagSpecialInCall(t *lexer.Token, r role, tokStart int) {
	header := bytes.TrimSpace(m.looseText(tokStart))
	m.call.loose = -1
	if h := m.call.spec.header; h != nil && h.sep != nil {
		h.sep(m, t, r, header)
	}
}

// tokenHeader reads deepseek and kimi call headers: `NAME<｜tool▁sep｜>`
// (deepseek_v31), `function<｜tool▁sep｜>NAME\n` (deepseek_v3),
// `functions.NAME:IDX<|tool_call_argument_begin|>` (kimi_k2).
var tokenHeader = header{
	loose: func(c *call) bool { return !c.hdr.sep || !c.hdr.named },
	sep: func(m *Machine, t *lexer.Token, r role, header []byte) {
		m.call.hdr.sep = true
		switch {
		case t.Marker == lexer.ArgumentBegin || bytes.HasPrefix(header, []byte("functions.")):
			m.decideNamed(kimiK2)
			m.kimiName(header)
		case string(header) == "function":
			m.decideNamed(deepSeekV3)
		default:
			m.decideNamed(deepSeekV31)
			m.setName(header)
		}
	},
	bare: func(m *Machine, end int) { // <｜tool▁call▁begin｜>NAME<｜tool▁call▁end｜>
		header := bytes.TrimSpace(m.looseText(end))
		if bytes.HasPrefix(header, []byte("functions.")) {
			m.decideNamed(kimiK2)
			m.kimiName(header)
			return
		}
		m.decideNamed(deepSeekV31)
		m.call.name = m.keepName(header)
	},
}

// mistralHeader reads `NAME[ARGS]` and `NAME[CALL_ID]ID[ARGS]`.
var mistralHeader = header{
	loose: func(c *call) bool { return c.name.b == c.name.a && !c.done || c.hdr.idNext && c.id.b == c.id.a },
	sep: func(m *Machine, t *lexer.Token, r role, header []byte) {
		c := &m.call
		switch {
		case r == rID:
			m.setName(header)
			c.hdr.idNext = true
		case c.hdr.idNext:
			c.id = m.keepName(header)
		default:
			m.setName(header)
		}
	},
}

// hunyuanHeader reads Hunyuan's call header: the name up to <tool_sep>
// (hy_v3), or, without one, up to the first <arg_key> or the call's closer
// (hy_v4).
var hunyuanHeader = kvNameHeader(hyV3, hyV4)

// kvHeader reads the name of a key/value call written in a call element:
// the loose text before its first key element or its closer (k2_horizon,
// telechat4).
var kvHeader = kvNameHeader("", "")

// kvNameHeader is the header of a key/value call whose name is loose text
// in its call element, ended by a separator (the call is then of dialect
// withSep) or by the first key element or the closer (of dialect bare). An
// empty name keeps the call's dialect.
func kvNameHeader(withSep, bare string) header {
	return header{
		loose: func(c *call) bool { return true }, // a key/value call: loose text is collected anyway
		sep: func(m *Machine, t *lexer.Token, r role, header []byte) {
			m.call.hdr.sep = true
			if withSep != "" {
				m.decideNamed(withSep)
			}
			m.setName(header)
		},
		bare: func(m *Machine, end int) {
			if name := bytes.TrimSpace(m.looseText(end)); m.call.name.a == m.call.name.b && isIdent(name) {
				if bare != "" {
					m.decideNamed(bare)
				}
				m.setName(name)
				m.call.loose = -1
			}
		},
	}
}

// harmonyHeader reads a harmony message header at <|message|>.
var harmonyHeader = header{
	loose: func(c *call) bool { return !c.hdr.sep },
	sep: func(m *Machine, t *lexer.Token, r role, _ []byte) {
		m.call.hdr.sep = true
		m.harmonyMessage(len(m.buf) - len(t.Raw))
	},
}

// decideNamed settles the call's dialect by name: the header said which
// sibling it is.
func (m *Machine) decideNamed(name string) {
	s, _ := lookup(name)
	m.setDialect(s)
}

// kimiName takes the name and id from `functions.NAME:IDX`.
func (m *Machine) kimiName(header []byte) {
	m.call.id = m.keepName(header)
	name := bytes.TrimPrefix(header, []byte("functions."))
	if i := bytes.LastIndexByte(name, ':'); i > 0 {
		name = name[:i]
	}
	if n := underscoreID(name, m.declared); n != nil {
		name = n
		m.call.repairs |= RMarkerVariant
	}
	m.setName(name)
}

// harmonyMessage decides what a harmony message is once its header
// (buf[call.start:end]) is complete: a call (it names a recipient),
// reasoning (the analysis channel) or the answer.
func (m *Machine) harmonyMessage(end int) {
	h := m.buf[m.call.start:end]
	var to []byte // the recipient
	if i := bytes.Index(h, []byte("to=")); i >= 0 {
		name := h[i+3:]
		j := 0
		for j < len(name) && (isWordByte(name[j]) || name[j] == '.' || name[j] == '-' || '0' <= name[j] && name[j] <= '9') {
			j++
		}
		to = name[:j]
	}
	// Muse Glimmer addresses its reasoning to=self and its answer to=user.
	if len(to) > 0 && string(to) != "self" && string(to) != "user" {
		m.setName(bytes.TrimPrefix(to, []byte("functions.")))
		return
	}
	// Not a call: the header is discarded, the message is reasoning or text.
	m.notCall(bytes.Contains(h, []byte("analysis")) || string(to) == "self")
}

// notCall ends a message whose header (all of m.buf) shows it is no call:
// the header is discarded, and what follows is reasoning (until the
// message's end token) or text.
func (m *Machine) notCall(reasoning bool) {
	s := m.call.spec
	m.openers--
	m.flushDiscard(len(m.buf), DiscardHarmonyHeader)
	m.toText()
	if reasoning {
		m.lv = lvThink
		m.thinkBy = s
	}
}

// sepHeader reads a header that is the call's name, ended by its separator
// token (plamo3's <|plamo:end_tool_name:plamo|>).
var sepHeader = header{
	ident: true,
	loose: func(c *call) bool { return !c.hdr.sep },
	sep: func(m *Machine, t *lexer.Token, r role, header []byte) {
		m.call.hdr.sep = true
		m.setName(header)
	},
}

// inklingHeader reads an Inkling message header, `<|message_model|>AUTHOR`
// up to its content token: a JSON call object follows
// <|content_invoke_tool_json|> (its name is the object's); after
// <|content_text|> the message is text, after <|content_thinking|>
// reasoning. A call in prose (<|content_invoke_tool_text|>) cannot be read:
// it stays text.
var inklingHeader = header{
	ident: true,
	loose: func(c *call) bool { return !c.hdr.sep },
	sep: func(m *Machine, t *lexer.Token, r role, header []byte) {
		if t.Marker == lexer.InvokeToolJSON {
			m.call.hdr.sep, m.call.hdr.named = true, true
			return
		}
		m.notCall(t.Marker == lexer.ContentThinking)
	},
}

// harmonyFraming handles a tag that opens a unit of another dialect at the
// start of a harmony message's body (Muse Glimmer writes ATEM markup, the
// invoke grammar, in a message addressed to the tool): the message header
// is framing, discarded, and the tag opens its own unit as in text. It
// reports whether it did.
func (m *Machine) harmonyFraming(t *lexer.Token, tokStart int) bool {
	c := &m.call
	if !c.hdr.sep || !c.hdr.named || c.done || c.jsonEnv || m.seg.active || t.Kind != lexer.Tag {
		return false
	}
	if r, cands, _ := m.roleAtText(t); r != rBlockOpen && r != rCallOpen || cands&specSet(c.spec) != 0 {
		return false
	}
	m.buf = m.buf[:tokStart]
	m.openers-- // the message opened no call after all
	m.flushDiscard(len(m.buf), DiscardHarmonyHeader)
	m.toText()
	m.tagInText(t)
	return true
}

// tagInHarmonyThink ends harmony reasoning at the message's end.
func (m *Machine) tagInHarmonyThink(t *lexer.Token) bool {
	by := specSet(m.thinkBy)
	switch r := tokenRoleOf(by, t.Marker); {
	case r == rCallClose || r == rBlockClose: // the message's end
		m.lv = lvText
		m.thinkBy = nil
		m.sink.Discard(t.Raw, DiscardHarmonyEnd)
		return true
	case r == rCallOpen || r == rBlockOpen || r == rNone && m.opensMessage(t): // the next message, its end missing
		m.lv = lvText
		m.thinkBy = nil
		m.tagInText(t)
		return true
	}
	return false
}

// opensMessage reports whether token t is an opener of the dialect whose
// reasoning message is in progress.
func (m *Machine) opensMessage(t *lexer.Token) bool {
	for _, op := range m.thinkBy.opens {
		if op.marker == t.Marker && t.Kind == lexer.Special {
			return true
		}
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

// envelope reads the name and arguments of one call object; none when
// the arguments are themselves a JSON schema (notcall.go).
func (m *Machine) envelope(out []byte) (name, args []byte) {
	name, args = m.envelopeOf(out)
	if schemaArgs(args) {
		return nil, nil
	}
	return name, args
}

func (m *Machine) envelopeOf(out []byte) (name, args []byte) {
	// the members are read once for both looks: a long value is skipped once
	ms, ok := jsonspan.Members(out, 0, nil)
	if ok && notCall(out, ms) { // a tool definition or an API's record (notcall.go)
		return nil, nil
	}
	if name, args, ok := leadingCall(out, ms, ok); ok {
		return name, args
	}
	if f := m.call.spec.flat; f != "" {
		if name, args, ok := flatCall(out, f); ok {
			return name, args
		}
	}
	if m.call.spec.nameKey { // {"NAME": {args}}
		var e map[string]json.RawMessage
		if json.Unmarshal(out, &e) != nil || len(e) != 1 {
			return nil, nil
		}
		for k, v := range e {
			if len(v) == 0 || v[0] != '{' {
				if unreadArgs(v) {
					m.markUnread()
				}
				v = []byte("{}")
			}
			return []byte(k), v
		}
	}
	var e struct {
		Name       string          `json:"name"`
		Tool       string          `json:"tool"`
		ToolName   string          `json:"tool_name"`
		Function   json.RawMessage `json:"function"`
		Arguments  json.RawMessage `json:"arguments"`
		Parameters json.RawMessage `json:"parameters"`
		Args       json.RawMessage `json:"args"`
		Input      json.RawMessage `json:"input"`
	}
	if json.Unmarshal(out, &e) != nil {
		return nil, nil
	}
	n := firstNonEmpty(e.Name, e.Tool, e.ToolName)
	if len(e.Function) > 0 && e.Function[0] == '{' { // {"function": {"name":..,"arguments":..}}
		return m.envelopeOf(e.Function)
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
			src := []byte(s)
			if a = m.repairJSON(src); !isBlank(src) && (len(a) == 0 || a[0] != '{' || lostContent(src, a)) {
				m.markUnread()
			}
		}
	}
	if len(a) == 0 {
		var held bool
		if a, held = m.loneArgs(out, []byte(n)); a != nil {
			m.call.repairs |= RRenamedArgs
		} else if held {
			m.markUnread()
		}
	}
	if unreadArgs(a) {
		m.markUnread()
	}
	if len(a) == 0 || a[0] != '{' {
		a = []byte("{}")
	}
	return bytes.TrimSpace([]byte(n)), a
}

// flatCall reads a call object that names its tool with member key and
// whose other members are the arguments ({"_name": N, "k": v}).
func flatCall(out []byte, key string) (name, args []byte, ok bool) {
	ms, ok := jsonspan.Members(out, 0, nil)
	if !ok {
		return nil, nil, false
	}
	args = append(make([]byte, 0, len(out)), '{')
	for _, mb := range ms {
		if string(mb.Key) != key {
			if len(args) > 1 {
				args = append(args, ',')
			}
			args = append(args, out[mb.KeyStart:mb.End]...)
			continue
		}
		var n string
		if name != nil || json.Unmarshal(out[mb.Start:mb.End], &n) != nil || n == "" {
			return nil, nil, false
		}
		name = []byte(n)
	}
	return name, append(args, '}'), name != nil
}

// leadingCall reads a call object out (its members ms, ok when it is an
// object) whose first member is "name", a string without escapes, and
// whose second is "arguments" or "parameters", an object: the call is
// those two, whatever follows (as it streams: see jsonstream.go).
func leadingCall(out []byte, ms []jsonspan.Member, ok bool) (name, args []byte, _ bool) {
	if !ok || len(ms) < 2 || string(ms[0].Key) != "name" || !jsonspan.IsString(out, ms[0]) ||
		string(ms[1].Key) != "arguments" && string(ms[1].Key) != "parameters" || out[ms[1].Start] != '{' {
		return nil, nil, false
	}
	n := out[ms[0].Start+1 : ms[0].End-1]
	if len(n) == 0 || bytes.IndexByte(n, '\\') >= 0 {
		return nil, nil, false
	}
	return n, out[ms[1].Start:ms[1].End], true
}
