package fsm

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolsieve/toolsieve/lexer"
)

// Recovery anchored on the declared tools: what the parser may conclude
// from a declared tool's name and its schema when the markup around them
// is not a dialect's.

// takes reports whether the declared tool named tool takes a parameter
// named param: it declares it, or it declares none (a tool declared
// without properties takes any names, as JSON Schema reads it).
func (m *Machine) takes(tool, param []byte) bool {
	if m.opt.HasParam != nil && m.opt.HasParam(tool, param) {
		return true
	}
	return m.open(tool)
}

// openToolShown reports whether t, the tag of a declared tool, only shows
// the tool rather than calls it, for a tool that takes any argument names
// (its children then prove nothing, so where the tag stands must): the tag
// does not start a line (it is part of a sentence), or the text introduced
// the markup as an illustration (its last line before the tag says
// "example:", "usage:", "format:" ...; see illustrates), here or earlier in
// the answer: a prompt or a manual echoed back lists one example after
// another. Tools that declare their parameters are judged by them instead.
func (m *Machine) openToolShown(t *lexer.Token) bool {
	if !m.open(t.Name) {
		return false
	}
	return !t.Has(lexer.LineStart) || m.illustrated() // nameelem.go
}

// illustrationWords introduce an example, not a call, when the line that
// holds one ends with ':'.
var illustrationWords = []string{"example", "usage", "format", "syntax", "e.g."}

// illustrates reports whether line (the last line of text) introduces an
// illustration: it ends with ':' and holds one of illustrationWords.
func illustrates(line []byte) bool {
	line = bytes.TrimRight(line, " \t")
	if len(line) == 0 || line[len(line)-1] != ':' {
		return false
	}
	for _, w := range illustrationWords {
		if containsFold(line, w) {
			return true
		}
	}
	return false
}

// containsFold reports whether b holds the lower-case ASCII word w in any
// case.
func containsFold(b []byte, w string) bool {
	for i := 0; i+len(w) <= len(b); i++ {
		if bytes.EqualFold(b[i:i+len(w)], []byte(w)) {
			return true
		}
	}
	return false
}

// lastLine returns the last line of the held text that holds more than
// whitespace (without its line break).
func (t *textTail) lastLine() []byte {
	b := bytes.TrimRight(t.buf[max(t.start, t.end-maxTail):t.end], " \t\r\n")
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	return b
}

// A declared tool's name anchors the arguments object that follows it when
// only a label stands between them: `NAME {..}`, `NAME({..})`,
// `[Calling tool: NAME with arguments: {..}]`, `"NAME" with args: {..}`,
// `NAME (ID: x_12)] Arguments: {..}`, `NAME Args :{..}`, `NAME.\n{..}`.
// The gap after the name holds at most maxAnchorGap bytes, one line break,
// and no word but anchorWords and ids (words with a digit): a sentence
// between the name and the object ("read_file showed that the config is
// {..}") breaks the anchor.
const maxAnchorGap = 64

// anchorWords may stand between a tool's name and its arguments.
var anchorWords = []string{"with", "args", "arguments", "argument", "params", "parameters", "parameter", "input", "id"}

// inferredFit returns the declared tool that bare arguments (their
// members and keys) are a call of, when they fit it, and replaces the
// call's arguments with the object the call takes: the tool a label line
// named (the call's anchor), else the tool an envelope names (see
// envelopeFit), else the tool the text just before names in a call-like
// position (textTail.anchor). A JSON schema is never arguments.
func (m *Machine) inferredFit(members map[string]json.RawMessage, keys []string) (string, bool) {
	if m.opt.FitsTool == nil || schemaLike(members) {
		return "", false
	}
	if a := m.probe.anchor; a.b > 0 { // the probe that opened these arguments is still m.probe
		name := m.buf[a.a:a.b]
		return string(name), m.opt.FitsTool(name, keys)
	}
	if m.code != codeNone {
		return "", false
	}
	if name, args, ok := m.envelopeFit(members); ok {
		m.call.args = args
		return name, true
	}
	name := m.tail.anchor(m.declared)
	if name == nil || !m.opt.FitsTool(name, keys) {
		return "", false
	}
	return string(name), true
}

// holdsEnvelopes reports whether every bare object in text is held to see if it
// is an envelope (envelopeFit): tools are declared, outside code.
func (m *Machine) holdsEnvelopes() bool {
	return m.opt.FitsTool != nil && m.code == codeNone
}

