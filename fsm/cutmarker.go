package fsm

import (
	"bytes"

	"github.com/toolsieve/toolsieve/lexer"
)

// A marker cut short by the end of the answer, after recovered calls: a
// section closer without its last bytes (`<|tool_calls_section_end|`), a
// block opener the model began and never finished
// (`<｜DSML｜function_calls`), a sentinel without its last bracket. The
// lexer gives such a tail back as text at the end of input; when the
// bytes that end a marker (`>`, `|>`, `]`, ...) would make it one of a
// known dialect, it is markup the user must not be shown: it is
// discarded as a stray token. Only after a call was recovered (prose that
// ends in `<tool_call` with no call before it stays text) and outside
// code.

// markerEnds are the bytes that may complete a marker cut short.
var markerEnds = []string{">", "|>", "｜>", "]", "[", "▁>"}

// cutMarker reports whether text token t, met at the end of input, is a
// marker of a known dialect cut short after recovered calls.
func (m *Machine) cutMarker(t *lexer.Token) bool {
	raw := t.Raw
	if !m.left.called || m.lv != lvText && m.lv != lvBlock || m.code != codeNone || len(raw) < 2 || len(raw) > lexer.MaxNameLen*2 {
		return false
	}
	switch raw[0] {
	case '<', '[', ']':
	default:
		return false
	}
	buf := make([]byte, 0, len(raw)+4)
	for _, end := range markerEnds {
		buf = append(append(buf[:0], raw...), end...)
		var lx lexer.Lexer
		lx.Feed(buf)
		if k, ok := lx.Next(true); ok && k.Kind != lexer.Text && k.Kind != lexer.Backticks && k.Marker != lexer.Unknown && len(k.Raw) == len(buf) {
			return true
		}
	}
	return false
}

// dropCut takes a marker cut short out of the text: in a block, as part of
// the block's markup (what the block holds goes before it); in text, as a
// stray token, which it returns to be discarded (discardCut) once the end
// of input has given back what the text level holds before it (a ']'
// that may begin a sentinel, a word line, a label): discarded at once,
// it went out before those bytes.
func (m *Machine) dropCut(raw []byte) []byte {
	if m.lv == lvBlock {
		m.add(raw)
		return nil
	}
	return bytes.Clone(raw)
}

// closeToken handles token t that the lexer gives back at the end of
// input: a marker cut short in the text is returned to be discarded after
// eof (dropCut); a cut marker returned before is discarded first if t
// follows it (the lexer gives back one token, but nothing may leave it out).
func (m *Machine) closeToken(t *lexer.Token, cut []byte) []byte {
	m.discardCut(cut)
	if t.Kind == lexer.Text && m.cutMarker(t) {
		return m.dropCut(t.Raw)
	}
	m.token(t)
	return nil
}

// discardCut discards the marker cut short that dropCut returned, if any.
func (m *Machine) discardCut(raw []byte) {
	if raw != nil {
		m.sink.Discard(raw, DiscardStrayToken)
	}
}
