package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/toolsieve/toolsieve/internal/jsonspan"
)

// Tool is one declared tool: its name and the compiled schema of its
// arguments (nil when the declaration gave none).
type Tool struct {
	Name   string
	Schema *Schema
	// Required lists the parameters the tool's schema requires.
	Required []string
}

// Tools is a set of declared tools, by name. The zero value and nil are
// empty sets.
type Tools struct {
	byName map[string]*Tool
	// folded maps the lower-cased name to the tool, or to nil when two
	// declared names fold to the same key (ambiguous).
	folded map[string]*Tool
	names  []string
}

// ParseTools reads declared tools from JSON: an OpenAI `tools` array
// ([{"type":"function","function":{"name":..,"parameters":{schema}}}]), an
// Anthropic `tools` array ([{"name":..,"input_schema":{schema}}]), a bare
// array of {"name","parameters"} objects, or a whole request body (object)
// holding a `tools` array (also old OpenAI `functions`). Empty/absent → empty
// set, no error.
//
// Also accepted: a single tool object, MCP's `inputSchema`, and Gemini's
// `functionDeclarations` / `function_declarations` groups inside `tools`.
// Entries without a name (OpenAI built-in tools such as
// {"type":"code_interpreter"}) are skipped. A later declaration of a name
// replaces an earlier one. Malformed JSON, an entry or a `function` that is
// not an object, a name that is not a string and a schema that is not an
// object (or a boolean or null) are errors.
func ParseTools(data []byte) (*Tools, error) {
	t := &Tools{}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		return t, nil
	}
	switch data[0] {
	case '[':
		return parseArray(data, "tools")
	case '{':
		// The members are found in place: a request body's messages are
		// not copied (they may be most of many megabytes). A key named
		// twice is read as encoding/json reads it: the last one wins.
		if !jsonspan.Valid(data) {
			var v any
			return nil, fmt.Errorf("tools: %w", json.Unmarshal(data, &v))
		}
		ms, _ := jsonspan.Members(data, 0, nil)
		tm, hasTools := jsonspan.Lookup(data, ms, "tools")
		if _, hasFuncs := jsonspan.Lookup(data, ms, "functions"); hasTools && !hasFuncs {
			return parseArray(data[tm.Start:tm.End], "tools") // a request body, as most are
		}
		found := false
		for _, key := range [...]string{"tools", "functions"} {
			m, ok := jsonspan.Lookup(data, ms, key)
			if !ok {
				continue
			}
			found = true
			if err := t.addArray(data[m.Start:m.End], key); err != nil {
				return nil, err
			}
		}
		if !found {
			// A single tool declaration rather than a request body.
			_, hasName := jsonspan.Lookup(data, ms, "name")
			_, hasFunc := jsonspan.Lookup(data, ms, "function")
			if hasName || hasFunc {
				if err := t.addEntry(data, "tool"); err != nil {
					return nil, err
				}
			}
		}
	default:
		return nil, errors.New("tools: expected a JSON array or object")
	}
	t.finish()
	return t, nil
}

func (t *Tools) addArray(data []byte, where string) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		return nil
	}
	var arr []json.RawMessage
	if err := json.Unmarshal(data, &arr); err != nil {
		return fmt.Errorf("tools: %s: %w", where, err)
	}
	for i, raw := range arr {
		if err := t.addEntry(raw, where+"["+strconv.Itoa(i)+"]"); err != nil {
			return err
		}
	}
	return nil
}

