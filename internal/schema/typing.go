package schema

// Typing of argument values.
//
// Values from XML-style markup arrive as raw text; values from JSON bodies
// (and DSML string="false") arrive as JSON. Both are turned into JSON by the
// declared schema of the parameter, or by the contract defaults when there
// is none. The rules, and the choices made where the contract leaves room:
//
//   - No schema (or an unconstrained one): `true`, `false`, `null`, `True`,
//     `False`, `None` (exactly, not trimmed) become literals; a number in
//     canonical JSON form (exactly, not trimmed) becomes a number, unless it
//     overflows float64 (`1e999` stays a string); a JSON object or array
//     that is valid after trimming surrounding whitespace is decoded
//     (re-encoded compactly); anything else is the raw text as a string.
//   - string: always the raw text, untrimmed, as given.
//   - integer: surrounding whitespace is ignored; any decimal form whose
//     value is integral is accepted and written in integer form: `5`, `-3`,
//     `+5`→5, `020`→20, `5.0`→5, `1e3`→1000 (exponent forms only up to
//     2^53). `5.5`, `0x10`, `1_000` do not fit.
//   - number: surrounding whitespace is ignored; decimal forms are accepted
//     and canonicalized: `+1`→1, `.5`→0.5, `1.`→1, `020`→20; `1.50` keeps its
//     digits. Hex, underscores, NaN and infinities do not fit.
//   - boolean: `true`/`false` in any case (so Python's `True`/`False` too),
//     trimmed. `1`/`0`/`yes`/`no` do not fit.
//   - null: `null`/`None` in any case, or empty/blank text.
//   - object/array: the trimmed text must be a JSON object/array. Its
//     members are typed recursively by `properties` / `additionalProperties`
//     / `items` (see TypeJSONValue: a string leaf "5" under an integer
//     property becomes 5, a number under a string property becomes its
//     text). The decoded structure is kept even when a leaf does not fit
//     (that leaf keeps its JSON value and fits is false); a member not
//     declared by an object with `additionalProperties: false` also makes
//     fits false.
//   - enum/const: the member that matches the text, tried in this order: a
//     string member equal to the raw text, then to the trimmed text; a
//     number member numerically equal (`5.0` matches 5), a boolean or null
//     member by its literal (any case); then a string member equal ignoring
//     case, when exactly one is. The member is written as declared.
//   - Alternatives (a type list, anyOf, oneOf — all the same here): enum
//     alternatives first; then by kind in the order null, boolean,
//     integer, number, object, array, and string last; within a kind, in
//     declaration order. When some alternative accepts strings, another kind
//     is chosen only if the text is an exact literal of it by the
//     no-schema rules (so with string|integer `5` is 5 but `020`, `5.0` and
//     ` 5` stay strings; with string|null `None` is null and `` is "");
//     otherwise the lenient per-type rules above apply. Among object (or
//     array) alternatives, the first one every member fits wins.
//   - When no alternative fits, a raw value is kept as its raw text (a JSON
//     string) and fits is false; without any string alternative, a raw text
//     that is itself a quoted JSON string (`"5"`) is unquoted and tried once
//     more first.
//
// Output is always valid JSON on one line: JSON values are compacted,
// invalid UTF-8 becomes U+FFFD and U+2028/U+2029 are escaped, as in the
// event encoding.

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/toolsieve/toolsieve/internal/jsonspan"
)

// ValueHint says what the markup told about how a value was written.
type ValueHint uint8

const (
	// HintNone: nothing is known; the raw text is typed by the schema.
	HintNone ValueHint = iota
	// HintString: a raw string (DSML string="true"). It stays a string
	// unless the schema admits no string at all, in which case it is typed
	// like HintNone.
	HintString
	// HintJSON: a JSON value (DSML string="false"), typed by
	// TypeJSONValue; text that is not valid JSON is typed like HintNone.
	HintJSON
)

// Param is one named argument value as found in the markup.
type Param struct {
	Name  string
	Value []byte
	Hint  ValueHint
}