// An envelope is an object that names a declared tool in one member and
// holds its arguments in another, in a shape no dialect of the table
// writes: an Anthropic content block printed back (`{'id': .., 'input':
// {..}, 'name': 'bash', 'type': 'tool_use'}`), a recipient
// (`"recipient_name": "functions.NAME", "parameters": {..}`), or an action
// member among the arguments themselves (`{"path": "a", "action": "read"}`).
var (
	envNameKeys = []string{"name", "tool", "tool_name", "function", "recipient_name", "action"}
	envArgKeys  = []string{"input", "arguments", "parameters", "args", "params"}
	// envFlatKeys name the tool among its arguments: the others are them.
	envFlatKeys = []string{"action", "tool"}
)

// envelopeFit returns the declared tool an envelope names and the
// arguments object it holds, when they fit the tool. An object with a
// "description" is a tool's definition, never an envelope.
func (m *Machine) envelopeFit(members map[string]json.RawMessage) (string, []byte, bool) {
	if _, def := members["description"]; def {
		return "", nil, false
	}
	if name, args, ok := m.listEnvelopeFit(members); ok { // envlist.go
		return name, args, true
	}
	for _, nk := range envNameKeys {
		var name string
		if json.Unmarshal(members[nk], &name) != nil {
			continue
		}
		name = strings.TrimPrefix(name, "functions.")
		if !m.declared([]byte(name)) {
			continue
		}
		for _, ak := range envArgKeys {
			args := bytes.TrimSpace(members[ak])
			if len(args) == 0 || args[0] != '{' {
				continue
			}
			return name, args, m.objectFits([]byte(name), args)
		}
		if !slices.Contains(envFlatKeys, nk) {
			continue
		}
		rest := make(map[string]json.RawMessage, len(members))
		for k, v := range members {
			if k != nk {
				rest[k] = v
			}
		}
		args, err := json.Marshal(rest)
		if err != nil || len(rest) == 0 {
			return "", nil, false
		}
		return name, args, m.opt.FitsTool([]byte(name), keysOf(rest))
	}
	return "", nil, false
}

// objectFits reports whether args, a JSON object, is arguments of the
// declared tool name: not a JSON schema, and keys that fit the tool's.
func (m *Machine) objectFits(name, args []byte) bool {
	var members map[string]json.RawMessage
	if json.Unmarshal(args, &members) != nil || members == nil || schemaLike(members) {
		return false
	}
	return m.opt.FitsTool(name, keysOf(members))
}

func keysOf(members map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	return keys
}

// anchor returns the last word of the held text that declared accepts,
// when only a label gap (see maxAnchorGap) follows it; else nil.
func (t *textTail) anchor(declared func(w []byte) bool) []byte {
	b := t.buf[max(t.start, t.end-maxTail):t.end]
	if name, ok := anchorIn(b, declared); ok {
		return b[name.a:name.b]
	}
	return nil
}

// gapFits reports whether gap may stand between a tool's name and its
// arguments object (see maxAnchorGap).
func gapFits(gap []byte) bool {
	if len(gap) > maxAnchorGap || bytes.Count(gap, []byte{'\n'}) > 1 || bytes.ContainsAny(gap, "<>") {
		return false // markup between (`<exec>{..}` in a sentence) is no label
	}
	for i := 0; i < len(gap); {
		j := i
		for j < len(gap) && (isIdentByte(gap[j]) || gap[j] >= 0x80) {
			j++
		}
		if w := gap[i:j]; len(w) > 0 && !anchorWord(w) {
			return false
		}
		i = j + 1
	}
	return true
}

// anchorWord reports whether w is one of anchorWords (in any case) or an
// id (a word with a digit).
func anchorWord(w []byte) bool {
	for _, c := range w {
		if c >= '0' && c <= '9' {
			return true
		}
	}
	for _, a := range anchorWords {
		if bytes.EqualFold(w, []byte(a)) {
			return true
		}
	}
	return false
}

// A label line names the tool before its arguments object:
// `[Calling tool: NAME with arguments: {..}]`, `[Tool call: NAME({..})]`,
// `[Tool Call: NAME (ID: x_1)] Arguments: {..}`. Such a line (one starting
// with '[' that is no [Tool Use:] label, label.go) is held, up to
// maxAnchorLine bytes, until its first '{'. If a declared tool's name then
// stands in it with only a label gap before the '{' (anchorIn), the held
// line is the start of the call's markup and the object is probed as its
// arguments (the probe's pre, anchor); the object must fit the tool (see
// proseFit), else all goes back to the text. A line break, the cap, a
// marker or a '{' without such a name gives the line back to the text, and
// so does a '(', '[', '{' or '=' before the line's first space or ':'
// (`[get_weather(city="SF")]` is a call expression, not a label).
const maxAnchorLine = 160

// anchorsLabels reports whether label lines may anchor a call: tools are
// declared and bare arguments are recovered (bareargs.go).
func (m *Machine) anchorsLabels() bool {
	return m.tail != nil && m.opt.FitsTool != nil && m.code == codeNone
}