func (t *Tools) addEntry(raw []byte, where string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return fmt.Errorf("tools: %s: not a JSON object", where)
	}
	if fn, ok := m["function"]; ok && string(bytes.TrimSpace(fn)) != "null" { // OpenAI chat form
		if !isJSONObject(fn) {
			return fmt.Errorf("tools: %s.function: not a JSON object", where)
		}
		var inner map[string]json.RawMessage
		if err := json.Unmarshal(fn, &inner); err != nil {
			return fmt.Errorf("tools: %s.function: %w", where, err)
		}
		m = inner
		where += ".function"
	}
	for _, key := range [...]string{"functionDeclarations", "function_declarations"} {
		if group, ok := m[key]; ok { // Gemini
			if err := t.addArray(group, where+"."+key); err != nil {
				return err
			}
		}
	}
	nameRaw, ok := m["name"]
	if !ok || string(bytes.TrimSpace(nameRaw)) == "null" {
		return nil
	}
	var name string
	if err := json.Unmarshal(nameRaw, &name); err != nil {
		return fmt.Errorf("tools: %s.name: not a string", where)
	}
	if name == "" {
		return nil
	}
	var schemaRaw json.RawMessage
	for _, key := range [...]string{"parameters", "input_schema", "inputSchema"} {
		if r, ok := m[key]; ok {
			schemaRaw = r
			break
		}
	}
	s, err := CompileSchema(schemaRaw)
	if err != nil {
		return fmt.Errorf("tools: %s (%s): %w", where, name, err)
	}
	var req struct {
		Required []json.RawMessage `json:"required"`
	}
	_ = json.Unmarshal(schemaRaw, &req) // a schema that is not an object requires nothing
	var required []string
	for _, r := range req.Required {
		var k string
		if json.Unmarshal(r, &k) == nil {
			required = append(required, k)
		}
	}
	if t.byName == nil {
		t.byName = make(map[string]*Tool)
	}
	t.byName[name] = &Tool{Name: name, Schema: s, Required: required}
	return nil
}

func (t *Tools) finish() {
	t.names = make([]string, 0, len(t.byName))
	t.folded = make(map[string]*Tool, len(t.byName))
	for name, tool := range t.byName {
		t.names = append(t.names, name)
		key := strings.ToLower(name)
		if _, dup := t.folded[key]; dup {
			t.folded[key] = nil
		} else {
			t.folded[key] = tool
		}
	}
	sort.Strings(t.names)
}

// Len returns the number of declared tools (0 for nil).
func (t *Tools) Len() int {
	if t == nil {
		return 0
	}
	return len(t.byName)
}

// Lookup finds a declared tool: by exact name first, then by a unique
// case-insensitive match. Nil-safe.
func (t *Tools) Lookup(name string) (*Tool, bool) {
	if t == nil || len(t.byName) == 0 {
		return nil, false
	}
	if tool, ok := t.byName[name]; ok {
		return tool, true
	}
	if tool := t.folded[strings.ToLower(name)]; tool != nil {
		return tool, true
	}
	return nil, false
}

// Names returns the declared names, sorted. The slice is the caller's.
func (t *Tools) Names() []string {
	if t == nil || len(t.names) == 0 {
		return nil
	}
	return append([]string(nil), t.names...)
}

func isJSONObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{'
}

// ---------------------------------------------------------------------------
// Schema

// kindSet is a set of JSON value kinds. "number" is kNum|kInt, so that the
// intersection of number and integer is integer.
type kindSet uint8

const (
	kNull kindSet = 1 << iota
	kBool
	kInt // integral numbers
	kNum // non-integral numbers
	kStr
	kArr
	kObj
)

// Schema is a compiled subset of JSON Schema, enough to type argument
// values: `type` (a name or a list, "null" included), `properties`,
// `items`, `enum`, `const`, `anyOf`, `oneOf` (both treated as a list of
// alternatives), `allOf` (merged into one schema), `$ref` to JSON pointers
// within the same document (`#/$defs/..`, `#/definitions/..`),
// `additionalProperties` (a schema, or false) and OpenAPI's `nullable`.
// Other keywords (`default`, `description`, `required`, formats, bounds...)
// are ignored. A nil *Schema means "unknown": values get the contract
// defaults.
//
// After compilation, anyOf/oneOf alternatives are flattened: each
// alternative carries the constraints of the schema that held it (merged
// in) and has no alternatives of its own. Cycles through `$ref` are kept as
// pointer cycles; typing only follows them while descending into a value,
// so it always terminates.
type Schema struct {
	kinds    kindSet     // 0: any kind
	enum     []enumValue // nil: no enum (const is an enum of one)
	props    map[string]*Schema
	items    *Schema
	addl     *Schema // additionalProperties as a schema
	closed   bool    // additionalProperties: false
	alts     []*Schema
	building bool // compile time only: the schema is still being filled
}

