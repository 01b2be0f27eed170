package fsm

// The bytes of a value as written, narrowed to the value itself: a CDATA
// section's content, the newlines around an element's value, trailing space.

import "bytes"

// unwrapCDATA narrows a value written as one CDATA section, whitespace
// around it aside, to the section's content.
func unwrapCDATA(b []byte, v span) span {
	w := bytes.TrimSpace(b[v.a:v.b])
	if len(w) < len(cdataOpen)+len(cdataClose) || !bytes.HasPrefix(w, cdataOpen) || !bytes.HasSuffix(w, cdataClose) ||
		bytes.Contains(w[len(cdataOpen):len(w)-len(cdataClose)], cdataClose) {
		return v
	}
	a := v.a + bytes.Index(b[v.a:v.b], cdataOpen) + len(cdataOpen)
	return span{a, a + len(w) - len(cdataOpen) - len(cdataClose)}
}

var cdataOpen, cdataClose = []byte("<![CDATA["), []byte("]]>")

// trimNewline drops one leading and one trailing newline of a value.
func trimNewline(b []byte, v span) span {
	if v.a < v.b && b[v.a] == '\n' {
		v.a++
	} else if v.a+1 < v.b && b[v.a] == '\r' && b[v.a+1] == '\n' {
		v.a += 2
	}
	if v.a < v.b && b[v.b-1] == '\n' {
		v.b--
		if v.a < v.b && b[v.b-1] == '\r' {
			v.b--
		}
	}
	return v
}

// trimRight is the end of s with trailing whitespace dropped.
func trimRight(b []byte, s span) int {
	for s.b > s.a && isSpace(b[s.b-1]) {
		s.b--
	}
	return s.b
}
