package fsm

import (
	"errors"
	"math/bits"
	"slices"
	"strconv"

	"github.com/toolsieve/toolsieve/lexer"
)

// Spec describes one dialect: the markers that start a unit of it in text,
// the markers it uses inside, where a call's name and arguments come from.
// The table below is the one place that knows a dialect; the machine asks
// it what a token means. Dialects that share a grammar (a shape) differ
// only in their entries.
type Spec struct {
	Name    string // as reported in tool_call events
	Family  string // dialects of one family are written alike and decided by their content
	Example string // canonical input holding one call
	// NeedsTools: safe only with declared tool names (off by default
	// without them; calls to other names are never emitted).
	NeedsTools bool

	shape   shape
	opens   []opener     // markers that start a unit in text
	block   lexer.Marker // wrapper element (Unknown: none)
	call    lexer.Marker // element that holds one call (Unknown: the unit is the call)
	param   lexer.Marker // element that holds one argument
	key     lexer.Marker // key element of key/value arguments
	value   lexer.Marker // value element of key/value arguments
	argType lexer.Marker // element between a key and its value that says the value's type (k2_horizon)
	tokens  []tokenRole  // special tokens inside a unit and what they mean
	name    nameFrom
	trimNL  bool // one leading and one trailing newline of a value are markup
	json    bool // a call may hold a JSON object instead of argument elements
	ends    bool // a call ends with its JSON value: no closer is needed
	callSep byte // a byte that may separate calls in a unit (llama3 ';')
	dsml    bool // its tags carry the DSML prefix
	mixes   bool // a call mixing DSML-prefixed and plain tags is a mixed_dialect repair
	// envFirst: before its header, a call may be a JSON envelope or an
	// array of them instead ([TOOL_CALLS][{"name":..}]).
	envFirst bool
	list     bool // its calls may be a JSON array of envelopes ([{"name":..}, ..])
	// preamble: loose text a unit may hold before its body (gigachat3's
	// `function call` message header); other text means it is not a call.
	preamble string
	lines    bool         // pythonic calls one per line, without list brackets
	fenced   bool         // its text openers count in a fenced code block (```json) too
	delim    string       // the string delimiter of a loose object (<|"|>, <escape>)
	callEnd  lexer.Marker // a tag of its own that ends a call (<end_function_call>)
	nameKey  bool         // an envelope is {"NAME": {args}}: the name is the key
	header   *header      // an irregular call header (token dialects, harmony)
	id       uint8        // its index in the table
	uses     markerSet    // the markers it uses

	// callAttr, argAttr: the attributes that name a call and an argument
	// ("" for `name`; kimi_k3 writes tool="N" and key="K").
	callAttr, argAttr string
	// typed: an argument's type attribute says how its value is written
	// (type="string": raw text; another JSON type: a JSON value).
	typed bool
	// own: a tag name the lexer reads as a variant of a marker that is this
	// dialect's own spelling, not a marker_variant (minicpm5's param).
	own string
	// cdata: a value written as one <![CDATA[..]]> section is its content.
	cdata bool
	// entities: its values are XML text, read back when escaped (entities.go).
	entities bool
	// frame: tags of the dialect's message framing (kimi_k3's response
	// channel, its message closer): met in text, they are discarded like
	// stray tokens.
	frame []lexer.Marker
	// childParams: the arguments of its call element are child elements
	// named by the parameter (minimax_m3's <invoke name="N"><city>SF</city>);
	// a value that is child elements itself is an object (childtags.go).
	childParams bool
	// sentinel: its tags follow a sentinel token (minimax_m3's
	// `]<]minimax[>[`): a ']' between them is markup, as whitespace is.
	sentinel bool
	// message: a unit is one message that holds at most one call, and ends
	// with it (harmony, inkling).
	message bool
	// bareKey: its key element has no closer, the value's opener ends it
	// (solar_open2's <|tool_arg:start|>K<|tool_arg:value|>V).
	bareKey bool
	// strDefault: a parameter without a string attribute is a raw string
	// (GigaChat 3.5's string="true" is the default; DSML says nothing).
	strDefault bool
	// braceName: a call's name may end at the '{' of its arguments, the
	// separator token left out (mistral's [TOOL_CALLS]add{"a": 1}).
	braceName bool
	// argSwap: a marker of its own that its models write where an
	// argument's opener belongs (glm's <tool_call> for <arg_key>); the
	// argument's closer after it shows it (substitute.go).
	argSwap lexer.Marker
	// typeLine: a call starts with this word on a line of its own, and its
	// name is the next line (step_audio_2's `function\nNAME\n{..}`).
	typeLine string
	// nameGT: a call starts with its name as loose text ended by '>', a
	// display label and '/' before it (glm53_flash's `Weather/NAME>{..}`).
	nameGT bool
	// chained: its calls need no closer, and its opener after a complete
	// call starts the next unit instead of nesting in this one.
	chained bool
	// suffix: a pythonic callee ends with it, and the name is the callee
	// without it (llama3_builtin's `brave_search.call(..)`).
	suffix string
	// codeBody: its pythonic body is written in a code fence inside its
	// unit (minicpm3); the closing fence ends the body.
	codeBody bool
	// command: the call's body is its name, then one raw-text argument of
	// this name up to closer, or a JSON object of arguments (cwm's
	// `terminal ls -la`, command.go).
	command string
	closer  lexer.Marker
	// flat: a call object names its tool with this member, and its other
	// members are the arguments (tgi's {"function": {"_name": N, "k": v}}).
	flat string
	// nameLine: after its symbol opener, the call's name up to the end of
	// the line, then its JSON arguments (functionary_v32's `>>>NAME\n{..}`);
	// the output's first line may be one without the opener, which ended
	// the prompt (probeline.go).
	nameLine bool
	// fenceBody: after its symbol opener (a label), a code fence whose body
	// is a JSON call object; the closing fence ends the unit (rwkv).
	fenceBody bool
	// kwOnly: its Python calls take keyword arguments only; a dict as the
	// one positional argument (`f({..})`) is no call of it (hermes_pythonic).
	kwOnly bool
	// eol: a call is a line of its own in text, its name a declared tool's
	// (granite_pythonic's `NAME(k="v")`): text after it on its line means
	// it was none (lineCall.go).
	eol bool
	// lineHead: a call may be a line of its own in text that starts with
	// this header, its opener token lost (gemma4's `call:NAME{..}`, looseline.go).
	lineHead string
}