// TypeValue converts a raw string value into JSON according to s (nil:
// the contract defaults). fits is false when the value does not fit the
// schema; the value is then the raw text as a JSON string (or, for a
// JSON object/array of the wanted kind with a misfit inside, the decoded
// structure). See the package comment in typing.go for the exact rules.
func TypeValue(raw string, s *Schema) (v json.RawMessage, fits bool) {
	var t typer
	out, ok := t.raw(nil, []byte(raw), s, 0)
	return json.RawMessage(out), ok
}

// TypeJSONValue types a value that arrived as JSON (DSML `string="false"`,
// JSON-bodied calls) by s: values of a kind the schema admits are kept
// (objects and arrays typed member by member), a JSON string is coerced
// when the schema admits no string ("5" → 5 for an integer, "true" → true,
// "[1,2]" → [1,2] for an array), a number or boolean becomes its text when
// the schema wants a string, and an object or array becomes its compact
// text when the schema wants a string and no object/array alternative
// exists. Otherwise the value is returned compacted with false. Text that
// is not valid JSON is typed as a raw value (TypeValue).
func TypeJSONValue(v json.RawMessage, s *Schema) (json.RawMessage, bool) {
	out, ok := AppendJSONValue(nil, v, s)
	return json.RawMessage(out), ok
}

// AppendJSONValue is TypeJSONValue appending the typed value to dst.
func AppendJSONValue(dst []byte, v json.RawMessage, s *Schema) ([]byte, bool) {
	var t typer
	return t.jsonOrRaw(dst, v, s)
}

// AppendValidJSON is AppendJSONValue for v already known to be valid JSON.
func AppendValidJSON(dst, v []byte, s *Schema) ([]byte, bool) {
	var t typer
	return t.json(dst, trimSpace(v), s, 0)
}

// BuildArguments appends to dst a JSON object built from ordered (name,
// value) pairs typed by the tool's schema (nil tool or schema: defaults),
// and returns the extended slice. Keys keep the order in which names were
// first seen; a later duplicate of a name replaces the earlier value.
// mismatched lists, in key order, the names whose value did not fit the
// schema (including names an `additionalProperties: false` schema does not
// declare); it is nil when all fit.
func BuildArguments(dst []byte, tool *Tool, params []Param) (obj []byte, mismatched []string) {
	var w ArgsWriter
	w.Reset(tool)
	var last map[string]int
	if len(params) > 16 {
		last = make(map[string]int, len(params))
		for i := range params {
			last[params[i].Name] = i
		}
	}
	for i := range params {
		name := params[i].Name
		j := i
		if last != nil {
			if j = last[name]; j < 0 {
				continue // already written
			}
			last[name] = -1
		} else {
			dup := false
			for k := range i {
				if params[k].Name == name {
					dup = true
					break
				}
			}
			if dup {
				continue
			}
			for k := i + 1; k < len(params); k++ {
				if params[k].Name == name {
					j = k
				}
			}
		}
		var fit bool
		if dst, fit = w.member(dst, &params[j]); !fit {
			mismatched = append(mismatched, name)
		}
	}
	return w.End(dst), mismatched
}

// ---------------------------------------------------------------------------

const (
	maxTypingDepth = 64 // deeper values are kept as they are (defaults)
	maxTypingRetry = 64 // object/array alternatives tried beyond the first, per call
)

// typer carries the per-call budget that keeps pathological schemas
// (alternatives of alternatives, nested) from taking exponential time.
type typer struct{ retries int }

func (t *typer) retry() bool {
	t.retries++
	return t.retries <= maxTypingRetry
}

func (t *typer) param(dst []byte, p *Param, s *Schema) ([]byte, bool) {
	switch p.Hint {
	case HintString:
		if acceptsString(s) {
			return jsonspan.AppendString(dst, p.Value), true
		}
	case HintJSON:
		return t.jsonOrRaw(dst, p.Value, s)
	}
	return t.raw(dst, p.Value, s, 0)
}

func (t *typer) jsonOrRaw(dst, v []byte, s *Schema) ([]byte, bool) {
	if trimmed := trimSpace(v); jsonspan.Valid(trimmed) {
		return t.json(dst, trimmed, s, 0)
	}
	return t.raw(dst, v, s, 0)
}

// Alternatives: a schema without alts is its own single alternative; a nil
// schema is one unconstrained alternative.
func altCount(s *Schema) int {
	if s == nil || len(s.alts) == 0 {
		return 1
	}
	return len(s.alts)
}

