package schema

import "github.com/toolsieve/toolsieve/internal/jsonspan"

// Problems names what is wrong with a call's arguments (a JSON object) for
// the declared tool name: the required parameters it lacks, and the
// parameters whose value is of a kind their schema does not allow (at the
// top level; a schema with alternatives allows the kinds of any). Both are
// nil for an unknown tool or arguments that are not an object.
func (t *Tools) Problems(name string, args []byte) (missing, mistyped []string) {
	d, ok := t.Lookup(name)
	if !ok {
		return nil, nil
	}
	ms, ok := jsonspan.ValidMembers(args, nil)
	if i := jsonspan.SkipSpace(args, 0); !ok || i == len(args) || args[i] != '{' {
		return nil, nil
	}
	for _, k := range d.Required {
		if !hasMember(args, ms, k) {
			missing = append(missing, k)
		}
	}
	if d.Schema == nil {
		return missing, nil
	}
	for _, m := range ms {
		key := string(jsonspan.AppendUnquoted(nil, args[m.KeyStart:m.KeyStart+len(m.Key)+2]))
		if p := d.Schema.Property(key); p != nil && !p.allows(jsonKind(args[m.Start:m.End])) {
			mistyped = append(mistyped, key)
		}
	}
	return missing, mistyped
}

// allows reports whether a value of kind k may match s (nil: any).
func (s *Schema) allows(k kindSet) bool {
	if s == nil {
		return true
	}
	if len(s.alts) > 0 {
		for _, a := range s.alts {
			if a.allows(k) {
				return true
			}
		}
		return false
	}
	return s.kinds == 0 || s.kinds&k != 0
}

func hasMember(doc []byte, ms []jsonspan.Member, key string) bool {
	for _, m := range ms {
		if string(jsonspan.AppendUnquoted(nil, doc[m.KeyStart:m.KeyStart+len(m.Key)+2])) == key {
			return true
		}
	}
	return false
}