// header is the small hook a dialect with an irregular call header needs:
// text before its separator token is loose header text, read when the
// separator arrives.
type header struct {
	// loose reports whether text in call c is still header text.
	loose func(c *call) bool
	// sep reads the header at a separator or id token.
	sep func(m *Machine, t *lexer.Token, r role, header []byte)
	// bare completes a call closed before any separator, its header
	// ending at buf[:end]; nil: nothing to do.
	bare func(m *Machine, end int)
	// ident: the header is a name or nothing; other text means the opener
	// was prose (inkling's author, plamo3's tool name).
	ident bool
}

// shape is the grammar engine a dialect uses: how units nest and how the
// arguments are written. Several dialects share one.
type shape uint8

const (
	shNone      shape = iota
	shXML             // call element named by an attribute or =VALUE; <param> elements or a JSON body
	shEnvelope        // JSON objects {"name":N,"arguments":{..}} (or an array of them) in a unit
	shKV              // name as loose text, then key/value element pairs (glm)
	shAttrJSON        // one self-closing element with the arguments as JSON in an attribute
	shChildTags       // the tool's own name is the tag; arguments are child tags
	shTokens          // special tokens; a loose header names the call, a JSON body follows
	shHarmony         // harmony messages: a header with to=functions.N, then a JSON body
	shProbe           // bare JSON in text, opened by a text opener: a call object or an array of them
	shPython          // Python call expressions: [f(k=v), g()] or one per line
	shLoose           // call:NAME{key:<|"|>v<|"|>}: a loose header, then a loose object
	shHash            // {tool => "NAME", args => {..}}: a Ruby-like hash per call (hash.go)
)

// nameFrom says where a call's name is written.
type nameFrom uint8

const (
	nameNone     nameFrom = iota
	nameAttr              // the call element's name attribute
	nameValue             // the call element's =VALUE (<function=N>)
	nameTag               // the call element's own tag name
	nameLoose             // loose text before the arguments
	nameHeader            // loose text up to a separator token, read by Spec.header
	nameEnvelope          // a member of a JSON envelope
	nameCallee            // the callee of a Python call expression
	nameToolAttr          // a tool or name attribute whose value is a declared tool (attrtag.go)
)

// opener is a marker that starts a unit of a dialect in text, or, for a
// dialect without markers, a text opener: an optional word, then the '{'
// or '[' that starts the call's body (`functools[`), probed (probe.go).
type opener struct {
	marker  lexer.Marker
	text    string // a text opener
	role    role   // rBlockOpen or rCallOpen
	ns      string // required namespace prefix (`minimax` of <minimax:tool_call>); "" for none
	variant bool   // a spelling borrowed from a sibling: reported as marker_variant
	needs   needs  // what the token must carry to count
}

type needs uint8

const (
	needNothing  needs = iota
	needName           // a name attribute
	needValue          // a =VALUE
	needDeclared       // its tag name is a declared tool
	needDSML           // the DSML prefix: <｜DSML｜tool_call> is a DSML wrapper under a borrowed name
	needSentinel       // written after a sentinel token (Sentinel): <]minimax[>[<tool_call>
	needToolAttr       // an unknown tag whose tool or name attribute is a declared tool (attrtag.go)
)

// tokenRole is the meaning of a special token inside a unit.
type tokenRole struct {
	marker lexer.Marker
	role   role
}

var deepseekTokens = []tokenRole{
	{lexer.ToolCallBegin, rCallOpen}, {lexer.ToolCallEnd, rCallClose},
	{lexer.ToolCallsBegin, rBlockOpen}, {lexer.SectionBegin, rBlockOpen},
	{lexer.ToolCallsEnd, rBlockClose}, {lexer.SectionEnd, rBlockClose},
	{lexer.ToolSep, rSep}, {lexer.ArgumentBegin, rSep},
}

// xmlInvoke is the grammar of anthropic, dsml and minimax calls.
// Its wrapper is its first opener.
func xmlInvoke(name, example string, dsml bool, opens ...opener) Spec {
	return Spec{Name: name, Family: "invoke", Example: example, shape: shXML, opens: opens,
		block: opens[0].marker, call: lexer.Invoke, param: lexer.Parameter, name: nameAttr, json: true, dsml: dsml, mixes: true}
}