func altAt(s *Schema, i int) *Schema {
	if s == nil || len(s.alts) == 0 {
		return s
	}
	return s.alts[i]
}

// acceptsKind reports whether a non-enum alternative admits values of kind k.
func acceptsKind(a *Schema, k kindSet) bool {
	if a == nil {
		return true
	}
	return a.enum == nil && (a.kinds == 0 || a.kinds&k != 0)
}

func acceptsString(s *Schema) bool {
	for i := range altCount(s) {
		if acceptsKind(altAt(s, i), kStr) {
			return true
		}
	}
	return false
}

// intOnly reports whether an alternative admits integers but no other numbers.
func intOnly(a *Schema) bool {
	return a != nil && a.kinds&kInt != 0 && a.kinds&kNum == 0
}

var rawKindOrder = [...]kindSet{kNull, kBool, kInt, kNum, kObj, kArr}

// raw types raw text by s and appends the JSON to dst.
func (t *typer) raw(dst, raw []byte, s *Schema, depth int) ([]byte, bool) {
	if depth > maxTypingDepth {
		s = nil
	}
	if s != nil && s.kinds == kStr && s.enum == nil && len(s.alts) == 0 {
		return jsonspan.AppendString(dst, raw), true // the common case
	}
	trimmed := trimSpace(raw)
	if e := matchEnumText(raw, trimmed, s); e != nil {
		return append(dst, e.json...), true
	}
	strict := acceptsString(s)
	mark := len(dst)
	var partial []byte // output of the first object/array alternative that half fits
	hasPartial, tried := false, false
	valid := 0 // JSON validity of trimmed: 0 unknown, 1 valid, 2 invalid
	for _, k := range rawKindOrder {
		for i := range altCount(s) {
			a := altAt(s, i)
			if !acceptsKind(a, k) {
				continue
			}
			switch k {
			case kNull:
				if isNullText(raw, trimmed, strict) {
					return append(dst, "null"...), true
				}
			case kBool:
				if b, ok := boolText(raw, trimmed, strict); ok {
					return strconv.AppendBool(dst, b), true
				}
			case kInt:
				if !intOnly(a) {
					continue // numbers keep their form; see kNum
				}
				if strict {
					if ok, isInt := jsonspan.Number(raw); ok && isInt && numberInRange(raw) {
						return append(dst, raw...), true
					}
				} else if p, ok := scanLenientNumber(trimmed); ok {
					if out, ok := appendInteger(dst, p); ok {
						return out, true
					}
				}
			case kNum:
				if strict {
					if ok, _ := jsonspan.Number(raw); ok && numberInRange(raw) {
						return append(dst, raw...), true
					}
				} else if p, ok := scanLenientNumber(trimmed); ok {
					if out, ok := appendNumber(dst, p); ok {
						return out, true
					}
				}
			case kObj, kArr:
				open := byte('{')
				if k == kArr {
					open = '['
				}
				if len(trimmed) == 0 || trimmed[0] != open {
					continue
				}
				if valid == 0 {
					valid = 2
					if jsonspan.Valid(trimmed) {
						valid = 1
					}
				}
				if valid != 1 || (tried && !t.retry()) {
					continue
				}
				tried = true
				out, fit := t.container(dst, trimmed, a, k, depth+1)
				if fit {
					return out, true
				}
				if !strict && !hasPartial {
					if !t.moreCandidates(s, i, k) {
						return out, false // nothing else can do better
					}
					partial, hasPartial = append([]byte(nil), out[mark:]...), true
				}
				dst = out[:mark]
			}
		}
	}
	if strict {
		return jsonspan.AppendString(dst, raw), true
	}
	if len(trimmed) >= 2 && trimmed[0] == '"' && jsonspan.Valid(trimmed) {
		if inner, ok := jsonspan.Unquote(trimmed); ok {
			out, fit := t.raw(dst, inner, s, depth+1)
			if fit {
				return out, true
			}
			dst = out[:mark]
		}
	}
	if hasPartial {
		return append(dst, partial...), false
	}
	return jsonspan.AppendString(dst, raw), false
}

