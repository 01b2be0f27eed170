package chat

// Non-streamed responses: what the API codecs share to rewrite a whole
// document.

import (
	"bytes"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
)

// docParse runs a parser over a whole content string and collects its
// text, reasoning from markup, and calls.
type docParse struct {
	text, reasoning []byte
	calls           []callOut
	pieces          []docPiece // in order, for Anthropic content blocks
	cut             bool       // a call was cut before the model finished it (cut.go)
}

// docPiece is one output block: text, reasoning or a call.
type docPiece struct {
	kind runKind // runNone: a call
	b    []byte
	call callOut
}

func (d *docParse) add(kind runKind, b []byte) {
	if n := len(d.pieces); n > 0 && d.pieces[n-1].kind == kind {
		d.pieces[n-1].b = append(d.pieces[n-1].b, b...)
		return
	}
	d.pieces = append(d.pieces, docPiece{kind: kind, b: append([]byte(nil), b...)})
}

// parseDoc parses a whole content string; cut says the response says it
// was cut (its finish reason or status is not the model's own end): a call
// its end closed is then kept as text (cut.go).
func (w *streamRewriter) parseDoc(content []byte, anthropic bool, n int, cut bool) (d docParse, stop bool) {
	p := w.newParser(anthropic, n)
	defer func() { w.cutting = false }()
	var c textChan // for the cut's report
	for _, evs := range [2][]toolsieve.Event{p.Feed(content), nil} {
		if evs == nil {
			evs = p.Close()
			if w.cutting = cut; cut {
				w.markCuts(evs)
			}
		}
		for i := range evs {
			e := &evs[i]
			switch e.Type {
			case toolsieve.Text:
				d.text = append(d.text, e.Text...)
				d.add(runText, e.Text)
			case toolsieve.Reasoning:
				if len(e.Raw) > 0 && len(e.Text) > 0 {
					d.reasoning = append(d.reasoning, e.Text...)
					d.add(runReasoning, e.Text)
				}
			case toolsieve.ToolCall:
				if w.isCut(e) {
					d.text = append(d.text, e.Raw...)
					d.add(runText, e.Raw)
					w.reportTruncated(&c, e, false)
					d.cut = true
					continue
				}
				w.report(e)
				c := callOut{id: e.ID, name: e.Name, args: append([]byte(nil), callArgs(e)...)}
				d.calls = append(d.calls, c)
				d.pieces = append(d.pieces, docPiece{call: c})
			case toolsieve.Runaway:
				w.report(e)
				return d, true
			case toolsieve.Error, toolsieve.Discard:
				if w.parserCut(e) {
					w.reportTruncated(&c, e, false) // its markup, text, follows
					d.cut = true
					continue
				}
				if w.refusedCut(e) {
					w.stats.Truncated++
					d.cut = true
				}
				w.report(e)
			}
		}
	}
	return d, false
}

// docArray checks a whole response and returns its top-level members and
// the elements of its array member key (choices, content); ok is false when
// the document is not one to rewrite.
func (w *streamRewriter) docArray(doc []byte, key string) (ms []jsonspan.Member, els []jsonspan.Span, ok bool) {
	if !jsonspan.Valid(doc) {
		w.reportError("malformed JSON response; passed through", -1)
		return nil, nil, false
	}
	ms, ok = jsonspan.Members(doc, 0, nil)
	am, has := jsonspan.Lookup(doc, ms, key)
	if !ok || !has {
		return nil, nil, false
	}
	els, ok = jsonspan.Elems(doc, am.Start, nil)
	return ms, els, ok
}

// nativeDocCall converts the markup arguments of a native call in a
// non-streamed OpenAI message.
func (w *streamRewriter) nativeDocCall(doc []byte, te jsonspan.Span, edits []jsonspan.Edit) []jsonspan.Edit {
	tms, ok := jsonspan.Members(doc, te.Start, nil)
	if !ok {
		return edits
	}
	fn, has := jsonspan.Lookup(doc, tms, "function")
	if !has {
		return edits
	}
	fms, ok := jsonspan.Members(doc, fn.Start, nil)
	if !ok {
		return edits
	}
	am, has := jsonspan.Lookup(doc, fms, "arguments")
	if !has || !jsonspan.IsString(doc, am) {
		return edits
	}
	args := jsonspan.AppendUnquoted(nil, doc[am.Start:am.End])
	t := bytes.TrimLeft(args, " \t\r\n")
	if len(t) == 0 || t[0] != '<' && t[0] != '[' {
		return edits
	}
	var name []byte
	if nm, has := jsonspan.Lookup(doc, fms, "name"); has && jsonspan.IsString(doc, nm) {
		name = jsonspan.AppendUnquoted(nil, doc[nm.Start:nm.End])
	}
	obj := w.nativeArgs(name, args)
	if bytes.Equal(obj, args) {
		return edits
	}
	return append(edits, jsonspan.Edit{Start: am.Start, End: am.End, Repl: jsonspan.AppendQuoted(nil, obj)})
}