type enumValue struct {
	json []byte  // compact JSON text of the member
	kind kindSet // one kind; numbers are kInt or kNum by their form
	str  string  // decoded value, for strings
	num  float64 // value, for numbers
}

// Property returns the schema of the named property: the declared one, or
// the additionalProperties schema; with alternatives, the first alternative
// that declares it. Nil-safe; nil means unknown.
func (s *Schema) Property(name string) *Schema {
	if s == nil {
		return nil
	}
	if p, ok := s.props[name]; ok {
		return p
	}
	for _, a := range s.alts {
		if p, ok := a.props[name]; ok {
			return p
		}
	}
	if s.addl != nil {
		return s.addl
	}
	for _, a := range s.alts {
		if a.addl != nil {
			return a.addl
		}
	}
	return nil
}

// Items returns the schema of array elements (nil-safe; nil = unknown).
func (s *Schema) Items() *Schema {
	if s == nil {
		return nil
	}
	if s.items != nil {
		return s.items
	}
	for _, a := range s.alts {
		if a.items != nil {
			return a.items
		}
	}
	return nil
}

// declares reports whether an object of this schema may hold the named
// member: a declared property, or any name when additionalProperties is not
// false.
func (s *Schema) declares(name string) bool {
	if s == nil || !s.closed {
		return true
	}
	_, ok := s.props[name]
	return ok
}

// CompileSchema compiles a JSON Schema document. Empty input, null, true
// and {} give nil (unknown); false gives nil too (typing does not reject).
// Anything but an object, a boolean or null is an error. Unresolvable
// `$ref`s compile to unknown.
func CompileSchema(data []byte) (*Schema, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, nil
	}
	switch string(data) {
	case "null", "true", "false":
		return nil, nil
	}
	if data[0] != '{' {
		return nil, errors.New("schema is not a JSON object")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	d := &schemaDoc{root: data, refs: map[string]*rawNode{}, budget: maxSchemaNodes}
	d.objs = map[string]map[string]json.RawMessage{"": top}
	n := &rawNode{}
	d.fill(n, top)
	c := &schemaCompiler{done: map[*rawNode]*Schema{}, merged: map[[2]*Schema]*Schema{}, budget: maxSchemaNodes}
	s := c.schema(n)
	if s.isEmpty() {
		return nil, nil
	}
	return s, nil
}

// maxSchemaNodes bounds the work spent compiling one schema (hostile or
// absurd schemas degrade to "unknown" instead of exhausting memory).
const maxSchemaNodes = 1 << 14

// isEmpty reports whether s carries no constraint at all.
func (s *Schema) isEmpty() bool {
	return s == nil || (s.kinds == 0 && s.enum == nil && len(s.props) == 0 && s.items == nil &&
		s.addl == nil && !s.closed && len(s.alts) == 0)
}

// rawNode is a schema as written, before allOf merging and anyOf
// flattening. A node with isRef set is an alias of ref (nil: unresolved).
type rawNode struct {
	isRef    bool
	ref      *rawNode
	kinds    kindSet
	nullable bool
	enum     []json.RawMessage
	hasEnum  bool
	props    map[string]*rawNode
	items    *rawNode
	addl     *rawNode
	closed   bool
	anyOf    []*rawNode // anyOf and oneOf
	allOf    []*rawNode
}

type schemaDoc struct {
	root   []byte
	refs   map[string]*rawNode                   // by JSON pointer
	objs   map[string]map[string]json.RawMessage // decoded objects, by JSON pointer
	arrs   map[string][]json.RawMessage          // decoded arrays, by JSON pointer
	budget int
}