// json types a valid, trimmed JSON value by s and appends it to dst.
func (t *typer) json(dst, v []byte, s *Schema, depth int) ([]byte, bool) {
	if depth > maxTypingDepth || s.isEmpty() {
		return jsonspan.Compact(dst, v), true
	}
	k := jsonKind(v)
	if e := matchEnumJSON(v, k, s, true); e != nil {
		return append(dst, e.json...), true
	}
	mark := len(dst)
	var partial []byte // output of the first object/array alternative that half fits
	hasPartial, tried := false, false
	for i := range altCount(s) {
		a := altAt(s, i)
		switch {
		case k == kObj || k == kArr:
			if !acceptsKind(a, k) || (tried && !t.retry()) {
				continue
			}
			tried = true
			out, fit := t.container(dst, v, a, k, depth+1)
			if fit {
				return out, true
			}
			if !hasPartial {
				if !t.moreCandidates(s, i, k) {
					return out, false // nothing else can do better
				}
				partial, hasPartial = append([]byte(nil), out[mark:]...), true
			}
			dst = out[:mark]
		case k == kNum && intOnly(a) && a.enum == nil:
			if p, ok := scanLenientNumber(v); ok {
				if out, ok := appendInteger(dst, p); ok {
					return out, true
				}
			}
		case acceptsKind(a, k):
			return jsonspan.Compact(dst, v), true
		}
	}
	if e := matchEnumJSON(v, k, s, false); e != nil {
		return append(dst, e.json...), true
	}
	str := acceptsString(s)
	switch k {
	case kStr: // no alternative takes a string: coerce its content
		if inner, ok := jsonspan.Unquote(v); ok {
			out, fit := t.raw(dst, inner, s, depth+1)
			if fit {
				return out, true
			}
			dst = out[:mark]
		}
	case kInt, kNum, kBool:
		if str {
			return jsonspan.AppendString(dst, v), true
		}
	case kObj, kArr:
		if str && !hasPartial {
			return jsonspan.AppendString(dst, jsonspan.Compact(nil, v)), true
		}
	}
	if hasPartial {
		return append(dst, partial...), false
	}
	return jsonspan.Compact(dst, v), false
}

// moreCandidates reports whether an alternative after the i-th could still
// be tried for a value of kind k (an object or array).
func (t *typer) moreCandidates(s *Schema, i int, k kindSet) bool {
	if t.retries >= maxTypingRetry {
		return false
	}
	for j := i + 1; j < altCount(s); j++ {
		if acceptsKind(altAt(s, j), k) {
			return true
		}
	}
	return false
}

// stringAsIs reports whether json keeps a string value typed by s at
// depth as it is (compacted): no enum, and s takes strings.
func stringAsIs(s *Schema, depth int) bool {
	return depth > maxTypingDepth || s.isEmpty() || (!hasEnum(s) && acceptsString(s))
}

// container types the members of a valid JSON object or array v by the
// single alternative a.
func (t *typer) container(dst, v []byte, a *Schema, k kindSet, depth int) ([]byte, bool) {
	if a == nil || (k == kObj && len(a.props) == 0 && a.addl == nil && !a.closed) ||
		(k == kArr && a.items == nil) {
		return jsonspan.Compact(dst, v), true
	}
	fit := true
	if k == kArr {
		dst = append(dst, '[')
		i := jsonspan.SkipSpace(v, 1)
		for n := 0; i < len(v) && v[i] != ']'; n++ {
			if n > 0 {
				dst = append(dst, ',')
			}
			end := jsonspan.Skip(v, i)
			var ok bool
			dst, ok = t.json(dst, v[i:end], a.items, depth)
			fit = fit && ok
			i = jsonspan.SkipSpace(v, end)
			if i < len(v) && v[i] == ',' {
				i = jsonspan.SkipSpace(v, i+1)
			}
		}
		return append(dst, ']'), fit
	}
	dst = append(dst, '{')
	i := jsonspan.SkipSpace(v, 1)
	for n := 0; i < len(v) && v[i] == '"'; n++ {
		if n > 0 {
			dst = append(dst, ',')
		}
		keyEnd := jsonspan.SkipString(v, i)
		key := v[i:keyEnd]
		dst = jsonspan.SanitizeString(dst, key)
		dst = append(dst, ':')
		name := key[1 : len(key)-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			name, _ = jsonspan.Unquote(key)
		}
		ps, declared := a.props[string(name)]
		if !declared {
			ps, declared = a.addl, !a.closed
		}
		i = jsonspan.SkipSpace(v, keyEnd)
		i = jsonspan.SkipSpace(v, i+1) // ':'
		var end int
		ok := true
		if v[i] == '"' && stringAsIs(ps, depth) { // what json does, in one pass
			dst, end = jsonspan.CompactString(dst, v, i)
		} else {
			end = jsonspan.Skip(v, i)
			dst, ok = t.json(dst, v[i:end], ps, depth)
		}
		fit = fit && ok && declared
		i = jsonspan.SkipSpace(v, end)
		if i < len(v) && v[i] == ',' {
			i = jsonspan.SkipSpace(v, i+1)
		}
	}
	return append(dst, '}'), fit
}

