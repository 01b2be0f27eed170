package fsm

import (
	"bytes"
	"math"
)

// Element text in an XML dialect is XML: a model that writes the dialect
// as XML escapes the characters XML reserves (`2&gt;/dev/null` for
// `2>/dev/null` in a Cline <command>). Such a value is read back as the
// text it stands for, but only where the writer escaped consistently: a
// value holding a raw '<' or '>', or a '&' that starts no entity, was
// written raw (HTML source, `a && b`), and its entities are its own
// bytes. Only dialects whose table entry says so (Spec.entities) decode:
// the parsers of the others (qwen3_coder's <parameter=..>, JSON bodies)
// take values as written, and so does toolsieve.

// xmlEntity is one entity and the byte it stands for.
type xmlEntity struct {
	name string
	b    byte
}

var xmlEntityList = [...]xmlEntity{{"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}, {"&#39;", '\''}, {"&#34;", '"'}}

// entityAt reports the entity that starts v, if any.
func entityAt(v []byte) (xmlEntity, bool) {
	for _, e := range xmlEntityList {
		if bytes.HasPrefix(v, []byte(e.name)) {
			return e, true
		}
	}
	return xmlEntity{}, false
}

// appendDecoded appends v to dst with each entity of xmlEntityList
// replaced by the byte it stands for; other bytes as they are.
func appendDecoded(dst, v []byte) []byte {
	for {
		i := bytes.IndexByte(v, '&')
		if i < 0 {
			return append(dst, v...)
		}
		dst, v = append(dst, v[:i]...), v[i:]
		if e, ok := entityAt(v); ok {
			dst, v = append(dst, e.b), v[len(e.name):]
		} else {
			dst, v = append(dst, '&'), v[1:]
		}
	}
}

// escapedXML reports whether v holds an entity and was escaped throughout:
// no raw '<' or '>', every '&' an entity.
func escapedXML(v []byte) bool {
	if bytes.IndexByte(v, '&') < 0 || bytes.ContainsAny(v, "<>") {
		return false
	}
	for i := bytes.IndexByte(v, '&'); i >= 0; {
		if _, ok := entityAt(v[i:]); !ok {
			return false
		}
		j := bytes.IndexByte(v[i+1:], '&')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return true
}

// decodeEntities rewrites argument p of the call in progress, when its
// value is consistently escaped XML text, as the text it stands for.
func (m *Machine) decodeEntities(p *pspan) {
	v := m.paramValue(p)
	if !escapedXML(v) {
		return
	}
	a := len(m.names)
	m.names = appendDecoded(m.names, v)
	p.val, p.inNames = span{a, len(m.names)}, true
}

// beforeAmp narrows the streamed part buf[a:end] of a value in progress
// to the bytes before its first '&': from there on, what it stands for is
// known when the value is complete. Each byte is looked at once. (A buffer
// past int32 offsets, a cap set that high, streams none of it early.)
func (m *Machine) beforeAmp(a, end int) int {
	v := &m.val
	if end > math.MaxInt32 {
		return a
	}
	if v.amp < 0 {
		return max(a, min(end, int(-1-v.amp)))
	}
	from := max(a, int(v.amp))
	if from >= end {
		return end // looked at up to past end already: none before it
	}
	if i := indexByte(m.buf[from:end], '&'); i >= 0 {
		v.amp = int32(-1 - (from + i))
		return from + i
	}
	v.amp = int32(end)
	return end
}