// table is every dialect the machine knows, in the order `toolsieve
// dialects` lists them. Within a family, the first entry whose markers fit
// is chosen when the content decides.
var table = []Spec{
	xmlInvoke(anthropic, "<function_calls>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">SF</parameter>\n</invoke>\n</function_calls>", false,
		opener{marker: lexer.FunctionCalls, role: rBlockOpen}, opener{marker: lexer.ToolCalls, role: rBlockOpen},
		opener{marker: lexer.Invoke, role: rCallOpen, needs: needName}),
	xmlInvoke(dsmlDialect, "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"city\" string=\"true\">SF</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>", true,
		opener{marker: lexer.FunctionCalls, role: rBlockOpen}, opener{marker: lexer.ToolCalls, role: rBlockOpen},
		opener{marker: lexer.Invoke, role: rCallOpen, needs: needName},
		opener{marker: lexer.ToolCall, role: rBlockOpen, variant: true, needs: needDSML},
		opener{marker: lexer.Toolcall, role: rBlockOpen, variant: true, needs: needDSML}),
	// GigaChat 3.5 writes DSML's grammar under its own prefix, GCML.
	func() Spec {
		s := xmlInvoke(gigaChat35, "<｜GCML｜tool_calls>\n<｜GCML｜invoke name=\"get_weather\">\n<｜GCML｜parameter name=\"city\" string=\"true\">SF</｜GCML｜parameter>\n</｜GCML｜invoke>\n</｜GCML｜tool_calls>", true,
			opener{marker: lexer.ToolCalls, role: rBlockOpen, ns: "GCML"}, opener{marker: lexer.FunctionCalls, role: rBlockOpen, ns: "GCML"},
			opener{marker: lexer.Invoke, role: rCallOpen, ns: "GCML", needs: needName})
		s.strDefault = true
		return s
	}(),
	xmlInvoke(miniMax, "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">SF</parameter>\n</invoke>\n</minimax:tool_call>", false,
		opener{marker: lexer.ToolCall, role: rBlockOpen, ns: "minimax"},
		opener{marker: lexer.ToolCall, role: rBlockOpen, variant: true},
		opener{marker: lexer.Toolcall, role: rBlockOpen, variant: true}),
	// MiniMax-M3 writes a sentinel token before every tag, and names each
	// argument by its own child element of the invoke.
	{Name: miniMaxM3, Family: "invoke", shape: shXML,
		Example: "]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"get_weather\">\n]<]minimax[>[<city>SF]<]minimax[>[</city>\n]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>",
		opens: []opener{{marker: lexer.ToolCall, role: rBlockOpen, ns: "minimax", needs: needSentinel},
			{marker: lexer.Invoke, role: rCallOpen, ns: "minimax", needs: needSentinel},
			{marker: lexer.ToolCall, role: rBlockOpen, variant: true}}, // its wrapper's sentinel left out (the invoke decides)
		block: lexer.ToolCall, call: lexer.Invoke, name: nameAttr, childParams: true, sentinel: true,
		tokens: []tokenRole{{lexer.MiniMaxSentinel, rNone}}},
	{Name: qwen3Coder, Family: "tool_call", shape: shXML,
		Example: "<tool_call>\n<function=get_weather>\n<parameter=city>\nSF\n</parameter>\n</function>\n</tool_call>",
		opens: []opener{{marker: lexer.ToolCall, role: rBlockOpen}, {marker: lexer.Function, role: rCallOpen, needs: needValue},
			{marker: lexer.Toolcall, role: rBlockOpen, variant: true},
			{marker: lexer.Parameter, role: rCallOpen, needs: needValue}}, // the name in the first parameter's slot (slots.go)
		block: lexer.ToolCall, call: lexer.Function, param: lexer.Parameter, name: nameValue, trimNL: true},
	{Name: hermes, Family: "tool_call", shape: shEnvelope,
		Example: "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"SF\"}}\n</tool_call>",
		opens: []opener{{marker: lexer.ToolCall, role: rBlockOpen}, {marker: lexer.ToolUse, role: rBlockOpen},
			{marker: lexer.Toolcall, role: rBlockOpen, variant: true}},
		block: lexer.ToolCall, name: nameEnvelope, json: true, ends: true},
	{Name: glm, Family: "tool_call", shape: shKV,
		Example: "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>SF</arg_value>\n</tool_call>",
		opens:   []opener{{marker: lexer.ToolCall, role: rBlockOpen}, {marker: lexer.Toolcall, role: rBlockOpen, variant: true}},
		block:   lexer.ToolCall, key: lexer.ArgKey, value: lexer.ArgValue, name: nameLoose, argSwap: lexer.ToolCall, json: true},
	// hermes_pythonic: Llama 3.1 fine-tunes write a Python call where
	// hermes writes its JSON object; the body decides (closeSegment).
	{Name: hermesPythonic, Family: "tool_call", shape: shPython,
		Example: "<tool_call>get_weather(city=\"SF\")</tool_call>",
		opens:   []opener{{marker: lexer.ToolCall, role: rBlockOpen}},
		block:   lexer.ToolCall, name: nameCallee, lines: true, kwOnly: true},
	// TeleChat4 and Xing 4.0 write glm's calls with <param_key> and
	// <param_value>; the first key tells them apart (kvSibling).
	{Name: teleChat4, Family: "tool_call", shape: shKV,
		Example: "<tool_call>get_weather<param_key>city</param_key><param_value>SF</param_value></tool_call>",
		opens:   []opener{{marker: lexer.ToolCall, role: rBlockOpen}, {marker: lexer.Toolcall, role: rBlockOpen, variant: true}},
		block:   lexer.ToolCall, key: lexer.ParamKey, value: lexer.ParamValue, name: nameLoose, json: true},
	// IQuest Q1 writes glm's call (the name, then <arg_key>/<arg_value>
	// pairs) in an element of its own, one per call.
	{Name: iQuestQ1, Family: "iquest", shape: shKV,
		Example: "<iquest_tool_call>get_weather<arg_key>city</arg_key><arg_value>SF</arg_value></iquest_tool_call>",
		opens:   []opener{{marker: lexer.IQuestCall, role: rBlockOpen}},
		block:   lexer.IQuestCall, key: lexer.ArgKey, value: lexer.ArgValue, name: nameLoose, json: true},
	{Name: invokeToolCall, Family: "invoke_tool_call", shape: shAttrJSON,
		Example: "<invoke_tool_call>\n<tool name=\"get_weather\" args=\"{\\\"city\\\": \\\"SF\\\"}\"/>\n</invoke_tool_call>",
		opens:   []opener{{marker: lexer.InvokeToolCall, role: rBlockOpen}},
		block:   lexer.InvokeToolCall, call: lexer.Tool, name: nameAttr},
	{Name: toolTag, Family: "tool_tag", shape: shChildTags, NeedsTools: true,
		Example: "<get_weather>\n<city>SF</city>\n</get_weather>",
		opens:   []opener{{role: rCallOpen, needs: needDeclared}},
		name:    nameTag, trimNL: true, json: true, entities: true},
	{Name: attrTag, Family: "attr_tag", shape: shXML, NeedsTools: true,
		Example: "<call_record tool=\"get_weather\">\n<parameter name=\"city\">SF</parameter>\n</call_record>",
		opens:   []opener{{role: rCallOpen, needs: needToolAttr}},
		param:   lexer.Parameter, name: nameToolAttr},
	{Name: deepSeekV3, Family: "deepseek", shape: shTokens,
		Example: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"SF\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
		opens:   []opener{{marker: lexer.ToolCallsBegin, role: rBlockOpen}, {marker: lexer.ToolCallBegin, role: rCallOpen}},
		call:    lexer.ToolCallBegin, tokens: deepseekTokens, name: nameHeader, json: true, header: &tokenHeader},
	{Name: deepSeekV31, Family: "deepseek", shape: shTokens,
		Example: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"SF\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
		opens:   []opener{{marker: lexer.ToolCallsBegin, role: rBlockOpen}, {marker: lexer.ToolCallBegin, role: rCallOpen}},
		call:    lexer.ToolCallBegin, tokens: deepseekTokens, name: nameHeader, json: true, header: &tokenHeader},
	{Name: kimiK2, Family: "deepseek", shape: shTokens,
		Example: "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"SF\"}<|tool_call_end|><|tool_calls_section_end|>",
		opens:   []opener{{marker: lexer.SectionBegin, role: rBlockOpen}, {marker: lexer.ToolCallBegin, role: rCallOpen}},
		call:    lexer.ToolCallBegin, tokens: deepseekTokens, name: nameHeader, json: true, header: &tokenHeader},
	{Name: harmonyDialect, Family: "harmony", shape: shHarmony,
		Example: "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\":\"SF\"}<|call|>",
		opens:   []opener{{marker: lexer.HarmonyStart, role: rBlockOpen}, {marker: lexer.HarmonyChannel, role: rBlockOpen}},
		tokens: []tokenRole{{lexer.HarmonyMessage, rSep}, {lexer.HarmonyCall, rCallClose}, {lexer.HarmonyEnd, rCallClose},
			{lexer.HarmonyReturn, rCallClose}, {lexer.HarmonyStart, rBlockOpen}, {lexer.HarmonyConstrain, rNone}},
		name: nameHeader, json: true, header: &harmonyHeader, message: true},
	{Name: mistral, Family: "mistral", shape: shTokens,
		Example: "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"SF\"}",
		opens:   []opener{{marker: lexer.MistralToolCalls, role: rBlockOpen}},
		tokens:  []tokenRole{{lexer.MistralToolCalls, rCallOpen}, {lexer.MistralArgs, rSep}, {lexer.MistralCallID, rID}},
		name:    nameHeader, json: true, ends: true, envFirst: true, header: &mistralHeader, braceName: true},
	{Name: llama3, Family: "llama", shape: shEnvelope,
		Example: "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"SF\"}}",
		opens:   []opener{{marker: lexer.PythonTag, role: rBlockOpen}},
		tokens:  []tokenRole{{lexer.EndOfMessage, rBlockClose}, {lexer.PythonTag, rCallOpen}},
		name:    nameEnvelope, json: true, ends: true, callSep: ';'},
	{Name: jsonDialect, Family: "json", shape: shProbe, NeedsTools: true,
		Example: "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"SF\"}}",
		opens:   []opener{{text: "{"}},
		name:    nameEnvelope, json: true, ends: true, fenced: true},
	{Name: seedOSS, Family: "seed", shape: shXML,
		Example: "<seed:tool_call>\n<function=get_weather>\n<parameter=city>SF</parameter>\n</function>\n</seed:tool_call>",
		opens:   []opener{{marker: lexer.ToolCall, role: rBlockOpen, ns: "seed"}},
		block:   lexer.ToolCall, call: lexer.Function, param: lexer.Parameter, name: nameValue, trimNL: true},
	{Name: granite, Family: "tool_call", shape: shEnvelope,
		Example: "<|tool_call|>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"SF\"}}]",
		opens: []opener{{marker: lexer.ToolCallToken, role: rBlockOpen}, {marker: lexer.ToolCall, role: rBlockOpen},
			{marker: lexer.FunctionCall, role: rBlockOpen}},
		name: nameEnvelope, json: true, ends: true, list: true},
	{Name: hunyuan, Family: "invoke", shape: shEnvelope,
		Example: "<tool_calls>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"SF\"}}]</tool_calls>",
		opens:   []opener{{marker: lexer.ToolCalls, role: rBlockOpen}},
		block:   lexer.ToolCalls, name: nameEnvelope, json: true, ends: true, list: true},
	// Tencent's Hunyuan writes GLM's key/value arguments in calls of their
	// own inside a <tool_calls> wrapper: Hy3 ends the name with <tool_sep>,
	// Hy4 does not and may carry a per-checkpoint suffix on every tag
	// (<tool_call:opensource>); the header decides (hunyuanHeader).
	{Name: hyV3, Family: "invoke", shape: shKV,
		Example: "<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>SF</arg_value>\n</tool_call>\n</tool_calls>",
		opens:   []opener{{marker: lexer.ToolCalls, role: rBlockOpen}},
		block:   lexer.ToolCalls, call: lexer.ToolCall, key: lexer.ArgKey, value: lexer.ArgValue,
		tokens: []tokenRole{{lexer.ToolSepTag, rSep}}, name: nameHeader, header: &hunyuanHeader, json: true},
	{Name: hyV4, Family: "invoke", shape: shKV,
		Example: "<tool_calls:opensource><tool_call:opensource>get_weather<arg_key:opensource>city</arg_key:opensource><arg_value:opensource>SF</arg_value:opensource></tool_call:opensource></tool_calls:opensource>",
		opens:   []opener{{marker: lexer.ToolCalls, role: rBlockOpen}},
		block:   lexer.ToolCalls, call: lexer.ToolCall, key: lexer.ArgKey, value: lexer.ArgValue,
		name: nameHeader, header: &hunyuanHeader, json: true},
	// K2 Horizon writes GLM's key/value arguments, with an optional type
	// element, or a JSON call object, in tags with the `ifm|` prefix.
	{Name: k2Horizon, Family: "k2_horizon", shape: shKV,
		Example: "<ifm|tool_calls><ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>SF</ifm|arg_value></ifm|tool_call></ifm|tool_calls>",
		opens:   []opener{{marker: lexer.ToolCalls, role: rBlockOpen, ns: "ifm"}, {marker: lexer.ToolCall, role: rCallOpen, ns: "ifm"}},
		block:   lexer.ToolCalls, call: lexer.ToolCall, key: lexer.ArgKey, value: lexer.ArgValue, argType: lexer.ArgType,
		name: nameHeader, header: &kvHeader, json: true},
	{Name: longcat, Family: "longcat", shape: shEnvelope,
		Example: "<longcat_tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"SF\"}}\n</longcat_tool_call>",
		opens:   []opener{{marker: lexer.LongcatToolCall, role: rBlockOpen}},
		block:   lexer.LongcatToolCall, name: nameEnvelope, json: true, ends: true},
	// LongCat's later checkpoints write glm's call (the name, then key/value
	// pairs) in its own element, the pairs' tags prefixed `longcat_`.
	{Name: longcatKV, Family: "longcat", shape: shKV,
		Example: "<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n<longcat_arg_value>SF</longcat_arg_value>\n</longcat_tool_call>",
		opens:   []opener{{marker: lexer.LongcatToolCall, role: rBlockOpen}},
		block:   lexer.LongcatToolCall, key: lexer.ArgKey, value: lexer.ArgValue, name: nameLoose, json: true},
	{Name: internLM2, Family: "internlm", shape: shEnvelope,
		Example: "<|action_start|><|plugin|>\n{\"name\": \"get_weather\", \"parameters\": {\"city\": \"SF\"}}<|action_end|>",
		opens:   []opener{{marker: lexer.ActionStart, role: rBlockOpen}},
		tokens:  []tokenRole{{lexer.Plugin, rNone}, {lexer.ActionEnd, rBlockClose}},
		name:    nameEnvelope, json: true, ends: true},
	{Name: gigaChat3, Family: "gigachat", shape: shEnvelope,
		Example: "<|function_call|>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"SF\"}}",
		opens:   []opener{{marker: lexer.FunctionCallToken, role: rBlockOpen}, {marker: lexer.MessageSep, role: rBlockOpen}},
		tokens:  []tokenRole{{lexer.RoleSep, rNone}},
		name:    nameEnvelope, json: true, ends: true, preamble: "function call"},
	{Name: apertus, Family: "apertus", shape: shEnvelope,
		Example: "<|tools_prefix|>[{\"get_weather\": {\"city\": \"SF\"}}]<|tools_suffix|>",
		opens:   []opener{{marker: lexer.ToolsPrefix, role: rBlockOpen}},
		tokens:  []tokenRole{{lexer.ToolsSuffix, rBlockClose}},
		name:    nameEnvelope, json: true, ends: true, list: true, nameKey: true},
	{Name: llama4Pythonic, Family: "pythonic", shape: shPython,
		Example: "<|python_start|>[get_weather(city='SF')]<|python_end|>",
		opens:   []opener{{marker: lexer.PythonStart, role: rBlockOpen}},
		tokens:  []tokenRole{{lexer.PythonEnd, rBlockClose}},
		name:    nameCallee},
	// llama4_json shares llama4_pythonic's tokens: Llama 4 models write
	// llama3's JSON call object (or an array of them) between them.
	{Name: llama4JSON, Family: "pythonic", shape: shEnvelope,
		Example: "<|python_start|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"SF\"}}<|python_end|>",
		opens:   []opener{{marker: lexer.PythonStart, role: rBlockOpen}},
		tokens:  []tokenRole{{lexer.PythonEnd, rBlockClose}},
		name:    nameEnvelope, json: true, ends: true, list: true},
	{Name: lfm2, Family: "pythonic", shape: shPython,
		Example: "<|tool_call_start|>[get_weather(city=\"SF\")]<|tool_call_end|>",
		opens:   []opener{{marker: lexer.ToolCallStart, role: rBlockOpen}},
		tokens:  []tokenRole{{lexer.ToolCallEnd, rBlockClose}},
		name:    nameCallee},
	// lfm2_json shares lfm2's tokens: LFM2's JSON mode and openPangu write
	// an array of call objects where lfm2 writes Python calls (pyToJSON).
	{Name: lfm2JSON, Family: "pythonic", shape: shEnvelope,
		Example: "<|tool_call_start|>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"SF\"}}]<|tool_call_end|>",
		opens:   []opener{{marker: lexer.ToolCallStart, role: rBlockOpen}},
		tokens:  []tokenRole{{lexer.ToolCallEnd, rBlockClose}},
		name:    nameEnvelope, json: true, ends: true, list: true},
	{Name: olmo3, Family: "invoke", shape: shPython,
		Example: "<function_calls>\nget_weather(city='SF')\n</function_calls>",
		opens:   []opener{{marker: lexer.FunctionCalls, role: rBlockOpen}},
		block:   lexer.FunctionCalls, name: nameCallee, lines: true},
	{Name: gemma4, Family: "gemma", shape: shLoose,
		Example: "<|tool_call>call:get_weather{city:<|\"|>SF<|\"|>}<tool_call|>",
		opens:   []opener{{marker: lexer.GemmaToolCall, role: rCallOpen}},
		call:    lexer.GemmaToolCall, name: nameHeader, json: true, delim: `<|"|>`, header: &looseHeaderHook, lineHead: "call:"},
	{Name: functionGemma, Family: "gemma", shape: shLoose,
		Example: "<start_function_call>call:get_weather{city:<escape>SF<escape>}<end_function_call>",
		opens:   []opener{{marker: lexer.StartFunctionCall, role: rCallOpen}},
		call:    lexer.StartFunctionCall, callEnd: lexer.EndFunctionCall, name: nameHeader, json: true,
		delim: "<escape>", header: &looseHeaderHook},
	{Name: nemotron, Family: "tool_call", shape: shEnvelope,
		Example: "<TOOLCALL>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"SF\"}}]</TOOLCALL>",
		opens:   []opener{{marker: lexer.Toolcall, role: rBlockOpen}},
		block:   lexer.Toolcall, name: nameEnvelope, json: true, ends: true, list: true},
	{Name: miniMaxM1, Family: "invoke", shape: shEnvelope,
		Example: "<tool_calls>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"SF\"}}\n</tool_calls>",
		opens:   []opener{{marker: lexer.ToolCalls, role: rBlockOpen}},
		block:   lexer.ToolCalls, name: nameEnvelope, json: true, ends: true},
	{Name: cohere, Family: "cohere", shape: shEnvelope,
		Example: "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"SF\"}}]<|END_ACTION|>",
		opens:   []opener{{marker: lexer.StartAction, role: rBlockOpen}},
		tokens:  []tokenRole{{lexer.EndAction, rBlockClose}},
		name:    nameEnvelope, json: true, ends: true, list: true},
	// step3 writes deepseek's tokens (with `_` where they write `▁`) around
	// an invoke: the token call `function<｜tool_sep｜>` holds the call
	// element, so a deepseek_v3 call holding only that header becomes the
	// unit around a step3 call when the element arrives (unwrapCall).
	{Name: step3, Family: "deepseek", shape: shXML,
		Example: "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"get_weather\"><steptml:parameter name=\"city\">SF</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
		opens:   []opener{{marker: lexer.ToolCallsBegin, role: rBlockOpen}, {marker: lexer.ToolCallBegin, role: rCallOpen}},
		call:    lexer.Invoke, param: lexer.Parameter, name: nameAttr, typed: true,
		tokens: []tokenRole{{lexer.ToolCallsEnd, rBlockClose}, {lexer.ToolCallEnd, rCallClose},
			{lexer.ToolCallBegin, rNone}, {lexer.ToolSep, rNone}}},
	{Name: kimiK3, Family: "xtml", shape: shXML,
		Example: "<|open|>tools<|sep|><|open|>call tool=\"get_weather\" index=\"1\"<|sep|><|open|>argument key=\"city\" type=\"string\"<|sep|>SF<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>",
		opens:   []opener{{marker: lexer.XTools, role: rBlockOpen}, {marker: lexer.XCall, role: rCallOpen, needs: needName}},
		block:   lexer.XTools, call: lexer.XCall, param: lexer.XArgument, name: nameAttr,
		callAttr: "tool", argAttr: "key", typed: true,
		tokens: []tokenRole{{lexer.EndOfMsg, rBlockClose}}, frame: []lexer.Marker{lexer.XResponse, lexer.XMessage}},
	{Name: miniCPM5, Family: "tool_call", shape: shXML,
		Example: "<function name=\"get_weather\"><param name=\"city\">SF</param></function>",
		opens:   []opener{{marker: lexer.Function, role: rCallOpen, needs: needName}},
		call:    lexer.Function, param: lexer.Parameter, name: nameAttr, own: "param", cdata: true},
	{Name: qwen25Coder, Family: "qwen25", shape: shEnvelope,
		Example: "<tools>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"SF\"}}\n</tools>",
		opens:   []opener{{marker: lexer.Tools, role: rBlockOpen}},
		block:   lexer.Tools, name: nameEnvelope, json: true, ends: true, list: true},
	xmlInvoke(dots, "<dots_function_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">SF</parameter>\n</invoke>\n</dots_function_call>", false,
		opener{marker: lexer.DotsFunctionCall, role: rBlockOpen}),
	{Name: xlam, Family: "json", shape: shProbe, NeedsTools: true,
		Example: "[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"SF\"}}]",
		opens:   []opener{{text: "["}},
		name:    nameEnvelope, json: true, ends: true, list: true, fenced: true},
	{Name: pythonic, Family: "pythonic", shape: shPython, NeedsTools: true,
		Example: "[get_weather(city='SF')]",
		opens:   []opener{{text: "["}},
		name:    nameCallee},
	{Name: phi4Mini, Family: "json", shape: shProbe, NeedsTools: true,
		Example: "functools[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"SF\"}}]",
		opens:   []opener{{text: "functools["}},
		name:    nameEnvelope, json: true, ends: true, list: true, fenced: true},
	// Solar Open 2: the name is the rest of the opener's line, then
	// key/value arguments written with tokens.
	{Name: solarOpen2, Family: "solar", shape: shKV,
		Example: "<|tool_call:start|>get_weather\n<|tool_arg:start|>city<|tool_arg:value|>SF<|tool_arg:end|>\n<|tool_call:end|>",
		opens:   []opener{{marker: lexer.SolarCall, role: rBlockOpen}},
		tokens: []tokenRole{{lexer.SolarCallEnd, rBlockClose}, {lexer.SolarArg, rKeyOpen}, {lexer.SolarValue, rValOpen},
			{lexer.SolarArgEnd, rValClose}},
		key: lexer.SolarArg, value: lexer.SolarValue, name: nameLoose, bareKey: true},
	// Inkling's messages: `<|message_model|>AUTHOR` and a content token;
	// a call is a JSON object {"name", "args"} after
	// <|content_invoke_tool_json|> (inklingHeader).
	{Name: inkling, Family: "inkling", shape: shEnvelope,
		Example: "<|message_model|>get_weather<|content_invoke_tool_json|>{\"name\":\"get_weather\",\"args\":{\"city\":\"SF\"}}<|end_message|>",
		opens:   []opener{{marker: lexer.MessageModel, role: rBlockOpen}, {marker: lexer.InvokeToolJSON, role: rBlockOpen}},
		tokens: []tokenRole{{lexer.MessageModel, rCallOpen}, {lexer.InvokeToolJSON, rSep}, {lexer.ContentText, rSep},
			{lexer.ContentThinking, rSep}, {lexer.InvokeToolText, rSep}, {lexer.EndMessage, rCallClose}, {lexer.EndSampling, rCallClose}},
		name: nameHeader, json: true, ends: true, header: &inklingHeader, message: true},
	// PLaMo 3 writes each part of a call between tokens of its own.
	{Name: plamo3, Family: "plamo", shape: shTokens,
		Example: "<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>get_weather<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>{\"city\": \"SF\"}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>",
		opens:   []opener{{marker: lexer.PlamoRequests, role: rBlockOpen}, {marker: lexer.PlamoRequest, role: rCallOpen}},
		call:    lexer.PlamoRequest,
		tokens: []tokenRole{{lexer.PlamoRequest, rCallOpen}, {lexer.PlamoRequestEnd, rCallClose}, {lexer.PlamoRequestsEnd, rBlockClose},
			{lexer.PlamoName, rNone}, {lexer.PlamoNameEnd, rSep}, {lexer.PlamoArgs, rNone}, {lexer.PlamoArgsEnd, rNone}},
		name: nameHeader, json: true, header: &sepHeader},
	{Name: rubyHash, Family: "ruby_hash", shape: shHash,
		Example: "[TOOL_CALL]\n{tool => \"get_weather\", args => {\n  --city \"SF\"\n}}\n[/TOOL_CALL]",
		opens:   []opener{{marker: lexer.ToolCallBracket, role: rBlockOpen}},
		tokens:  []tokenRole{{lexer.ToolCallBracket, rBlockOpen}}, // [/TOOL_CALL] closes it (roleIn)
		name:    nameEnvelope},
	// functionary_v31 writes qwen3_coder's call element around a JSON
	// object: a `<function=N>` whose body starts with '{' is its call
	// (jsonSibling).
	{Name: functionaryV31, Family: "tool_call", shape: shXML,
		Example: "<function=get_weather>{\"city\": \"SF\"}</function>",
		opens:   []opener{{marker: lexer.Function, role: rCallOpen, needs: needValue}},
		call:    lexer.Function, name: nameValue, json: true},
	{Name: stepAudio2, Family: "tool_call", shape: shKV,
		Example: "<tool_call>function\nget_weather\n{\"city\": \"SF\"}</tool_call>",
		opens:   []opener{{marker: lexer.ToolCall, role: rBlockOpen}},
		block:   lexer.ToolCall, name: nameHeader, json: true, typeLine: "function", header: &lineHeader},
	{Name: glm53Flash, Family: "tool_call", shape: shKV,
		Example: "<tool_call>Weather/get_weather>{\"city\": \"SF\"}",
		opens:   []opener{{marker: lexer.ToolCall, role: rBlockOpen}},
		block:   lexer.ToolCall, name: nameLoose, json: true, ends: true, nameGT: true, chained: true},
	// llama3_builtin: Llama 3.1's built-in tools after llama3's token, a
	// Python call of NAME.call; a call opened by the token whose body
	// starts so becomes this dialect's (closeSegment).
	{Name: llama3Builtin, Family: "llama", shape: shPython,
		Example: "<|python_tag|>get_weather.call(city=\"SF\")<|eom_id|>",
		opens:   []opener{{marker: lexer.PythonTag, role: rBlockOpen}},
		tokens:  []tokenRole{{lexer.EndOfMessage, rBlockClose}},
		name:    nameCallee, lines: true, suffix: ".call"},
	{Name: miniCPM3, Family: "pythonic", shape: shPython,
		Example: "<|tool_call_start|>```python\nget_weather(city='SF')\n```<|tool_call_end|>",
		opens:   []opener{{marker: lexer.ToolCallStart, role: rBlockOpen}},
		tokens:  []tokenRole{{lexer.ToolCallEnd, rBlockClose}},
		name:    nameCallee, lines: true, codeBody: true},
	{Name: cwm, Family: "cwm", shape: shXML,
		Example: "<tool: function>\nget_weather {\"city\": \"SF\"}\n</tool>",
		opens:   []opener{{marker: lexer.ToolLabel, role: rCallOpen}},
		call:    lexer.ToolLabel, name: nameHeader, header: &commandHeader, command: "command", closer: lexer.Tool},
	// tgi shares json's text opener; a probe that reads the name from
	// "_name" inside "function" opens it (probe.flat).
	{Name: tgi, Family: "json", shape: shProbe, NeedsTools: true,
		Example: "{\"function\": {\"_name\": \"get_weather\", \"city\": \"SF\"}}",
		opens:   []opener{{text: "{"}},
		name:    nameEnvelope, json: true, ends: true, fenced: true, flat: "_name"},
	{Name: functionaryV32, Family: "functionary", shape: shProbe, NeedsTools: true,
		Example: ">>>get_weather\n{\"city\": \"SF\"}",
		opens:   []opener{{text: ">>>"}},
		name:    nameLoose, json: true, ends: true, nameLine: true},
	{Name: rwkv, Family: "rwkv", shape: shEnvelope,
		Example: "**Tool Call:**\n```json\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"SF\"}}\n```",
		opens:   []opener{{text: "**Tool Call:**"}},
		name:    nameEnvelope, json: true, ends: true, fenceBody: true},
	{Name: granitePythonic, Family: "pythonic", shape: shPython, NeedsTools: true,
		Example: "get_weather(city='SF')",
		name:    nameCallee, lines: true, eol: true},
}

