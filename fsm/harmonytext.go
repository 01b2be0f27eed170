package fsm

import "bytes"

// A harmony model whose special tokens were stripped (or never sampled)
// writes its call header as plain words before the arguments:
//
//	assistant to=functions.exec_command commentary json
//	{"cmd": "date"}
//
// the channel word often garbled (`մեկնաբանություն 付款json`). With
// declared tools, a bare JSON object right after such a header is a call
// of the recipient: the text just before the object (the prose watch of
// bareargs.go) must hold `to=functions.NAME`, NAME a declared tool, then
// at most maxHeaderWords words on its line, the last of them ending in
// `json` (the header's content type, `<|constrain|>json`), and at most
// that line's end before the object; not in code. Prose that explains the
// format (`to=functions.NAME then {..}`) names no content type. The call is harmony's, and carries
// missing_opener (its <|start|>, <|channel|> and <|message|> tokens were
// absent). The header words stay text, as the prose before a bare object
// does: only the object is the call's markup.

const (
	recipientPrefix = "to=functions."
	maxHeaderWords  = 4 // a channel (garbled into two words at most), the content type
)

// recipient returns the declared tool that a harmony header at the end of
// the held text names, or nil.
func (t *textTail) recipient(declared func([]byte) bool) []byte {
	b := t.buf[max(t.start, t.end-maxTail):t.end]
	i := bytes.LastIndex(b, []byte(recipientPrefix))
	if i < 0 {
		return nil
	}
	rest := b[i+len(recipientPrefix):]
	n := 0
	for n < len(rest) && (isIdentByte(rest[n]) || rest[n] == '-' || n > 0 && rest[n] == '.') {
		n++
	}
	name, header := rest[:n], rest[n:]
	if n == 0 || len(header) > 0 && header[0] != ' ' && header[0] != '\t' && header[0] != '\n' && header[0] != '\r' {
		return nil // `to=functions.a+b`: no recipient
	}
	if nl := bytes.IndexByte(header, '\n'); nl >= 0 {
		if !isBlank(header[nl:]) {
			return nil // a line of other text between the header and the object
		}
		header = header[:nl]
	}
	words := bytes.Fields(header)
	if len(words) == 0 || len(words) > maxHeaderWords || !bytes.HasSuffix(bytes.ToLower(words[len(words)-1]), []byte("json")) {
		return nil
	}
	if !declared(name) {
		return nil
	}
	return name
}

// harmonyRecipient names a call of bare arguments by the recipient of the
// plain-text harmony header before it, and reports whether it did.
func (m *Machine) harmonyRecipient() bool {
	name := m.tail.recipient(m.declared)
	if name == nil || m.call.unread || m.code != codeNone {
		return false
	}
	if a := bytes.TrimSpace(m.call.args); len(a) == 0 || a[0] != '{' {
		return false
	}
	if s, ok := lookup(Harmony); ok && m.ix.on&specSet(s) != 0 {
		m.call.spec = s
	} else {
		return false // harmony is off: its headers are not read
	}
	m.call.name = m.keepName(name)
	m.call.repairs |= RMissingOpener
	return true
}
