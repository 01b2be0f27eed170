package chat

// Non-streamed responses: a whole OpenAI or Anthropic document rewritten.

import (
	"bytes"
	"encoding/json"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
)

// docParse runs a parser over a whole content string and collects its
// text, reasoning from markup, and calls.
type docParse struct {
	text, reasoning []byte
	calls           []callOut
	pieces          []docPiece // in order, for Anthropic content blocks
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

func (w *streamRewriter) parseDoc(content []byte, anthropic bool, n int) (d docParse, stop bool) {
	p := w.newParser(anthropic, n)
	for _, evs := range [2][]toolsieve.Event{p.Feed(content), nil} {
		if evs == nil {
			evs = p.Close()
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
				w.report(e)
				c := callOut{id: e.ID, name: e.Name, args: append([]byte(nil), callArgs(e)...)}
				d.calls = append(d.calls, c)
				d.pieces = append(d.pieces, docPiece{call: c})
			case toolsieve.Runaway:
				w.report(e)
				return d, true
			case toolsieve.Error, toolsieve.Discard:
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
	if !json.Valid(doc) {
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

func (w *streamRewriter) rewriteOpenAIDoc(dst, doc []byte) ([]byte, bool) {
	_, els, ok := w.docArray(doc, "choices")
	if !ok {
		return dst, false
	}
	var edits []jsonspan.Edit
	for k, el := range els {
		cms, ok := jsonspan.Members(doc, el.Start, nil)
		if !ok {
			continue
		}
		mm, has := jsonspan.Lookup(doc, cms, "message")
		if !has {
			continue
		}
		mms, ok := jsonspan.Members(doc, mm.Start, nil)
		if !ok {
			continue
		}
		var d docParse
		cont, hasContent := jsonspan.Lookup(doc, mms, "content")
		if hasContent && jsonspan.IsString(doc, cont) {
			text := jsonspan.AppendUnquoted(nil, doc[cont.Start:cont.End])
			d, _ = w.parseDoc(text, false, k)
			if !bytes.Equal(d.text, text) || len(d.calls) > 0 {
				v := []byte("null")
				if len(d.calls) == 0 || !isBlank(d.text) {
					v = jsonspan.AppendQuoted(nil, d.text)
				}
				edits = append(edits, jsonspan.Edit{Start: cont.Start, End: cont.End, Repl: v})
			}
		}
		if len(d.reasoning) > 0 {
			if rm, has := jsonspan.Lookup(doc, mms, "reasoning_content"); has && jsonspan.IsString(doc, rm) {
				r := jsonspan.AppendUnquoted(nil, doc[rm.Start:rm.End])
				edits = append(edits, jsonspan.Edit{Start: rm.Start, End: rm.End, Repl: jsonspan.AppendQuoted(nil, append(r, d.reasoning...))})
			} else if has {
				edits = append(edits, jsonspan.Edit{Start: rm.Start, End: rm.End, Repl: jsonspan.AppendQuoted(nil, d.reasoning)})
			} else {
				edits = append(edits, jsonspan.InsertMember(mms, mm.End, "reasoning_content", jsonspan.AppendQuoted(nil, d.reasoning)))
			}
		}
		// Native calls: markup arguments become JSON.
		tm, hasTools := jsonspan.Lookup(doc, mms, "tool_calls")
		var tels []jsonspan.Span
		if hasTools {
			tels, _ = jsonspan.Elems(doc, tm.Start, nil)
			for _, te := range tels {
				edits = w.nativeDocCall(doc, te, edits)
			}
		}
		if len(d.calls) > 0 {
			var arr []byte
			for i, c := range d.calls {
				if i > 0 || len(tels) > 0 {
					arr = append(arr, ',')
				}
				arr = appendOpenAICall(arr, -1, c)
			}
			switch {
			case hasTools && len(tels) > 0:
				end := tels[len(tels)-1].End
				edits = append(edits, jsonspan.Edit{Start: end, End: end, Repl: arr})
			case hasTools:
				edits = append(edits, jsonspan.Edit{Start: tm.Start, End: tm.End, Repl: append(append([]byte("["), arr...), ']')})
			default:
				edits = append(edits, jsonspan.InsertMember(mms, mm.End, "tool_calls", append(append([]byte("["), arr...), ']')))
			}
			if fm, has := jsonspan.Lookup(doc, cms, "finish_reason"); has && !keepsFinish(jsonspan.StringBody(doc, fm)) {
				edits = append(edits, jsonspan.Edit{Start: fm.Start, End: fm.End, Repl: []byte(`"tool_calls"`)})
			}
		}
	}
	if len(edits) == 0 {
		return dst, false
	}
	jsonspan.SortEdits(edits)
	return jsonspan.Splice(dst, doc, edits), true
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

func (w *streamRewriter) rewriteAnthropicDoc(dst, doc []byte) ([]byte, bool) {
	ms, els, ok := w.docArray(doc, "content")
	if !ok {
		return dst, false
	}
	var edits []jsonspan.Edit
	calls := 0
	for k, el := range els {
		bms, ok := jsonspan.Members(doc, el.Start, nil)
		if !ok {
			continue
		}
		tm, has := jsonspan.Lookup(doc, bms, "type")
		if !has || string(jsonspan.StringBody(doc, tm)) != "text" {
			continue
		}
		xm, has := jsonspan.Lookup(doc, bms, "text")
		if !has || !jsonspan.IsString(doc, xm) {
			continue
		}
		text := jsonspan.AppendUnquoted(nil, doc[xm.Start:xm.End])
		d, _ := w.parseDoc(text, true, k)
		if len(d.pieces) == 1 && d.pieces[0].kind == runText && bytes.Equal(d.pieces[0].b, text) {
			continue
		}
		calls += len(d.calls)
		var repl []byte
		first := true
		for _, pc := range d.pieces {
			switch pc.kind {
			case runText:
				if len(d.calls) > 0 && isBlank(pc.b) || len(pc.b) == 0 {
					continue
				}
				if !first {
					repl = append(repl, ',')
				}
				// The first text piece keeps the block's other fields.
				if len(repl) == 0 {
					repl = jsonspan.Splice(repl, doc[el.Start:el.End], []jsonspan.Edit{{Start: xm.Start - el.Start, End: xm.End - el.Start, Repl: jsonspan.AppendQuoted(nil, pc.b)}})
				} else {
					repl = jsonspan.AppendQuoted(append(repl, `{"type":"text","text":`...), pc.b)
					repl = append(repl, '}')
				}
			case runReasoning:
				if !first {
					repl = append(repl, ',')
				}
				repl = jsonspan.AppendQuoted(append(repl, `{"type":"thinking","thinking":`...), pc.b)
				repl = append(repl, `,"signature":""}`...)
			default:
				if !first {
					repl = append(repl, ',')
				}
				repl = appendToolUse(repl, pc.call, true)
			}
			first = false
		}
		if len(repl) == 0 {
			// The whole block was markup that made nothing: drop it with a comma.
			if k+1 < len(els) {
				edits = append(edits, jsonspan.Edit{Start: el.Start, End: els[k+1].Start, Repl: nil})
			} else if k > 0 {
				edits = append(edits, jsonspan.Edit{Start: els[k-1].End, End: el.End, Repl: nil})
			} else {
				edits = append(edits, jsonspan.Edit{Start: el.Start, End: el.End, Repl: nil})
			}
			continue
		}
		edits = append(edits, jsonspan.Edit{Start: el.Start, End: el.End, Repl: repl})
	}
	if calls > 0 {
		if sm, has := jsonspan.Lookup(doc, ms, "stop_reason"); has && !keepsFinish(jsonspan.StringBody(doc, sm)) {
			edits = append(edits, jsonspan.Edit{Start: sm.Start, End: sm.End, Repl: []byte(`"tool_use"`)})
		}
	}
	if len(edits) == 0 {
		return dst, false
	}
	jsonspan.SortEdits(edits)
	return jsonspan.Splice(dst, doc, edits), true
}