// Dialects returns the table, for listing. The entries must not be modified.
func Dialects() []Spec { return table }

// DialectNames returns every dialect name, in table order.
func DialectNames() []string {
	names := make([]string, len(table))
	for i := range table {
		names[i] = table[i].Name
	}
	return names
}

// dset is a set of dialects, by table index.
type dset uint64

func (s dset) has(i int) bool { return s&(1<<i) != 0 }

// dialectsWhere is the set of the table's dialects that keep accepts.
func dialectsWhere(keep func(s *Spec) bool) (d dset) {
	for i := range table {
		if keep(&table[i]) {
			d |= 1 << i
		}
	}
	return d
}

// first is the dialect of s that comes first in the table; s must not be
// empty. Loops over a set take it and drop it: `for ; s != 0; s &= s - 1`.
func (s dset) first() *Spec { return &table[bits.TrailingZeros64(uint64(s))] }

// byName finds a dialect by name (filled by init: header hooks in the
// table look dialects up by name).
var byName = map[string]*Spec{}

func init() {
	if len(table) > 64 || lexer.NumMarkers > 128 {
		panic("fsm: more dialects or markers than its sets hold")
	}
	for i := range table {
		s := &table[i]
		s.id = uint8(i)
		byName[s.Name] = s
		for _, mk := range s.markers() {
			if mk != lexer.Unknown {
				s.uses.add(mk)
			}
		}
	}
}