func (d *schemaDoc) parse(data []byte) *rawNode {
	d.budget--
	if d.budget < 0 {
		return nil
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return nil // boolean schemas and junk: unknown
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	n := &rawNode{}
	d.fill(n, m)
	return n
}

func (d *schemaDoc) fill(n *rawNode, m map[string]json.RawMessage) {
	if raw, ok := m["$ref"]; ok {
		var ref string
		if json.Unmarshal(raw, &ref) == nil {
			n.isRef = true
			n.ref = d.resolve(ref)
			return
		}
	}
	if raw, ok := m["type"]; ok {
		var one string
		var many []string
		if json.Unmarshal(raw, &one) == nil {
			n.kinds = kindsOf(one)
		} else if json.Unmarshal(raw, &many) == nil {
			for _, t := range many {
				n.kinds |= kindsOf(t)
			}
		}
	}
	if raw, ok := m["nullable"]; ok && string(bytes.TrimSpace(raw)) == "true" {
		n.nullable = true
	}
	if raw, ok := m["enum"]; ok {
		var members []json.RawMessage
		if json.Unmarshal(raw, &members) == nil && len(members) > 0 {
			n.enum, n.hasEnum = members, true
		}
	}
	if raw, ok := m["const"]; ok {
		n.enum, n.hasEnum = []json.RawMessage{raw}, true
	}
	if raw, ok := m["properties"]; ok {
		var props map[string]json.RawMessage
		if json.Unmarshal(raw, &props) == nil {
			n.props = make(map[string]*rawNode, len(props))
			for k, v := range props {
				n.props[k] = d.parse(v)
			}
		}
	}
	if raw, ok := m["items"]; ok && isJSONObject(raw) {
		n.items = d.parse(raw)
	}
	if raw, ok := m["additionalProperties"]; ok {
		if string(bytes.TrimSpace(raw)) == "false" {
			n.closed = true
		} else if isJSONObject(raw) {
			n.addl = d.parse(raw)
		}
	}
	for _, key := range [...]string{"anyOf", "oneOf"} {
		n.anyOf = append(n.anyOf, d.parseList(m[key])...)
	}
	n.allOf = d.parseList(m["allOf"])
}

func (d *schemaDoc) parseList(raw json.RawMessage) []*rawNode {
	if raw == nil {
		return nil
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	out := make([]*rawNode, 0, len(list))
	for _, v := range list {
		out = append(out, d.parse(v)) // nil (unknown) alternatives are kept: they accept anything
	}
	return out
}

func kindsOf(t string) kindSet {
	switch strings.ToLower(t) { // Gemini writes "OBJECT", "STRING"...
	case "null":
		return kNull
	case "boolean":
		return kBool
	case "integer":
		return kInt
	case "number":
		return kInt | kNum
	case "string":
		return kStr
	case "array":
		return kArr
	case "object":
		return kObj
	}
	return 0
}

// resolve returns the node a `$ref` points to, creating it on first use so
// that cyclic references end up as pointer cycles.
func (d *schemaDoc) resolve(ref string) *rawNode {
	if !strings.HasPrefix(ref, "#") {
		return nil // remote references are not followed
	}
	ptr := ref[1:]
	if strings.Contains(ptr, "%") {
		if p, err := url.PathUnescape(ptr); err == nil {
			ptr = p
		}
	}
	if n, ok := d.refs[ptr]; ok {
		return n
	}
	n := &rawNode{}
	d.refs[ptr] = n
	if d.budget--; d.budget < 0 {
		return n
	}
	if m := d.object(ptr); m != nil {
		d.fill(n, m)
	}
	return n
}

// object returns the decoded JSON object at a JSON pointer, or nil.
func (d *schemaDoc) object(ptr string) map[string]json.RawMessage {
	if m, ok := d.objs[ptr]; ok {
		return m
	}
	raw := d.value(ptr)
	var m map[string]json.RawMessage
	if raw != nil && isJSONObject(raw) && json.Unmarshal(raw, &m) != nil {
		m = nil
	}
	d.objs[ptr] = m
	return m
}

// value returns the JSON text at a JSON pointer, or nil.
func (d *schemaDoc) value(ptr string) []byte {
	if ptr == "" {
		return d.root
	}
	if ptr[0] != '/' {
		return nil // plain-name anchors are not supported
	}
	cut := strings.LastIndexByte(ptr, '/')
	parent, token := ptr[:cut], ptr[cut+1:]
	token = strings.NewReplacer("~1", "/", "~0", "~").Replace(token)
	if m := d.object(parent); m != nil {
		return m[token]
	}
	if d.arrs == nil {
		d.arrs = map[string][]json.RawMessage{}
	}
	arr, ok := d.arrs[parent]
	if !ok {
		if raw := d.value(parent); raw != nil {
			_ = json.Unmarshal(raw, &arr)
		}
		d.arrs[parent] = arr
	}
	if i, err := strconv.Atoi(token); err == nil && i >= 0 && i < len(arr) {
		return arr[i]
	}
	return nil
}

// schemaCompiler turns raw nodes into Schemas: allOf members are merged,
// anyOf/oneOf alternatives flattened and combined with the constraints
// around them.
type schemaCompiler struct {
	done   map[*rawNode]*Schema
	merged map[[2]*Schema]*Schema
	budget int
}

func (c *schemaCompiler) newSchema() *Schema {
	c.budget--
	return &Schema{}
}

func derefNode(n *rawNode) *rawNode {
	for hops := 0; n != nil && n.isRef; hops++ {
		if hops > 64 {
			return nil // a cycle of pure references: unknown
		}
		n = n.ref
	}
	return n
}

func (c *schemaCompiler) schema(n *rawNode) *Schema {
	n = derefNode(n)
	if n == nil {
		return nil
	}
	if s, ok := c.done[n]; ok {
		return s
	}
	if c.budget <= 0 {
		return nil
	}
	s := c.newSchema()
	s.building = true
	c.done[n] = s
	s.kinds = n.kinds
	if n.nullable && s.kinds != 0 {
		s.kinds |= kNull
	}
	if n.hasEnum {
		s.enum = compileEnum(n.enum)
	}
	if n.props != nil {
		s.props = make(map[string]*Schema, len(n.props))
		for k, v := range n.props {
			s.props[k] = c.schema(v)
		}
	}
	s.items = c.schema(n.items)
	s.addl = c.schema(n.addl)
	s.closed = n.closed
	for _, m := range n.allOf {
		if ms := c.schema(m); ms != s {
			c.mergeInto(s, ms)
		}
	}
	if len(n.anyOf) > 0 {
		var alts []*Schema
		for _, m := range n.anyOf {
			ms := c.schema(m)
			switch {
			case ms == s:
				// `a = anyOf[a, ...]` adds nothing.
			case ms == nil:
				alts = append(alts, c.newSchema()) // accepts anything
			case !ms.building && len(ms.alts) > 0:
				alts = append(alts, ms.alts...)
			default:
				alts = append(alts, ms)
			}
		}
		s.alts = c.crossAlts(s.alts, alts)
	}
	c.finishAlts(s)
	s.building = false
	return s
}

// crossAlts combines two lists of alternatives of the same value (from two
// allOf members, or allOf and anyOf): every pair, merged, bounded.
func (c *schemaCompiler) crossAlts(a, b []*Schema) []*Schema {
	switch {
	case len(a) == 0:
		return b
	case len(b) == 0:
		return a
	case len(a)*len(b) > 64:
		return a
	}
	out := make([]*Schema, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			if m := c.mergeOwn(x, y); m != nil {
				out = append(out, m)
			}
		}
	}
	if len(out) == 0 {
		return a
	}
	return out
}

// finishAlts merges the schema's own constraints into each alternative,
// dropping alternatives that contradict them.
func (c *schemaCompiler) finishAlts(s *Schema) {
	if len(s.alts) == 0 || !s.hasOwn() {
		return
	}
	alts := make([]*Schema, 0, len(s.alts))
	for _, a := range s.alts {
		if m := c.mergeOwn(s, a); m != nil {
			alts = append(alts, m)
		}
	}
	if len(alts) > 0 {
		s.alts = alts
	} else {
		s.alts = nil
	}
}

func (s *Schema) hasOwn() bool {
	return s.kinds != 0 || s.enum != nil || len(s.props) > 0 || s.items != nil || s.addl != nil || s.closed
}

// mergeInto adds the constraints of m to dst (allOf). On a contradiction
// (no common type, disjoint enums) dst keeps its own.
func (c *schemaCompiler) mergeInto(dst, m *Schema) {
	if m == nil || dst == m {
		return
	}
	if k, ok := intersectKinds(dst.kinds, m.kinds); ok {
		dst.kinds = k
	}
	if e, ok := intersectEnums(dst.enum, m.enum); ok {
		dst.enum = e
	}
	if len(m.props) > 0 {
		props := make(map[string]*Schema, len(dst.props)+len(m.props))
		for k, v := range dst.props {
			props[k] = v
		}
		for k, v := range m.props {
			if old, ok := props[k]; ok {
				props[k] = c.merge(old, v)
			} else {
				props[k] = v
			}
		}
		dst.props = props
	}
	dst.items = c.merge(dst.items, m.items)
	dst.addl = c.merge(dst.addl, m.addl)
	dst.closed = dst.closed || m.closed
	if !m.building {
		dst.alts = c.crossAlts(dst.alts, m.alts)
	}
}

// merge returns a schema with the constraints of both (memoized, so that
// merging cyclic schemas terminates).
func (c *schemaCompiler) merge(a, b *Schema) *Schema {
	if a == nil || a == b {
		return b
	}
	if b == nil {
		return a
	}
	key := [2]*Schema{a, b}
	if r, ok := c.merged[key]; ok {
		return r
	}
	if c.budget <= 0 {
		return a
	}
	r := c.newSchema()
	c.merged[key] = r
	r.building = true
	r.copyOwn(a)
	r.alts = a.alts
	c.mergeInto(r, b)
	c.finishAlts(r)
	r.building = false
	return r
}

// mergeOwn merges the own constraints of x and y (not their alternatives)
// into a new schema; nil when they contradict each other.
func (c *schemaCompiler) mergeOwn(x, y *Schema) *Schema {
	if _, ok := intersectKinds(x.kinds, y.kinds); !ok {
		return nil
	}
	if _, ok := intersectEnums(x.enum, y.enum); !ok {
		return nil
	}
	if c.budget <= 0 {
		return y
	}
	r := c.newSchema()
	r.copyOwn(x)
	own := *y
	own.alts = nil
	c.mergeInto(r, &own)
	return r
}

func (s *Schema) copyOwn(x *Schema) {
	s.kinds, s.enum, s.items, s.addl, s.closed = x.kinds, x.enum, x.items, x.addl, x.closed
	s.props = x.props // never mutated in place: mergeInto copies before adding
}

// intersectKinds intersects two type sets (0 = any); ok is false when they
// have nothing in common.
func intersectKinds(a, b kindSet) (kindSet, bool) {
	switch {
	case a == 0:
		return b, true
	case b == 0:
		return a, true
	}
	k := a & b
	return k, k != 0
}

func intersectEnums(a, b []enumValue) ([]enumValue, bool) {
	switch {
	case a == nil:
		return b, true
	case b == nil:
		return a, true
	}
	var out []enumValue
	for _, x := range a {
		for _, y := range b {
			if bytes.Equal(x.json, y.json) {
				out = append(out, x)
				break
			}
		}
	}
	return out, len(out) > 0
}

func compileEnum(members []json.RawMessage) []enumValue {
	out := make([]enumValue, 0, len(members))
	for _, m := range members {
		m = bytes.TrimSpace(m)
		if !jsonspan.Valid(m) {
			continue
		}
		e := enumValue{json: jsonspan.Compact(nil, m), kind: jsonKind(m)}
		switch e.kind {
		case kStr:
			_ = json.Unmarshal(m, &e.str)
		case kInt, kNum:
			e.num, _ = strconv.ParseFloat(string(m), 64)
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
