package chat

// The usual OpenAI chunk: one choice whose delta holds nothing but content,
// every other byte as in the chunk before but for a few top-level values
// the rewriter does not read (an id, a time, a sequence number). Such a
// chunk is recognised by matching it against the last one read in full,
// and rewritten without being parsed again: the bytes around its holes are
// those of a valid chunk, and valid tokens in the holes make a valid chunk
// too.

import (
	"bytes"

	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/sse"
)

// oaShape is the last chunk of content only, as the holes in oaStream.last
// (which holds the chunk: the shape is forgotten when last is replaced
// otherwise) that the next chunk may fill differently: the content string,
// and the scalar values of the top-level members but choices and usage.
// It also keeps the chunk's SSE event name, its choice, and whether it
// said nothing but content (oaStream.onlyContent).
type oaShape struct {
	holes   []jsonspan.Span // in s.last, in order
	content int             // the hole of the content string
	spans   []jsonspan.Span // scratch: the holes as filled by the chunk being matched
	typ     string
	ch      *oaChoice
	only    bool
	d       oaDelta // what apply needs of a chunk of the shape, but its content's span
	// misses counts chunks in a row that did not have the shape kept: in
	// a stream whose chunks all differ elsewhere too, shapes are kept
	// only now and then.
	misses int
	off    bool // no shape is kept: every chunk is read in full (tests compare both ways)
}

// maxShapeMisses is how many chunks in a row may miss the kept shape
// before shapes are kept only every shapeProbe-th chunk.
const (
	maxShapeMisses = 8
	shapeProbe     = 64
)

// noteShape keeps the shape of a chunk just rewritten whose one choice, ch,
// was described by d, when its delta held content only. s.ms holds the
// chunk's top-level members.
func (s *oaStream) noteShape(data []byte, ch *oaChoice, d *oaDelta) {
	sh := &s.shape
	if sh.off || !d.single || d.finishing || d.tools.Start >= 0 || d.content.Start < 0 || len(s.dms) != 1 || ch.closed || s.w.stopped ||
		sh.misses > maxShapeMisses && sh.misses%shapeProbe != 0 {
		sh.ch = nil
		return
	}
	content := jsonspan.Span{Start: d.content.Start, End: d.content.End}
	sh.holes, sh.content = sh.holes[:0], -1
	for _, m := range s.ms {
		if sh.content < 0 && m.Start > content.Start {
			sh.content = len(sh.holes)
			sh.holes = append(sh.holes, content)
		}
		switch string(m.Key) {
		case "choices", "usage": // read by the rewriter
			continue
		}
		if c := data[m.Start]; c != '{' && c != '[' {
			sh.holes = append(sh.holes, jsonspan.Span{Start: m.Start, End: m.End})
		}
	}
	if sh.content < 0 {
		sh.content = len(sh.holes)
		sh.holes = append(sh.holes, content)
	}
	sh.typ, sh.ch = s.typ, ch
	sh.only = s.onlyContent(data, &oaDelta{single: true, tools: d.tools, only: -1})
	sh.d = oaDelta{tools: jsonspan.Member{Start: -1}, finish: jsonspan.Member{Start: -1}, single: true, hasDelta: true}
	if sh.only {
		sh.d.only = 1
	}
}

// match fills sh.spans with the holes of data when data is the kept chunk
// with other valid tokens in its holes (a string in the content's), and
// reports whether it is, and whether a hole but the content's differs.
func (sh *oaShape) match(last, data []byte) (ok, changed bool) {
	var differ int
	sh.spans, differ, ok = jsonspan.FillsHoles(sh.spans[:0], data, last, sh.holes)
	if !ok || data[sh.spans[sh.content].Start] != '"' {
		return false, false
	}
	c, h := sh.spans[sh.content], sh.holes[sh.content]
	if differ == 1 && !bytes.Equal(data[c.Start:c.End], last[h.Start:h.End]) {
		differ-- // only the content differs
	}
	return true, differ > 0
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
	ok, changed := false, false
	if !sh.ch.closed && ev.Type == sh.typ {
		ok, changed = sh.match(s.last, data)
	}
	if !ok {
		sh.misses++
		return false
	}
	sh.misses = 0
	c := sh.spans[sh.content]
	if changed {
		// The chunk is the last one now: made-up chunks copy its values.
		s.last, s.tmplOK = append(s.last[:0], data...), false
		sh.holes, sh.spans = sh.spans, sh.holes // the chunk's holes are the shape's; spans is scratch
	}
	w := s.w
	s.edits = s.edits[:0]
	d := &sh.d
	d.content.Start, d.content.End = c.Start, c.End
	ch := sh.ch
	if !s.apply(ev, data, ch, d) {
		w.emitEdited(ev, s.edits)
	}
	if w.stopped {
		sh.ch = nil
		s.finish(true)
	}
	return true
}