// ---------------------------------------------------------------------------
// Literals and numbers

func isNullText(raw, trimmed []byte, strict bool) bool {
	if strict {
		return string(raw) == "null" || string(raw) == "None"
	}
	return len(trimmed) == 0 || bytes.EqualFold(trimmed, []byte("null")) || bytes.EqualFold(trimmed, []byte("none"))
}

func boolText(raw, trimmed []byte, strict bool) (value, ok bool) {
	if strict {
		switch string(raw) {
		case "true", "True":
			return true, true
		case "false", "False":
			return false, true
		}
		return false, false
	}
	switch {
	case bytes.EqualFold(trimmed, []byte("true")):
		return true, true
	case bytes.EqualFold(trimmed, []byte("false")):
		return false, true
	}
	return false, false
}

// numberInRange reports whether a number in JSON form is finite as a
// float64 (what most consumers decode it into).
func numberInRange(b []byte) bool {
	if len(b) < 300 && !bytes.ContainsAny(b, "eE") {
		return true
	}
	f, err := strconv.ParseFloat(string(b), 64)
	return err == nil && !math.IsInf(f, 0)
}

// lenientNumber is a decimal number written loosely:
// [+-] digits [. digits] [(e|E) [+-] digits], with at least one mantissa digit.
type lenientNumber struct {
	neg       bool
	int, frac []byte
	exp       []byte // sign and digits, nil when absent
}

func scanLenientNumber(b []byte) (p lenientNumber, ok bool) {
	i := 0
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		p.neg = b[i] == '-'
		i++
	}
	start := i
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	p.int = b[start:i]
	if i < len(b) && b[i] == '.' {
		i++
		start = i
		for i < len(b) && isDigit(b[i]) {
			i++
		}
		p.frac = b[start:i]
	}
	if len(p.int)+len(p.frac) == 0 {
		return p, false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		start = i
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		digits := i
		for i < len(b) && isDigit(b[i]) {
			i++
		}
		if i == digits {
			return p, false
		}
		p.exp = b[start:i]
	}
	return p, i == len(b)
}

// appendNumber appends p in canonical JSON form; false when it overflows.
func appendNumber(dst []byte, p lenientNumber) ([]byte, bool) {
	mark := len(dst)
	if p.neg {
		dst = append(dst, '-')
	}
	digits := bytes.TrimLeft(p.int, "0")
	if len(digits) == 0 {
		dst = append(dst, '0')
	} else {
		dst = append(dst, digits...)
	}
	if len(p.frac) > 0 {
		dst = append(dst, '.')
		dst = append(dst, p.frac...)
	}
	if p.exp != nil {
		dst = append(dst, 'e')
		dst = append(dst, p.exp...)
	}
	if !numberInRange(dst[mark:]) {
		return dst[:mark], false
	}
	return dst, true
}

// appendInteger appends p in integer form when its value is integral.
func appendInteger(dst []byte, p lenientNumber) ([]byte, bool) {
	mark := len(dst)
	if p.exp == nil {
		if len(bytes.TrimRight(p.frac, "0")) > 0 {
			return dst, false
		}
		p.frac = nil
		return appendNumber(dst, p)
	}
	dst, ok := appendNumber(dst, p)
	if !ok {
		return dst, false
	}
	f, err := strconv.ParseFloat(string(dst[mark:]), 64)
	dst = dst[:mark]
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return dst, false
	}
	return strconv.AppendFloat(dst, f, 'f', -1, 64), true
}

// ---------------------------------------------------------------------------
// Enumerations

