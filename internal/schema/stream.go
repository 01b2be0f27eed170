package schema

import (
	"bytes"

	"github.com/toolsieve/toolsieve/internal/jsonspan"
)

// ArgsWriter writes an arguments object one member at a time, for calls
// whose arguments are streamed: each member is typed as BuildArguments
// types it, and a value that will be a JSON string whatever follows can be
// written while it is still being read. Unlike BuildArguments, a name
// written twice gives two members, in the order written (JSON readers keep
// the last): what was sent cannot be taken back.
type ArgsWriter struct {
	t          typer
	root       *Schema
	n          int  // members written
	mismatched bool // a member did not fit the schema
}

// Reset starts a new object for tool (nil: no schema).
func (w *ArgsWriter) Reset(tool *Tool) {
	*w = ArgsWriter{}
	if tool != nil {
		w.root = tool.Schema
	}
}

// Mismatched reports whether a member written so far did not fit the
// schema (or is not declared where the schema allows no others).
func (w *ArgsWriter) Mismatched() bool { return w.mismatched }

// sep appends what comes before a member: the object's opening brace or a
// comma.
func (w *ArgsWriter) sep(dst []byte) []byte {
	w.n++
	if w.n == 1 {
		return append(dst, '{')
	}
	return append(dst, ',')
}

// key appends what comes before a member's value written as markup: the
// separator and the name.
func (w *ArgsWriter) key(dst []byte, name string) []byte {
	dst = w.sep(dst)
	if !w.root.declares(name) {
		w.mismatched = true
	}
	dst = jsonspan.AppendString(dst, name)
	return append(dst, ':')
}

// Member appends the member p, typed by the schema.
func (w *ArgsWriter) Member(dst []byte, p *Param) []byte {
	dst, fit := w.member(dst, p)
	if !fit {
		w.mismatched = true
	}
	return dst
}

// member appends the member p and reports whether its value fits the
// schema and its name is declared.
func (w *ArgsWriter) member(dst []byte, p *Param) ([]byte, bool) {
	dst = jsonspan.AppendString(w.sep(dst), p.Name)
	dst, fit := w.t.param(append(dst, ':'), p, w.root.Property(p.Name))
	return dst, fit && w.root.declares(p.Name)
}

// StringStart appends the start of member name up to its string value's
// opening quote, when the value, of which prefix is the start, will be
// typed as a JSON string of its raw text whatever follows. decided is
// false while the prefix is too short to tell, and when the value may be
// typed otherwise: it must then be written whole, with Member.
func (w *ArgsWriter) StringStart(dst []byte, name string, hint ValueHint, prefix []byte) (out []byte, decided bool) {
	if !rawString(w.root.Property(name), hint, prefix) {
		return dst, false
	}
	dst = w.key(dst, name)
	return append(dst, '"'), true
}

// End appends the object's closing brace (and its opening one if no
// member was written).
func (w *ArgsWriter) End(dst []byte) []byte {
	if w.n == 0 {
		dst = append(dst, '{')
	}
	return append(dst, '}')
}

// rawString reports whether a raw value starting with prefix is typed by s
// as the JSON string of its text, whatever follows (see typer.raw).
func rawString(s *Schema, hint ValueHint, prefix []byte) bool {
	switch {
	case hint == HintJSON:
		return false
	case s != nil && s.kinds == kStr && s.enum == nil && len(s.alts) == 0:
		return true // the common case of typer.raw
	case hint == HintString && acceptsString(s):
		return true
	case s != nil && (s.kinds != 0 || s.enum != nil || len(s.alts) != 0):
		return false
	}
	// No constraint: literals and numbers count only when exact, objects
	// and arrays after trimming; everything else is a string.
	i := 0
	for i < len(prefix) && isTrimSpace(prefix[i]) {
		i++
	}
	if i == len(prefix) {
		return false
	}
	if c := prefix[i]; c == '{' || c == '[' {
		return false
	}
	if i > 0 {
		return true // a literal or a number has no leading space
	}
	head := prefix[:min(len(prefix), maxNumberLook)]
	return !numberLike(head) && !literalPrefix(head)
}

// maxNumberLook bounds the bytes looked at to tell a number from text: a
// value that starts with a longer run of number bytes waits until complete.
const maxNumberLook = 64

// numberLike reports whether every byte of b may belong to a JSON number.
func numberLike(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) && c != '-' && c != '+' && c != '.' && c != 'e' && c != 'E' {
			return false
		}
	}
	return true
}

// literalPrefix reports whether b is the start of a literal that an
// unconstrained value becomes (true, False, None, ...).
func literalPrefix(b []byte) bool {
	for _, l := range [...]string{"true", "false", "null", "True", "False", "None"} {
		if len(b) <= len(l) && string(b) == l[:len(b)] {
			return true
		}
	}
	return false
}

// Members of arguments written as a JSON object: typed as TypeJSONValue
// types the whole object, member by member.

// JSONMembers reports whether the members of a JSON arguments object can
// be typed one by one as TypeJSONValue types the object: no alternatives
// or enum at the top.
func (w *ArgsWriter) JSONMembers() bool {
	r := w.root
	return r.isEmpty() || len(r.alts) == 0 && r.enum == nil && acceptsKind(r, kObj)
}

// member is the schema of member name of an object typed by s, and whether
// s declares it (as typer.container reads them).
func (s *Schema) member(name []byte) (ps *Schema, declared bool) {
	if s == nil || len(s.props) == 0 && s.addl == nil && !s.closed {
		return nil, true // the object is compacted as it is
	}
	if ps, ok := s.props[string(name)]; ok {
		return ps, true
	}
	return s.addl, !s.closed
}

// keyName is the name a member's key token spells.
func keyName(tok []byte) []byte {
	name := tok[1 : len(tok)-1]
	if bytes.IndexByte(name, '\\') >= 0 {
		name, _ = jsonspan.Unquote(tok)
	}
	return name
}

// JSONMember appends the member whose key token is key and whose value is
// the valid JSON value v, typed by the schema.
func (w *ArgsWriter) JSONMember(dst, key, v []byte) []byte {
	dst = w.sep(dst)
	dst = jsonspan.SanitizeString(dst, key)
	dst = append(dst, ':')
	ps, declared := w.root.member(keyName(key))
	dst, fit := w.t.json(dst, v, ps, 1)
	if !fit || !declared {
		w.mismatched = true
	}
	return dst
}

// JSONStringStart appends the start of the member whose key token is key
// up to its string value's opening quote, when a JSON string there is
// written as it is (sanitized): decided is false otherwise, and the member
// must be written whole, with JSONMember.
func (w *ArgsWriter) JSONStringStart(dst, key []byte) (out []byte, decided bool) {
	ps, declared := w.root.member(keyName(key))
	if !(ps.isEmpty() || ps.enum == nil && len(ps.alts) == 0 && acceptsKind(ps, kStr)) {
		return dst, false
	}
	dst = w.sep(dst)
	dst = jsonspan.SanitizeString(dst, key)
	if !declared {
		w.mismatched = true
	}
	return append(dst, ':', '"'), true
}