// lookup finds a dialect by name.
func lookup(name string) (*Spec, bool) {
	s, ok := byName[name]
	return s, ok
}

// ErrUnknownDialect is returned by Options.Validate for a dialect name the
// table does not hold.
var ErrUnknownDialect = errors.New("unknown dialect")

// Validate checks the options: every dialect named must be known.
func (o *Options) Validate() error {
	for d := range o.Dialects {
		if _, ok := lookup(d); !ok {
			return &dialectError{Name: d}
		}
	}
	return nil
}

// dialectError names an unknown dialect.
type dialectError struct{ Name string }

func (e *dialectError) Error() string { return "unknown dialect " + strconv.Quote(e.Name) }

// Unwrap makes errors.Is(err, ErrUnknownDialect) true.
func (e *dialectError) Unwrap() error { return ErrUnknownDialect }

// dialectIndex answers, for one set of options, which dialects are on and
// which markers they use. It is built once per machine.
type dialectIndex struct {
	on   dset
	used markerSet // markers that some enabled dialect uses
	free opSet     // the text openers of dialects on that need no declared tools (rwkv's label)
	// probes: tools are declared and a dialect opened by text is on:
	// every text opener is probed.
	probes bool
	leads  bool // probes, and some text opener starts with a word
	// orphans: no tools are declared, and a dialect is on whose wrapper
	// closer may follow its call body alone: a '{' or '[' starting a line
	// is probed for a call body that such a closer ends (orphan.go).
	orphans bool
	// sentinel: a dialect is on whose tags follow a sentinel token: a ']'
	// ending text is held (childtags.go).
	sentinel bool
	// lineCalls: a dialect on, with declared tools, whose calls are lines
	// of their own in text (granite_pythonic: linecall.go).
	lineCalls bool
}

