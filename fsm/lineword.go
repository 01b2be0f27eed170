package fsm

import "bytes"

// A line's first word cut by a chunk's end (`Howe|ver,`) may still begin a
// line the long way reads (a line call, a one-word label such as
// `Action:`, a word line, a line without '<'), so WritePlain used to send
// the chunk the long way, where a probe held the word and gave it back:
// at chunks of a few bytes most paragraphs start so. WritePlain holds such
// a word back unwritten instead, as it holds an opener's word (wordHold),
// and reads it again as the start of the next chunk: the bytes then go the
// way a chunk holding the whole word at a line's start would go, short or
// long; Write and Close write a word still held first, the long way.

// lineWord reports whether w holds a line's cut first word.
func (w *wordHold) lineWord() bool { return w != nil && w.line && w.n > 0 }

// cutWord reports whether b, a line's start that ends a chunk, is a word
// that the chunk's end may cut (a callee's bytes, see mayLineCall), short
// enough to be held.
func cutWord(b []byte) bool {
	if len(b) == 0 || len(b) > maxWord || !isWordByte(b[0]) {
		return false
	}
	for _, c := range b[1:] {
		if !calleeByte[c] {
			return false
		}
	}
	return true
}

// holdLineWord is WritePlain for chunk p that a line's start keeps off the
// short path: when that line is p's last and one word p's end may cut, the
// text before it, which must be plain, is passed and the word held back;
// else p takes the long way.
func (m *Machine) holdLineWord(p []byte) (held []byte, n int, ok bool) {
	s := bytes.LastIndexByte(p, '\n') + 1
	if s == 0 && !m.atLine || m.word.holding() > 0 || !cutWord(p[s:]) {
		return nil, 0, false
	}
	if s > 0 {
		if _, ok := m.plainLines(p[:s], nextStop(p[:s], 0)); !ok || m.ix.leads && pt.mayEndWord(p[:s]) {
			return nil, 0, false
		}
		if k := m.skipPlain(p[:s], true); m.lv == lvStopped {
			return nil, k, true
		}
	}
	m.holdWord(nil, p[s:])
	m.word.line = true
	return nil, s, true
}

// afterLineWord is WritePlain for chunk p after a line's cut first word
// was held back: the word, then p, are read as one chunk (in the word
// hold's join buffer); what that passes is reported as held (the word's
// bytes) and p[:n].
func (m *Machine) afterLineWord(p []byte) (held []byte, n int, ok bool) {
	w := m.word
	word := w.text()
	if len(p) > len(w.join)-len(word) {
		return nil, 0, false // Write writes the word first
	}
	c := append(append(w.join[:0], word...), p...)
	w.n, w.line = 0, false
	_, k, ok := m.WritePlain(c)
	switch {
	case !ok:
		w.n, w.line = len(word), true // nothing changed: the word is held still
		return nil, 0, false
	case k >= len(word):
		return word, k - len(word), true
	case m.lv == lvStopped:
		m.scratch = append(m.scratch, word[k:]...) // held bytes after the loop started
	}
	if k == 0 {
		return nil, 0, true // the word and p are held, or the loop's
	}
	return word[:k], 0, true
}
