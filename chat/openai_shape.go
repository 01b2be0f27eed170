package chat

// The usual OpenAI chunk: one choice whose delta holds nothing but content,
// every other byte as in the chunk before. Such a chunk is recognised by
// the bytes around its content string, kept from the last one read in full,
// and rewritten without being parsed again: the bytes around are those of a
// valid chunk, and a valid string between them makes a valid chunk too.

import (
	"bytes"

	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/sse"
)

// oaShape is the last chunk of content only: the bytes before and after its
// content string (in oaStream.last, which holds the chunk: the shape is
// forgotten when last changes), its SSE event name, its choice, and whether
// it said nothing but content (oaStream.onlyContent).
type oaShape struct {
	pre, suf []byte
	typ      string
	ch       *oaChoice
	only     bool
	// misses counts chunks in a row that did not have the shape kept: in
	// a stream whose chunks all differ elsewhere too (a sequence number),
	// shapes are kept only now and then.
	misses int
}

// maxShapeMisses is how many chunks in a row may miss the kept shape
// before shapes are kept only every shapeProbe-th chunk.
const (
	maxShapeMisses = 8
	shapeProbe     = 64
)

// noteShape keeps the shape of a chunk just rewritten whose one choice, ch,
// was described by d, when its delta held content only.
func (s *oaStream) noteShape(data []byte, ch *oaChoice, d *oaDelta) {
	sh := &s.shape
	if !d.single || d.finishing || d.tools.Start >= 0 || d.content.Start < 0 || len(s.dms) != 1 || ch.closed || s.w.stopped ||
		sh.misses > maxShapeMisses && sh.misses%shapeProbe != 0 {
		sh.ch = nil
		return
	}
	sh.pre, sh.suf = s.last[:d.content.Start], s.last[d.content.End:] // s.last is a copy of data
	sh.typ, sh.ch = s.typ, ch
	sh.only = s.onlyContent(data, &oaDelta{single: true, tools: d.tools, only: -1})
}

// sameShape rewrites ev when it has the shape of the last chunk of content
// only, and reports whether it did.
func (s *oaStream) sameShape(ev *sse.Event) bool {
	sh := &s.shape
	data := ev.Data
	if sh.ch == nil {
		if sh.misses > maxShapeMisses {
			sh.misses++ // counts the chunks until the next probe
		}
		return false
	}
	if sh.ch.closed || ev.Type != sh.typ || len(data) < len(sh.pre)+len(sh.suf)+2 ||
		!bytes.HasPrefix(data, sh.pre) || !bytes.HasSuffix(data, sh.suf) ||
		!jsonspan.IsStringToken(data[len(sh.pre):len(data)-len(sh.suf)]) {
		sh.misses++
		return false
	}
	sh.misses = 0
	w := s.w
	s.edits = s.edits[:0]
	d := oaDelta{content: jsonspan.Member{Start: len(sh.pre), End: len(data) - len(sh.suf)},
		tools: jsonspan.Member{Start: -1}, finish: jsonspan.Member{Start: -1}, single: true, hasDelta: true, only: 0}
	if sh.only {
		d.only = 1
	}
	ch := sh.ch
	if !s.apply(ev, data, ch, &d) {
		w.emitEdited(ev, s.edits)
	}
	if w.stopped {
		sh.ch = nil
		s.finish(true)
	}
	return true
}
