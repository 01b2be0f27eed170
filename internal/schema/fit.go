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

// Open reports whether the declared tool named tool declares no property
// and does not close its object: as JSON Schema reads it, it takes any
// argument names. Nil-safe.
func (t *Tools) Open(tool string) bool {
	d, ok := t.Lookup(tool)
	return ok && d.Schema.open()
}

// FitsTool reports whether an arguments object with these keys fits the
// declared tool named tool: every key is a parameter of it (any name, when
// it declares none) and every parameter it requires is among them. Nil-safe.
func (t *Tools) FitsTool(tool string, keys []string) bool {
	d, ok := t.Lookup(tool)
	return ok && fits(d, keys)
}

// Fit returns the name of the one declared tool that an arguments object
// with these keys fits: its schema declares every key as a property, and
// every parameter it requires is among them. A tool that declares no
// property fits nothing here: any object would fit it, so a fit says
// nothing. ok is false when no tool or more than one fits, or keys is
// empty. Nil-safe.
func (t *Tools) Fit(keys []string) (name string, ok bool) {
	if t == nil || len(keys) == 0 {
		return "", false
	}
	for _, n := range t.names {
		d := t.byName[n]
		if d.Schema.open() || !fits(d, keys) {
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
	open := d.Schema.open()
	for _, k := range keys {
		if !open && !d.Schema.hasProp(k) {
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

// open reports whether the schema names no property, itself or in an
// alternative, and does not close the object: any argument name fits it.
func (s *Schema) open() bool {
	if s == nil {
		return true
	}
	if s.closed || len(s.props) > 0 {
		return false
	}
	for _, a := range s.alts {
		if a.closed || len(a.props) > 0 {
			return false
		}
	}
	return true
}