// markerSet is a set of lexer markers.
type markerSet [2]uint64

func (s *markerSet) add(mk lexer.Marker)     { s[mk/64] |= 1 << (mk % 64) }
func (s markerSet) has(mk lexer.Marker) bool { return s[mk/64]&(1<<(mk%64)) != 0 }

// openers maps a marker to the dialects that list it as an opener; declTag
// are the dialects opened by a declared tool's own tag.
var openers, declTag = func() (opens [lexer.NumMarkers][]int, decl dset) {
	for i := range table {
		for _, op := range table[i].opens {
			if op.text != "" {
				continue // probed (probe.go)
			}
			if op.needs == needDeclared {
				decl |= 1 << i
			} else if op.needs == needToolAttr {
				continue // attrTags (attrtag.go)
			} else if !slices.Contains(opens[op.marker], i) {
				opens[op.marker] = append(opens[op.marker], i)
			}
		}
	}
	return opens, decl
}()

func newIndex(o *Options) dialectIndex {
	var ix dialectIndex
	for i := range table {
		s := &table[i]
		if !o.enabled(s) {
			continue
		}
		ix.on |= 1 << i
		if s.textOpened() && o.Declared != nil {
			ix.probes = true
		}
		ix.sentinel = ix.sentinel || s.sentinel
		ix.used[0] |= s.uses[0]
		ix.used[1] |= s.uses[1]
	}
	ix.leads = ix.probes && len(pt.words) > 0
	ix.orphans = !ix.probes && ix.on&orphanDialects != 0
	for k, op := range pt.ops {
		if s := &table[op.spec]; o.enabled(s) && !s.NeedsTools {
			ix.free |= 1 << k
		}
	}
	for i := range table {
		if s := &table[i]; (s.eol || s.lineHead != "") && o.enabled(s) && o.Declared != nil {
			ix.lineCalls = true
		}
	}
	return ix
}

