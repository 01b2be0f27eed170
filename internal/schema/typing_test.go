package schema

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
)

func TestTypeValueDefaults(t *testing.T) {
	tests := []struct {
		name, raw, want string
	}{
		{"true", "true", `true`},
		{"false", "false", `false`},
		{"null", "null", `null`},
		{"python True", "True", `true`},
		{"python False", "False", `false`},
		{"python None", "None", `null`},
		{"upper TRUE is text", "TRUE", `"TRUE"`},
		{"lower none is text", "none", `"none"`},
		{"literal not trimmed", " true", `" true"`},
		{"zero", "0", `0`},
		{"integer", "42", `42`},
		{"negative decimal", "-12.5", `-12.5`},
		{"negative zero", "-0", `-0`},
		{"exponent", "1e5", `1e5`},
		{"exponent upper", "1.5E-3", `1.5E-3`},
		{"zip code", "020", `"020"`},
		{"trailing dot", "1.", `"1."`},
		{"plus sign", "+1", `"+1"`},
		{"leading dot", ".5", `".5"`},
		{"underscores", "1_000", `"1_000"`},
		{"hex", "0x10", `"0x10"`},
		{"overflow", "1e999", `"1e999"`},
		{"number not trimmed", " 5", `" 5"`},
		{"number trailing space", "5 ", `"5 "`},
		{"object", `{"a": 1, "b": [true, null]}`, `{"a":1,"b":[true,null]}`},
		{"array trimmed", "\n  [1, 2]\n", `[1,2]`},
		{"empty object", "{}", `{}`},
		{"broken object", `{"a":}`, `"{\"a\":}"`},
		{"python dict", `{'a': 1}`, `"{'a': 1}"`},
		{"array with tail", `[1,2] x`, `"[1,2] x"`},
		{"json string literal stays text", `"x"`, `"\"x\""`},
		{"empty", "", `""`},
		{"plain text", "Paris", `"Paris"`},
		{"text not trimmed", "\n  Paris \n", `"\n  Paris \n"`},
		{"control characters", "a\tb\x01c", `"a\tb\u0001c"`},
		{"html kept", "<a href=\"x\">&</a>", `"<a href=\"x\">&</a>"`},
		{"invalid utf8", "a\xffb", `"a\ufffdb"`},
		{"invalid utf8 in object", "{\"k\":\"\xfe\"}", `{"k":"\ufffd"}`},
		{"line separator", "a\u2028b", `"a\u2028b"`},
		{"object with escapes kept", `{"k":"\u00e9\n"}`, `{"k":"\u00e9\n"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, fits := TypeValue(tc.raw, nil)
			assert.Equal(t, tc.want, string(got))
			assert.True(t, fits)
			assert.True(t, json.Valid(got))
			// An unconstrained schema behaves as no schema.
			got, fits = TypeValue(tc.raw, mustSchema(t, `{"description":"anything"}`))
			assert.Equal(t, tc.want, string(got))
			assert.True(t, fits)
		})
	}
}

func TestTypeValueSchema(t *testing.T) {
	const (
		str     = `{"type":"string"}`
		integer = `{"type":"integer"}`
		number  = `{"type":"number"}`
		boolean = `{"type":"boolean"}`
		null    = `{"type":"null"}`
		units   = `{"type":"string","enum":["celsius","fahrenheit"]}`
	)
	tests := []struct {
		name, schema, raw, want string
		fits                    bool
	}{
		// string
		{"string zip code", str, "020", `"020"`, true},
		{"string number text", str, "5", `"5"`, true},
		{"string literal text", str, "true", `"true"`, true},
		{"string quoted kept as given", str, `"x"`, `"\"x\""`, true},
		{"string untrimmed", str, " padded \n", `" padded \n"`, true},
		{"string json text", str, `{"a": 1}`, `"{\"a\": 1}"`, true},
		{"string empty", str, "", `""`, true},
		// integer
		{"integer", integer, "5", `5`, true},
		{"integer negative", integer, "-3", `-3`, true},
		{"integer trimmed", integer, " 42\n", `42`, true},
		{"integer plus", integer, "+5", `5`, true},
		{"integer leading zero", integer, "020", `20`, true},
		{"integer from 5.0", integer, "5.0", `5`, true},
		{"integer from exponent", integer, "1e3", `1000`, true},
		{"integer quoted", integer, `"5"`, `5`, true},
		{"integer big", integer, "12345678901234567890", `12345678901234567890`, true},
		{"integer fraction misfit", integer, "5.5", `"5.5"`, false},
		{"integer huge exponent misfit", integer, "1e300", `"1e300"`, false},
		{"integer text misfit", integer, "five", `"five"`, false},
		{"integer hex misfit", integer, "0x10", `"0x10"`, false},
		{"integer underscore misfit", integer, "1_000", `"1_000"`, false},
		{"integer empty misfit", integer, "", `""`, false},
		// number
		{"number", number, "1.5", `1.5`, true},
		{"number trimmed", number, " 2 ", `2`, true},
		{"number integer", number, "5", `5`, true},
		{"number keeps digits", number, "1.50", `1.50`, true},
		{"number leading dot", number, ".5", `0.5`, true},
		{"number trailing dot", number, "1.", `1`, true},
		{"number plus", number, "+1", `1`, true},
		{"number negative zero", number, "-0", `-0`, true},
		{"number exponent", number, "1E5", `1e5`, true},
		{"number NaN misfit", number, "NaN", `"NaN"`, false},
		{"number Infinity misfit", number, "Infinity", `"Infinity"`, false},
		{"number overflow misfit", number, "1e999", `"1e999"`, false},
		// boolean
		{"boolean true", boolean, "true", `true`, true},
		{"boolean python", boolean, "False", `false`, true},
		{"boolean upper", boolean, "TRUE", `true`, true},
		{"boolean trimmed", boolean, "\ntrue\n", `true`, true},
		{"boolean quoted", boolean, `"false"`, `false`, true},
		{"boolean yes misfit", boolean, "yes", `"yes"`, false},
		{"boolean 1 misfit", boolean, "1", `"1"`, false},
		// null
		{"null", null, "null", `null`, true},
		{"null python", null, "None", `null`, true},
		{"null empty", null, "", `null`, true},
		{"null blank", null, "  ", `null`, true},
		{"null upper", null, "NULL", `null`, true},
		{"null nil misfit", null, "nil", `"nil"`, false},
		// enum
		{"enum exact", units, "celsius", `"celsius"`, true},
		{"enum trimmed", units, " celsius\n", `"celsius"`, true},
		{"enum case", units, "Fahrenheit", `"fahrenheit"`, true},
		{"enum misfit", units, "kelvin", `"kelvin"`, false},
		{"enum numbers", `{"enum":[1,2,3]}`, "2", `2`, true},
		{"enum number form", `{"enum":[1,2,3]}`, "2.0", `2`, true},
		{"enum number misfit", `{"enum":[1,2,3]}`, "4", `"4"`, false},
		{"enum literal", `{"enum":[true,null]}`, "TRUE", `true`, true},
		{"enum null", `{"enum":["a",null]}`, "None", `null`, true},
		{"enum string beats number", `{"enum":[1,"1"]}`, "1", `"1"`, true},
		{"enum case ambiguous", `{"enum":["ab","AB"]}`, "Ab", `"Ab"`, false},
		{"enum case exact", `{"enum":["ab","AB"]}`, "AB", `"AB"`, true},
		{"enum written as declared", `{"enum":["<&>"]}`, "<&>", `"<&>"`, true},
		{"enum object", `{"enum":[{"a":1}]}`, `{"a":1}`, `{"a":1}`, true},
		// alternatives with a string
		{"string|integer number", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, "5", `5`, true},
		{"string|integer zip", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, "020", `"020"`, true},
		{"string|integer 5.0", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, "5.0", `"5.0"`, true},
		{"string|integer padded", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, " 5", `" 5"`, true},
		{"string|integer text", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, "abc", `"abc"`, true},
		{"string|integer literal", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, "true", `"true"`, true},
		{"integer|string order irrelevant", `{"type":["integer","string"]}`, "7", `7`, true},
		{"string|null None", `{"type":["string","null"]}`, "None", `null`, true},
		{"string|null empty", `{"type":["string","null"]}`, "", `""`, true},
		{"string|number exponent", `{"type":["string","number"]}`, "1e5", `1e5`, true},
		{"string|boolean python", `{"oneOf":[{"type":"string"},{"type":"boolean"}]}`, "True", `true`, true},
		{"string|object", `{"anyOf":[{"type":"string"},{"type":"object","properties":{"n":{"type":"integer"}}}]}`, `{"n":"1"}`, `{"n":1}`, true},
		// alternatives without a string
		{"integer|null empty", `{"anyOf":[{"type":"integer"},{"type":"null"}]}`, "", `null`, true},
		{"integer|null number", `{"type":["integer","null"]}`, " 7 ", `7`, true},
		{"integer|null misfit", `{"type":["integer","null"]}`, "x", `"x"`, false},
		{"boolean|integer", `{"type":["boolean","integer"]}`, "1", `1`, true},
		{"boolean|integer bool", `{"type":["integer","boolean"]}`, "True", `true`, true},
		{"integer|number", `{"type":["integer","number"]}`, "5.0", `5.0`, true},
		{"enum|integer enum", `{"anyOf":[{"enum":["auto","none"]},{"type":"integer"}]}`, "AUTO", `"auto"`, true},
		{"enum|integer number", `{"anyOf":[{"enum":["auto","none"]},{"type":"integer"}]}`, "3", `3`, true},
		{"enum|integer misfit", `{"anyOf":[{"enum":["auto","none"]},{"type":"integer"}]}`, "x", `"x"`, false},
		{"enum|string free text", `{"anyOf":[{"enum":["auto"]},{"type":"string"}]}`, "x", `"x"`, true},
		// arrays
		{"array of integers", `{"type":"array","items":{"type":"integer"}}`, `[1,"2", " 3 "]`, `[1,2,3]`, true},
		{"array of integers misfit", `{"type":"array","items":{"type":"integer"}}`, `[1,"x"]`, `[1,"x"]`, false},
		{"array of strings", `{"type":"array","items":{"type":"string"}}`, `["a", 5, true]`, `["a","5","true"]`, true},
		{"array untyped items", `{"type":"array"}`, "[1, \"2\"]", `[1,"2"]`, true},
		{"array not json misfit", `{"type":"array","items":{"type":"integer"}}`, "1,2", `"1,2"`, false},
		{"array quoted", `{"type":"array","items":{"type":"integer"}}`, `"[1,2]"`, `[1,2]`, true},
		{"array of objects", `{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"}}}}`, `[{"n":"1"},{"n":2}]`, `[{"n":1},{"n":2}]`, true},
		// objects
		{"object leaves coerced", `{"type":"object","properties":{"n":{"type":"integer"},"s":{"type":"string"},"b":{"type":"boolean"},"z":{"type":"string"}}}`,
			`{"n":"5","s":5,"b":"false","z":"020","other":"7"}`, `{"n":5,"s":"5","b":false,"z":"020","other":"7"}`, true},
		{"object nested", `{"type":"object","properties":{"in":{"type":"object","properties":{"n":{"type":"number"}}}}}`,
			`{"in": {"n": "2.5"}}`, `{"in":{"n":2.5}}`, true},
		{"object leaf misfit keeps structure", `{"type":"object","properties":{"n":{"type":"integer"}}}`,
			`{"n":"many"}`, `{"n":"many"}`, false},
		{"object closed extra key", `{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":false}`,
			`{"a":1,"b":2}`, `{"a":1,"b":2}`, false},
		{"object additionalProperties typed", `{"type":"object","additionalProperties":{"type":"integer"}}`,
			`{"x":"1","y":"2"}`, `{"x":1,"y":2}`, true},
		{"object escaped key", `{"type":"object","properties":{"a\"b":{"type":"integer"}}}`,
			`{"a\"b":"1"}`, `{"a\"b":1}`, true},
		{"object not json misfit", `{"type":"object"}`, `{a:1}`, `"{a:1}"`, false},
		{"oneOf picks fitting object", `{"oneOf":[
			{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false},
			{"type":"object","properties":{"b":{"type":"integer"}},"additionalProperties":false}]}`,
			`{"b":"2"}`, `{"b":2}`, true},
		{"oneOf no fitting object keeps first", `{"oneOf":[
			{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false},
			{"type":"object","properties":{"b":{"type":"integer"}},"additionalProperties":false}]}`,
			`{"c":"2"}`, `{"c":"2"}`, false},
		{"object|integer", `{"anyOf":[{"type":"integer"},{"type":"object","properties":{"n":{"type":"integer"}}}]}`,
			`{"n":"1"}`, `{"n":1}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, fits := TypeValue(tc.raw, mustSchema(t, tc.schema))
			assert.Equal(t, tc.want, string(got))
			assert.Equal(t, tc.fits, fits)
			assert.True(t, json.Valid(got))
		})
	}
}

func TestTypeJSONValue(t *testing.T) {
	const (
		str     = `{"type":"string"}`
		integer = `{"type":"integer"}`
	)
	tests := []struct {
		name, schema, in, want string
		fits                   bool
	}{
		{"no schema compacts", ``, "{\"a\" : [1, 2] }", `{"a":[1,2]}`, true},
		{"no schema string", ``, `"x"`, `"x"`, true},
		{"no schema string literal stays string", ``, `"false"`, `"false"`, true},
		{"no schema invalid json is text", ``, `hello world`, `"hello world"`, true},
		{"no schema invalid utf8", ``, "\"\xff\"", `"\ufffd"`, true},
		{"integer from string", integer, `"5"`, `5`, true},
		{"integer from padded string", integer, `" 5 "`, `5`, true},
		{"integer kept", integer, `5`, `5`, true},
		{"integer from 5.0", integer, `5.0`, `5`, true},
		{"integer fraction misfit", integer, `5.5`, `5.5`, false},
		{"integer text misfit", integer, `"abc"`, `"abc"`, false},
		{"integer bool misfit", integer, `true`, `true`, false},
		{"string from number", str, `5`, `"5"`, true},
		{"string from number keeps text", str, `1.50`, `"1.50"`, true},
		{"string from bool", str, `true`, `"true"`, true},
		{"string from object", str, `{"a": 1}`, `"{\"a\":1}"`, true},
		{"string kept", str, `"020"`, `"020"`, true},
		{"string null misfit", str, `null`, `null`, false},
		{"boolean from string", `{"type":"boolean"}`, `"False"`, `false`, true},
		{"null from string", `{"type":"null"}`, `"None"`, `null`, true},
		{"array items coerced", `{"type":"array","items":{"type":"integer"}}`, `[1, "2"]`, `[1,2]`, true},
		{"array from json string", `{"type":"array","items":{"type":"integer"}}`, `"[1, \"2\"]"`, `[1,2]`, true},
		{"object leaves coerced", `{"type":"object","properties":{"n":{"type":"integer"},"s":{"type":"string"}}}`,
			`{"n":"5","s":5}`, `{"n":5,"s":"5"}`, true},
		{"object from json string", `{"type":"object","properties":{"n":{"type":"integer"}}}`,
			`"{\"n\":\"5\"}"`, `{"n":5}`, true},
		{"enum string case", `{"enum":["celsius"]}`, `"Celsius"`, `"celsius"`, true},
		{"enum string member from number", `{"enum":["1","2"]}`, `2`, `"2"`, true},
		{"enum number member from string", `{"enum":[1,2]}`, `"2"`, `2`, true},
		{"enum number by value", `{"enum":[1,2]}`, `2.0`, `2`, true},
		{"enum misfit", `{"enum":[1,2]}`, `3`, `3`, false},
		{"enum object", `{"enum":[{"a":1}]}`, `{ "a" : 1 }`, `{"a":1}`, true},
		{"string|integer keeps number", `{"type":["string","integer"]}`, `5`, `5`, true},
		{"string|integer keeps string", `{"type":["string","integer"]}`, `"5"`, `"5"`, true},
		{"integer|null null", `{"type":["integer","null"]}`, `null`, `null`, true},
		{"enum|string keeps string", `{"anyOf":[{"enum":[1]},{"type":"string"}]}`, `"1"`, `"1"`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s *Schema
			if tc.schema != "" {
				s = mustSchema(t, tc.schema)
			}
			got, fits := TypeJSONValue(json.RawMessage(tc.in), s)
			assert.Equal(t, tc.want, string(got))
			assert.Equal(t, tc.fits, fits)
			assert.True(t, json.Valid(got))
		})
	}
}

func weatherTool(t testing.TB) *Tool {
	t.Helper()
	tools, err := ParseTools(readToolsFixture(t, "openai.json"))
	require.NoError(t, err)
	tool, ok := tools.Lookup("get_weather")
	require.True(t, ok)
	return tool
}

func p(name, value string) Param { return Param{Name: name, Value: []byte(value)} }

func ph(name, value string, h ValueHint) Param {
	return Param{Name: name, Value: []byte(value), Hint: h}
}

func TestBuildArguments(t *testing.T) {
	weather := weatherTool(t)
	search := func() *Tool {
		tools, err := ParseTools(readToolsFixture(t, "openai.json"))
		require.NoError(t, err)
		tool, _ := tools.Lookup("search")
		return tool
	}()
	tests := []struct {
		name       string
		tool       *Tool
		params     []Param
		want       string
		mismatched []string
	}{
		{"no params", nil, nil, `{}`, nil},
		{"defaults without tool", nil,
			[]Param{p("city", "Paris"), p("days", "3"), p("zip", "020"), p("flag", "True"), p("obj", ` {"a": 1} `)},
			`{"city":"Paris","days":3,"zip":"020","flag":true,"obj":{"a":1}}`, nil},
		{"typed by schema", weather,
			[]Param{p("city", "Paris"), p("zip", "020"), p("days", "5"), p("unit", "Celsius"), p("detailed", "FALSE")},
			`{"city":"Paris","zip":"020","days":5,"unit":"celsius","detailed":false}`, nil},
		{"order is first seen", weather,
			[]Param{p("days", "1"), p("city", "A")},
			`{"days":1,"city":"A"}`, nil},
		{"later duplicate replaces earlier in place", weather,
			[]Param{p("city", "A"), p("days", "1"), p("city", "B"), p("days", "2")},
			`{"city":"B","days":2}`, nil},
		{"duplicate misfit then fit", weather,
			[]Param{p("days", "many"), p("days", "4")},
			`{"days":4}`, nil},
		{"mismatches reported in key order", weather,
			[]Param{p("unit", "kelvin"), p("city", "X"), p("days", "a few")},
			`{"unit":"kelvin","city":"X","days":"a few"}`, []string{"unit", "days"}},
		{"undeclared name on closed schema", weather,
			[]Param{p("city", "X"), p("extra", "5")},
			`{"city":"X","extra":5}`, []string{"extra"}},
		{"undeclared name on open schema", search,
			[]Param{p("query", "go"), p("extra", "5")},
			`{"query":"go","extra":5}`, nil},
		{"nested object typed", search,
			[]Param{p("filters", `{"year": "2024", "tags": ["a", 1]}`), p("limit", "")},
			`{"filters":{"year":2024,"tags":["a","1"]},"limit":null}`, nil},
		{"hint string without schema", nil,
			[]Param{ph("a", "true", HintString), ph("b", "5", HintString), ph("c", `{"x":1}`, HintString)},
			`{"a":"true","b":"5","c":"{\"x\":1}"}`, nil},
		{"hint string with integer schema", weather,
			[]Param{ph("days", "5", HintString), ph("city", "020", HintString)},
			`{"days":5,"city":"020"}`, nil},
		{"hint json without schema", nil,
			[]Param{ph("a", `"false"`, HintJSON), ph("b", `false`, HintJSON), ph("c", " [1, 2] ", HintJSON), ph("d", "not json", HintJSON)},
			`{"a":"false","b":false,"c":[1,2],"d":"not json"}`, nil},
		{"hint json with schema", weather,
			[]Param{ph("days", `"5"`, HintJSON), ph("city", `5`, HintJSON), ph("detailed", `"yes"`, HintJSON)},
			`{"days":5,"city":"5","detailed":"yes"}`, []string{"detailed"}},
		{"keys escaped", nil,
			[]Param{p("a\"b\n", "1"), p("\xff", "2")},
			`{"a\"b\n":1,"\ufffd":2}`, nil},
		{"empty name kept", nil, []Param{p("", "x")}, `{"":"x"}`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, mismatched := BuildArguments(nil, tc.tool, tc.params)
			assert.Equal(t, tc.want, string(got))
			assert.Equal(t, tc.mismatched, mismatched)
			assert.True(t, json.Valid(got), string(got))
		})
	}
}

func TestBuildArgumentsManyDuplicates(t *testing.T) {
	// More than 16 params takes the map path; results must match the
	// quadratic path.
	var params []Param
	var want strings.Builder
	want.WriteByte('{')
	for i := range 20 {
		params = append(params, p("k"+strconv.Itoa(i), "0"))
		if i > 0 {
			want.WriteByte(',')
		}
		want.WriteString(`"k` + strconv.Itoa(i) + `":` + strconv.Itoa(i+100))
	}
	want.WriteByte('}')
	for i := range 20 {
		params = append(params, p("k"+strconv.Itoa(i), strconv.Itoa(i+100)))
	}
	got, mismatched := BuildArguments(nil, nil, params)
	assert.Equal(t, want.String(), string(got))
	assert.Nil(t, mismatched)
	// Same with few params.
	got, _ = BuildArguments(nil, nil, []Param{p("a", "1"), p("b", "2"), p("a", "3")})
	assert.Equal(t, `{"a":3,"b":2}`, string(got))
}

func TestBuildArgumentsAppends(t *testing.T) {
	dst := []byte(`{"arguments":`)
	got, _ := BuildArguments(dst, nil, []Param{p("x", "1")})
	assert.Equal(t, `{"arguments":{"x":1}`, string(got))
	// The input params are not modified.
	params := []Param{p("a", " 5 ")}
	_, _ = BuildArguments(nil, weatherTool(t), params)
	assert.Equal(t, " 5 ", string(params[0].Value))
}

// TestTypingAlwaysValid feeds awkward values through every schema and
// checks the output is one line of valid JSON.
func TestTypingAlwaysValid(t *testing.T) {
	values := []string{"", " ", "\x00", "\xff\xfe", `"`, `\`, `{"a":"\xff"}`, "[1,\n2]", `{"a":1}{"a":1}`,
		"1e", "-", "--1", "1.2.3", "1e+", "0.", "\u2028", `{"a":[{"b":"\u2029"}]}`, "[[[[[[]]]]]]",
		`"\ud800"`, `{"k":"\ud800"}`, strings.Repeat("[", 200) + strings.Repeat("]", 200)}
	schemas := []string{``, `{"type":"string"}`, `{"type":"integer"}`, `{"type":"number"}`, `{"type":"boolean"}`,
		`{"type":"null"}`, `{"type":"array","items":{"type":"integer"}}`, `{"type":"object","properties":{"a":{"type":"integer"}}}`,
		`{"enum":["a",1,null]}`, `{"anyOf":[{"type":"integer"},{"type":"array","items":{"$ref":"#"}}]}`}
	for _, sc := range schemas {
		var s *Schema
		if sc != "" {
			s = mustSchema(t, sc)
		}
		for _, v := range values {
			got, _ := TypeValue(v, s)
			assert.True(t, json.Valid(got), "TypeValue(%q, %s) = %s", v, sc, got)
			assert.NotContains(t, string(got), "\n")
			got, _ = TypeJSONValue(json.RawMessage(v), s)
			assert.True(t, json.Valid(got), "TypeJSONValue(%q, %s) = %s", v, sc, got)
			assert.NotContains(t, string(got), "\n")
		}
	}
}

func TestValidMatchesEncodingJSON(t *testing.T) {
	cases := []string{``, ` `, `1`, `-`, `-0`, `01`, `1.`, `.1`, `1e`, `1e+1`, `1E-01`, `tru`, `true`, `truex`,
		`nul`, `null `, `"a`, `"\x"`, `"\u12"`, `"\u12ab"`, "\"\t\"", "\"\xff\"", `[`, `[]`, `[1,]`, `[,1]`,
		`{}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":1 "b":2}`, `{1:2}`, `[1 2]`, ` {"a" : [ true , false , null ] } `,
		`{"a":1}{}`, `"\/"`}
	for _, c := range cases {
		assert.Equal(t, json.Valid([]byte(c)), jsonspan.Valid([]byte(c)), "%q", c)
	}
}

func FuzzTypeValue(f *testing.F) {
	for _, seed := range []string{"020", "5", " 5 ", "True", `{"a":"5"}`, `[1,"2"]`, `"x"`, "\xff", "1e999"} {
		f.Add(seed, uint8(0))
	}
	schemas := []*Schema{nil}
	for _, sc := range []string{`{"type":"string"}`, `{"type":"integer"}`, `{"type":"number"}`,
		`{"type":["boolean","null"]}`, `{"type":"array","items":{"type":"integer"}}`,
		`{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":false}`,
		`{"anyOf":[{"type":"string"},{"type":"integer"},{"enum":["A","b"]}]}`} {
		s, err := CompileSchema([]byte(sc))
		require.NoError(f, err)
		schemas = append(schemas, s)
	}
	f.Fuzz(func(t *testing.T, raw string, which uint8) {
		if json.Valid([]byte(raw)) != jsonspan.Valid([]byte(raw)) {
			t.Fatalf("tyValid(%q) disagrees with encoding/json", raw)
		}
		s := schemas[int(which)%len(schemas)]
		for _, got := range []json.RawMessage{
			first(TypeValue(raw, s)),
			first(TypeJSONValue(json.RawMessage(raw), s)),
		} {
			if !json.Valid(got) || strings.ContainsAny(string(got), "\n\r") {
				t.Fatalf("invalid output %q for %q", got, raw)
			}
		}
	})
}

func first(v json.RawMessage, _ bool) json.RawMessage { return v }

func BenchmarkBuildArguments(b *testing.B) {
	tool := weatherTool(b)
	params := []Param{
		p("city", "San Francisco"),
		p("zip", "02139"),
		p("days", "5"),
		p("unit", "celsius"),
		p("detailed", "true"),
	}
	b.Run("schema", func(b *testing.B) {
		b.ReportAllocs()
		var dst []byte
		for b.Loop() {
			dst, _ = BuildArguments(dst[:0], tool, params)
		}
	})
	b.Run("defaults", func(b *testing.B) {
		b.ReportAllocs()
		var dst []byte
		for b.Loop() {
			dst, _ = BuildArguments(dst[:0], nil, params)
		}
	})
	nested := []Param{p("filters", `{"year": "2024", "tags": ["a", "b", 3]}`), p("query", "golang generics")}
	tools, err := ParseTools(readToolsFixture(b, "openai.json"))
	require.NoError(b, err)
	search, _ := tools.Lookup("search")
	b.Run("nested", func(b *testing.B) {
		b.ReportAllocs()
		var dst []byte
		for b.Loop() {
			dst, _ = BuildArguments(dst[:0], search, nested)
		}
	})
}
