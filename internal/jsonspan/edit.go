package jsonspan

// Edits that replace byte spans of a document, applied in order.

// Edit replaces doc[Start:End] with Repl.
type Edit struct {
	Start, End int
	Repl       []byte
}

// Splice appends doc with the edits applied to dst. Edits must be sorted by
// offset and must not overlap.
func Splice(dst, doc []byte, edits []Edit) []byte {
	at := 0
	for _, ed := range edits {
		dst = append(dst, doc[at:ed.Start]...)
		dst = append(dst, ed.Repl...)
		at = ed.End
	}
	return append(dst, doc[at:]...)
}

// Spliced returns a new document: doc with the edits applied (sorted, not
// overlapping), allocated once at its exact size, so that a large request
// body edited is copied once and held at the size it has.
func Spliced(doc []byte, edits []Edit) []byte {
	n := len(doc)
	for _, ed := range edits {
		n += len(ed.Repl) - (ed.End - ed.Start)
	}
	return Splice(make([]byte, 0, n), doc, edits)
}

// SortEdits orders edits by offset (insertion sort: there are a handful).
func SortEdits(es []Edit) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && es[j].Start < es[j-1].Start; j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

// InsertMember returns the edit that adds `"key":value` to the object whose
// members are ms and whose closing brace is at b[end-1].
func InsertMember(ms []Member, end int, key string, value []byte) Edit {
	var r []byte
	if len(ms) > 0 {
		r = append(r, ',')
	}
	r = AppendQuoted(r, key)
	r = append(r, ':')
	r = append(r, value...)
	return Edit{Start: end - 1, End: end - 1, Repl: r}
}

// SetMember returns the edit that sets member key of the object whose
// members are ms (in b) and whose closing brace is at b[end-1]: its value
// replaced when it is there, else InsertMember's.
func SetMember(b []byte, ms []Member, end int, key string, value []byte) Edit {
	if m, ok := Lookup(b, ms, key); ok {
		return Edit{Start: m.Start, End: m.End, Repl: value}
	}
	return InsertMember(ms, end, key, value)
}
