package schema

import "slices"

// What the parser asks of the declared tools when a call's name is not
// where it belongs: whether a tool declares a parameter (a child tag after
// a harness label), and which tool an arguments object fits (a bare object
// after prose that names the tool).

// HasParam reports whether the declared tool named tool (see Lookup)
// declares a property named param in its schema. Nil-safe.
func (t *Tools) HasParam(tool, param string) bool {
	d, ok := t.Lookup(tool)
	return ok && d.Schema.hasProp(param)
}

// Fit returns the name of the one declared tool that an arguments object
// with these keys fits: its schema declares every key as a property, and
// every parameter it requires is among them. ok is false when no tool or
// more than one fits, or keys is empty. Nil-safe.
func (t *Tools) Fit(keys []string) (name string, ok bool) {
	if t == nil || len(keys) == 0 {
		return "", false
	}
	for _, n := range t.names {
		d := t.byName[n]
		if !fits(d, keys) {
			continue
		}
		if ok {
			return "", false // two tools fit: ambiguous
		}
		name, ok = d.Name, true
	}
	return name, ok
}

func fits(d *Tool, keys []string) bool {
	for _, k := range keys {
		if !d.Schema.hasProp(k) {
			return false
		}
	}
	for _, r := range d.Required {
		if !slices.Contains(keys, r) {
			return false
		}
	}
	return true
}

// hasProp reports whether the schema declares the named property, itself
// or in one of its alternatives (additionalProperties do not count).
func (s *Schema) hasProp(name string) bool {
	if s == nil {
		return false
	}
	if _, ok := s.props[name]; ok {
		return true
	}
	for _, a := range s.alts {
		if _, ok := a.props[name]; ok {
			return true
		}
	}
	return false
}