// symbolLead reports whether c is the first byte of a symbol opener that
// is probed (`>`, `*`): text holding one takes the long way.
func (ix *dialectIndex) symbolLead(c byte) bool {
	for _, k := range pt.syms {
		if pt.ops[k].text[0] == c && (ix.probes || ix.free.has(k)) {
			return true
		}
	}
	return false
}

// nameLine is a dialect on, with declared tools, whose name line may start
// the output without its opener (functionary_v32), or nil.
func (o *Options) nameLine() *Spec {
	for i := range table {
		if s := &table[i]; s.nameLine && o.Declared != nil && o.enabled(s) {
			return s
		}
	}
	return nil
}

// markers lists the markers a dialect uses.
func (s *Spec) markers() []lexer.Marker {
	var out []lexer.Marker
	for _, op := range s.opens {
		out = append(out, op.marker)
	}
	out = append(out, s.block, s.call, s.param, s.key, s.value, s.argType, s.callEnd)
	for _, tr := range s.tokens {
		out = append(out, tr.marker)
	}
	return append(out, s.frame...)
}

// attrOf returns the value of the attribute that names a call (or, with
// arg, an argument): `name` unless the dialect says otherwise.
func (s *Spec) attrOf(t *lexer.Token, arg bool) ([]byte, bool) {
	key := s.callAttr
	if arg {
		key = s.argAttr
	}
	if key == "" {
		key = "name"
	}
	return t.Attr(key)
}