// anchorLabel steps the held label line by b[i]. It reports whether the
// line was decided, and how many bytes of b were taken then.
func (m *Machine) anchorLabel(b []byte, i int) (int, bool) {
	l := m.lbl
	c := b[i]
	switch {
	case !l.spaced && (c == '(' || c == '[' || c == '{' || c == '='):
		// `[name(..)]`: a call expression (pythonic), no label
		l.held = append(l.held, b[:i+1]...)
		m.giveBackLabel()
		return i + 1, true
	case c == ' ' || c == ':':
		l.spaced = true
		return 0, false
	case c == ']' && m.forLabelCall(append(l.held, b[:i+1]...)): // forlabel.go
		return i + 1, true
	case c == '{':
		l.held = append(l.held, b[:i]...)
		if name, ok := anchorIn(l.held, m.declared); ok {
			held, off := l.held, l.off
			l.state = lbNone
			m.startProbe(off, true)
			m.buf = append(m.buf, held...)
			m.probe.pre, m.probe.anchor = len(held), name
			return i, true // the '{' opens the probe's body
		}
		l.held = append(l.held, c)
		m.giveBackLabel()
		return i + 1, true
	case c == '\n':
		l.held = append(l.held, b[:i+1]...)
		m.giveBackLabel()
		return i + 1, true
	case len(l.held)+i+1 >= maxAnchorLine:
		return m.giveBackThrough(b, i)
	}
	return 0, false
}

// anchorIn returns where in b the last word that declared accepts stands,
// when only a label gap (see maxAnchorGap) follows it to b's end.
func anchorIn(b []byte, declared func(w []byte) bool) (span, bool) {
	var name span
	found := false
	eachWord(b, func(a, e int) {
		if declared(b[a:e]) {
			name, found = span{a, e}, true
		}
	})
	if !found || !gapFits(b[name.b:]) {
		return span{}, false
	}
	return name, true
}

// eachWord calls f with the bounds of each word of b (see textTail.words).
func eachWord(b []byte, f func(a, e int)) {
	for i := 0; i < len(b); {
		j := i
		for j < len(b) && (isIdentByte(b[j]) || b[j] == '-' || b[j] == '.') {
			j++
		}
		e := j
		for e > i && (b[e-1] == '.' || b[e-1] == '-') {
			e--
		}
		if e > i {
			f(i, e)
		}
		i = j + 1
	}
}

// schemaLike reports whether an object with these members is itself a
// JSON schema (a tool's parameters quoted back): it has "$schema", or
// "properties" with "type" or "required". It is never a call's arguments.
func schemaLike(members map[string]json.RawMessage) bool {
	if _, ok := members["$schema"]; ok {
		return true
	}
	_, props := members["properties"]
	_, typ := members["type"]
	_, req := members["required"]
	return props && (typ || req)
}

// beforeLabelLine returns b up to a line inside it that starts with '[';
// when label lines may anchor a call (anchorsLabels, tested in line by
// the caller), that line then starts the next text handled, where a label
// is looked for (startsLabel).
func beforeLabelLine(b []byte) []byte {
	if k := bytes.Index(b, []byte("\n[")); k >= 0 {
		return b[:k+1]
	}
	return b
}

// mayAnchor reports whether the rest of a label line, rest after held
// bytes, may still reach a '{' within maxAnchorLine: it is not seen to end
// before one. Lines that cannot are not held (prose lines starting with
// '[' then cost what they did).
func mayAnchor(rest []byte, held int) bool {
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 {
		return held+len(rest) < maxAnchorLine || bytes.IndexByte(rest, '{') >= 0
	}
	br := bytes.IndexByte(rest[:nl], '{')
	return br >= 0 && held+br < maxAnchorLine || forLabelMay(rest[:nl], held) // forlabel.go
}

// anchorEnds gives the held label line back to the text with b up to the
// end of its line (or all of b, or up to the cap).
func (m *Machine) anchorEnds(b []byte) int {
	n := len(b)
	if nl := bytes.IndexByte(b, '\n'); nl >= 0 {
		n = nl + 1
	}
	if room := maxAnchorLine - len(m.lbl.held); n > room && room > 0 {
		n = room
		for n < len(b) && !utf8.RuneStart(b[n]) {
			n++
		}
	}
	m.lbl.held = append(m.lbl.held, b[:n]...)
	m.giveBackLabel()
	return n
}

// anyKey is a key no declared schema names: an object holding it fits only
// a tool that takes any names (Options.FitsTool; kept out of Options to
// keep an idle machine small).
var anyKey = []string{"\x00any"}

// open reports whether the declared tool named tool takes any argument
// names: it declares no property.
func (m *Machine) open(tool []byte) bool {
	return m.opt.FitsTool != nil && m.opt.FitsTool(tool, anyKey)
}