func hasEnum(s *Schema) bool {
	for i := range altCount(s) {
		if a := altAt(s, i); a != nil && a.enum != nil {
			return true
		}
	}
	return false
}

// matchEnumText finds the enum member (of any enum alternative) that raw
// text stands for.
func matchEnumText(raw, trimmed []byte, s *Schema) *enumValue {
	if !hasEnum(s) {
		return nil
	}
	n := altCount(s)
	for i := range n {
		if a := altAt(s, i); a != nil {
			for j := range a.enum {
				if e := &a.enum[j]; e.kind == kStr && e.str == string(raw) {
					return e
				}
			}
		}
	}
	var num float64
	numState := 0 // 0 unparsed, 1 number, 2 not a number
	for i := range n {
		a := altAt(s, i)
		if a == nil {
			continue
		}
		for j := range a.enum {
			e := &a.enum[j]
			switch e.kind {
			case kStr:
				if e.str == string(trimmed) {
					return e
				}
			case kNull:
				if len(trimmed) > 0 && isNullText(raw, trimmed, false) {
					return e
				}
			case kBool:
				if bytes.EqualFold(trimmed, e.json) {
					return e
				}
			case kInt, kNum:
				if numState == 0 {
					numState = 2
					if p, ok := scanLenientNumber(trimmed); ok {
						var buf [64]byte
						if canon, ok := appendNumber(buf[:0], p); ok {
							if f, err := strconv.ParseFloat(string(canon), 64); err == nil {
								num, numState = f, 1
							}
						}
					}
				}
				if numState == 1 && num == e.num {
					return e
				}
			default:
				if bytes.Equal(trimmed, e.json) {
					return e
				}
			}
		}
	}
	var found *enumValue
	for i := range n {
		a := altAt(s, i)
		if a == nil {
			continue
		}
		for j := range a.enum {
			if e := &a.enum[j]; e.kind == kStr && strings.EqualFold(e.str, string(trimmed)) {
				if found != nil && found.str != e.str {
					return nil // ambiguous
				}
				found = e
			}
		}
	}
	return found
}

// matchEnumJSON finds the enum member equal to a JSON value. With sameKind,
// only members of the value's kind are considered (numbers by value);
// otherwise the value's text is matched against members of other kinds
// (a string "5" against 5 only when no alternative takes strings).
func matchEnumJSON(v []byte, k kindSet, s *Schema, sameKind bool) *enumValue {
	if !hasEnum(s) {
		return nil
	}
	if !sameKind {
		if k == kStr {
			if acceptsString(s) {
				return nil
			}
			inner, ok := jsonspan.Unquote(v)
			if !ok {
				return nil
			}
			return matchEnumText(inner, trimSpace(inner), s)
		}
		if k == kObj || k == kArr {
			return nil
		}
		// A number or literal against string members: its text.
		for i := range altCount(s) {
			if a := altAt(s, i); a != nil {
				for j := range a.enum {
					if e := &a.enum[j]; e.kind == kStr && e.str == string(v) {
						return e
					}
				}
			}
		}
		return nil
	}
	if k == kStr {
		inner, ok := jsonspan.Unquote(v)
		if !ok {
			return nil
		}
		// Only string members: restrict the text match to them.
		for i := range altCount(s) {
			if a := altAt(s, i); a != nil {
				for j := range a.enum {
					if e := &a.enum[j]; e.kind == kStr && e.str == string(inner) {
						return e
					}
				}
			}
		}
		return nil
	}
	var num float64
	isNum := k == kInt || k == kNum
	if isNum {
		num, _ = strconv.ParseFloat(string(v), 64)
	}
	var buf []byte
	for i := range altCount(s) {
		a := altAt(s, i)
		if a == nil {
			continue
		}
		for j := range a.enum {
			e := &a.enum[j]
			switch {
			case isNum:
				if (e.kind == kInt || e.kind == kNum) && e.num == num {
					return e
				}
			case e.kind == k:
				if k == kObj || k == kArr {
					if buf == nil {
						buf = jsonspan.Compact(nil, v)
					}
					if bytes.Equal(buf, e.json) {
						return e
					}
				} else if bytes.Equal(v, e.json) {
					return e
				}
			}
		}
	}
	return nil
}