// variant reports how token t is not written canonically in dialect s: its
// variant flags, less a name variant that is the dialect's own spelling.
func (s *Spec) variant(t *lexer.Token) lexer.Flags {
	f := t.Flags & lexer.Variant
	if f == lexer.NameVariant && s.own != "" && string(t.Name) == s.own {
		return 0
	}
	if f == lexer.NameVariant && s.childParams && t.Marker != s.call && t.Marker != s.block {
		return 0 // an argument's own element: its name is the argument's
	}
	return f
}

// wrapped reports whether the dialect's calls are written inside a wrapper.
func (s *Spec) wrapped() bool {
	for _, op := range s.opens {
		if op.role == rBlockOpen {
			return true
		}
	}
	return false
}

// fits reports whether token t satisfies opener op of dialect s.
func (op *opener) fits(s *Spec, t *lexer.Token) bool {
	if op.ns != "" && (string(t.NS) != op.ns || t.Has(lexer.Suffixed) || t.Has(lexer.Sentinel) != (op.needs == needSentinel)) {
		return false
	}
	switch op.needs {
	case needName:
		_, ok := s.attrOf(t, false)
		return ok
	case needValue:
		return len(t.Value) > 0
	case needDSML:
		return t.Has(lexer.DSML)
	}
	return true
}

// openersOf returns the dialects that token t may start in text, those of
// them it starts in a borrowed spelling, and the role it has there. A
// namespace an entry asks for claims the token: <minimax:tool_call> starts
// only minimax. Disabled dialects start units too: their markup is parsed
// so that all of it, closers included, is passed on as text.
func (m *Machine) openersOf(t *lexer.Token) (cands, variants dset, r role) {
	list := openers[t.Marker]
	for pass := 0; pass < 2 && cands == 0; pass++ {
		for _, i := range list {
			for k := range table[i].opens {
				op := &table[i].opens[k]
				if op.marker != t.Marker || (pass == 0) != (op.ns != "") || !op.fits(&table[i], t) {
					continue
				}
				cands |= 1 << i
				if op.variant || t.Has(lexer.DSML) && !table[i].dsml { // a DSML prefix on another dialect's tag is borrowed
					variants |= 1 << i
				}
				r = op.role
			}
		}
	}
	return cands, variants, r
}

// choose picks, among the candidates, the first dialect of shape sh (shNone:
// any) whose call element is mk (Unknown: any), preferring one whose DSML
// prefix agrees with dsml.
func choose(cands dset, mk lexer.Marker, dsml bool, sh shape) *Spec {
	var first *Spec
	for ; cands != 0; cands &= cands - 1 {
		s := cands.first()
		if mk != lexer.Unknown && s.call != mk || sh != shNone && s.shape != sh {
			continue
		}
		if s.dsml == dsml {
			return s
		}
		if first == nil {
			first = s
		}
	}
	return first
}

// anyOf reports whether one of the candidates satisfies f.
func anyOf(cands dset, f func(*Spec) bool) bool {
	for ; cands != 0; cands &= cands - 1 {
		if f(cands.first()) {
			return true
		}
	}
	return false
}

// only returns the one dialect of a set that holds one, else nil.
func (s dset) only() *Spec {
	if s == 0 || s&(s-1) != 0 {
		return nil
	}
	return s.first()
}

// blockTags are the wrapper tags of every dialect: inside markup, any of
// them opens or closes a block, whichever dialect wrote it.
var blockTags = tagSet(func(s *Spec) []lexer.Marker {
	out := []lexer.Marker{s.block}
	for _, op := range s.opens {
		if op.role == rBlockOpen {
			out = append(out, op.marker)
		}
	}
	return out
})

// structural are the tags that are tool-call markup in some dialect: a
// stray closer of one is discarded, not kept as text. A call element that
// is one self-closing tag has no closer to stray.
var structural = tagSet(func(s *Spec) []lexer.Marker {
	out := s.markers()
	if s.shape == shAttrJSON {
		out = append(out[:0:0], s.block)
	}
	return out
})

// tagTokens are the tags that some dialect lists among its tokens: inside
// its units they have the token's role (hy_v3's <tool_sep>).
var tagTokens = tagSet(func(s *Spec) []lexer.Marker {
	var out []lexer.Marker
	for _, tr := range s.tokens {
		out = append(out, tr.marker)
	}
	return out
})

// callTags are the call elements that are also some dialect's wrapper
// (<tool_call> holds one Hunyuan call, and is qwen3_coder's wrapper).
var callTags = func() (set [256]bool) {
	calls := tagSet(func(s *Spec) []lexer.Marker { return []lexer.Marker{s.call} })
	for mk := range set {
		set[mk] = calls[mk] && blockTags[mk]
	}
	return set
}()

// framing are the tags of some dialect's message framing (Spec.frame).
var framing = tagSet(func(s *Spec) []lexer.Marker { return s.frame })

func tagSet(of func(*Spec) []lexer.Marker) (set [256]bool) {
	for i := range table {
		for _, mk := range of(&table[i]) {
			if mk != lexer.Unknown && !mk.IsSpecial() {
				set[mk] = true
			}
		}
	}
	return set
}

// tokenRoleOf is what special token mk means in a unit of the candidates.
func tokenRoleOf(cands dset, mk lexer.Marker) role {
	for ; cands != 0; cands &= cands - 1 {
		for _, tr := range cands.first().tokens {
			if tr.marker == mk {
				return tr.role
			}
		}
	}
	return rNone
}

// specSet is the set holding just s.
func specSet(s *Spec) dset { return 1 << s.id }

// enabled reports whether dialect s is on.
func (o *Options) enabled(s *Spec) bool {
	if o.Dialects != nil {
		return o.Dialects[s.Name]
	}
	if s.NeedsTools {
		return o.Declared != nil
	}
	return true
}
