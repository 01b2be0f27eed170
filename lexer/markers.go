package lexer

// Marker identifies a marker name the parser knows, whatever dialect it
// belongs to. The lexer reads any tag-shaped or token-shaped marker; this
// table says which names mean something. Aliases that real models write
// fold onto one Marker (`param` and `invoke_arg` onto Parameter, `toolcalls`
// onto ToolCalls) and are flagged as variants.
type Marker uint8

// Markers. Tag markers come first, then special tokens.
const (
	Unknown Marker = iota

	// Tags: <name ...>, </name>, <name=value>.
	FunctionCalls     // function_calls wrapper (anthropic, dsml V3.2)
	ToolCalls         // tool_calls wrapper (dsml V4), also `calls` (V4.1)
	Invoke            // invoke element: one call
	Parameter         // parameter element (also param, invoke_arg)
	ToolCall          // tool_call element (qwen3_coder, hermes, glm, minimax wrapper)
	ToolUse           // tool_use element (hermes variant)
	Function          // <function=NAME> (qwen3_coder)
	ArgKey            // glm
	ArgValue          // glm
	InvokeToolCall    // invoke_tool_call wrapper
	Tool              // <tool name=.. args=../>
	Think             // <think> reasoning (also <seed:think>, <longcat_think>)
	LongcatToolCall   // longcat_tool_call element
	FunctionCall      // granite 20B <function_call>
	GemmaToolCall     // gemma4 <|tool_call> … <tool_call|>
	StartFunctionCall // functiongemma <start_function_call>
	EndFunctionCall   // functiongemma <end_function_call>
	Toolcall          // nemotron <TOOLCALL> (also a spelling of tool_call other dialects borrow)
	Tools             // qwen25_coder <tools>
	DotsFunctionCall  // dots <dots_function_call>
	ToolLabel         // cwm <tool: LABEL>, closed by </tool> (Tool)
	// Kimi K3's XTML tags, written <|open|>NAME attrs<|sep|> and
	// <|close|>NAME<|sep|> (see xtmlNames); `think` is Think.
	XTools     // its tools channel: the calls' wrapper
	XCall      // call tool="NAME": one call
	XArgument  // argument key="K" type="T": one argument
	XResponse  // its answer channel
	XMessage   // the message, closed after the channels
	ToolSepTag // hy_v3 <tool_sep> (a tag: deepseek's is a token)
	ArgType    // k2_horizon <ifm|arg_type>: the type of the argument whose value follows
	ParamKey   // telechat4 <param_key>
	ParamValue // telechat4 <param_value>
	IQuestCall // iquest_q1 <iquest_tool_call>: glm's call in its own element

	// Special tokens: <|name|>, <｜name｜>, [NAME].
	ToolCallsBegin    // deepseek <｜tool▁calls▁begin｜>
	ToolCallsEnd      // deepseek
	ToolCallBegin     // deepseek, kimi
	ToolCallEnd       // deepseek, kimi
	ToolSep           // deepseek
	SectionBegin      // kimi tool_calls_section_begin (also tool_call_section_begin)
	SectionEnd        // kimi
	ArgumentBegin     // kimi tool_call_argument_begin
	HarmonyStart      // <|start|>
	HarmonyChannel    // <|channel|>
	HarmonyMessage    // <|message|>
	HarmonyConstrain  // <|constrain|>
	HarmonyCall       // <|call|>
	HarmonyEnd        // <|end|>
	HarmonyReturn     // <|return|>
	PythonTag         // llama3 <|python_tag|>
	EndOfMessage      // llama3 <|eom_id|>, <|eot_id|>
	MistralToolCalls  // [TOOL_CALLS]
	MistralArgs       // [ARGS]
	MistralCallID     // [CALL_ID]
	ToolCallToken     // granite <|tool_call|>
	FunctionCallToken // gigachat3 <|function_call|>
	ActionStart       // internlm2 <|action_start|>
	Plugin            // internlm2 <|plugin|>
	ActionEnd         // internlm2 <|action_end|>
	ToolsPrefix       // apertus <|tools_prefix|>
	ToolsSuffix       // apertus <|tools_suffix|>
	MessageSep        // gigachat3 <|message_sep|>
	PythonStart       // llama4 <|python_start|>
	PythonEnd         // llama4 <|python_end|>
	ToolCallStart     // lfm2 <|tool_call_start|>
	StartAction       // cohere <|START_ACTION|>
	EndAction         // cohere <|END_ACTION|>
	RoleSep           // gigachat3 <|role_sep|>
	EndOfMsg          // kimi_k3 <|end_of_msg|>
	ToolCallBracket   // [TOOL_CALL] (ruby_hash), closed by [/TOOL_CALL]
	// MiniMax-M3's sentinel <]minimax[>[ alone; before a tag it is part of
	// the tag (Sentinel).
	MiniMaxSentinel
	InvokeToolJSON  // inkling <|content_invoke_tool_json|>
	InvokeToolText  // inkling <|content_invoke_tool_text|> (a call in prose: not read)
	MessageModel    // inkling <|message_model|>
	EndMessage      // inkling <|end_message|>
	ContentText     // inkling <|content_text|>
	ContentThinking // inkling <|content_thinking|>
	EndSampling     // inkling <|content_model_end_sampling|>
	PlamoRequests   // plamo3 <|plamo:begin_tool_requests:plamo|>
	PlamoRequestsEnd
	PlamoRequest // <|plamo:begin_tool_request:plamo|>
	PlamoRequestEnd
	PlamoName // <|plamo:begin_tool_name:plamo|>
	PlamoNameEnd
	PlamoArgs // <|plamo:begin_tool_arguments:plamo|>
	PlamoArgsEnd
	SolarCall    // solar_open2 <|tool_call:start|>
	SolarCallEnd // <|tool_call:end|>
	SolarArg     // <|tool_arg:start|>
	SolarValue   // <|tool_arg:value|>
	SolarArgEnd  // <|tool_arg:end|>
	ThoughtStart // minicpm3 <|thought_start|>: reasoning, up to ThoughtEnd
	ThoughtEnd   // minicpm3 <|thought_end|>
	NumMarkers   // the number of markers: sets of markers may be sized by it
)

var markerNames = [NumMarkers]string{
	Unknown: "unknown", FunctionCalls: "function_calls", ToolCalls: "tool_calls",
	Invoke: "invoke", Parameter: "parameter", ToolCall: "tool_call", ToolUse: "tool_use",
	Function: "function", ArgKey: "arg_key", ArgValue: "arg_value",
	InvokeToolCall: "invoke_tool_call", Tool: "tool", Think: "think", LongcatToolCall: "longcat_tool_call", GemmaToolCall: "tool_call",
	StartFunctionCall: "start_function_call", EndFunctionCall: "end_function_call", Toolcall: "toolcall", Tools: "tools", DotsFunctionCall: "dots_function_call",
	FunctionCall: "function_call", ToolLabel: "tool:",
	ToolCallsBegin: "tool_calls_begin", ToolCallsEnd: "tool_calls_end",
	ToolCallBegin: "tool_call_begin", ToolCallEnd: "tool_call_end", ToolSep: "tool_sep",
	SectionBegin: "tool_calls_section_begin", SectionEnd: "tool_calls_section_end",
	ArgumentBegin: "tool_call_argument_begin",
	HarmonyStart:  "start", HarmonyChannel: "channel", HarmonyMessage: "message",
	HarmonyConstrain: "constrain", HarmonyCall: "call", HarmonyEnd: "end", HarmonyReturn: "return",
	PythonTag: "python_tag", EndOfMessage: "eom_id",
	MistralToolCalls: "TOOL_CALLS", MistralArgs: "ARGS", MistralCallID: "CALL_ID",
	ToolCallToken: "tool_call", FunctionCallToken: "function_call", ActionStart: "action_start",
	Plugin: "plugin", ActionEnd: "action_end", ToolsPrefix: "tools_prefix", ToolsSuffix: "tools_suffix",
	MessageSep: "message_sep", RoleSep: "role_sep", EndOfMsg: "end_of_msg", ToolCallBracket: "TOOL_CALL",
	PythonStart: "python_start", PythonEnd: "python_end", ToolCallStart: "tool_call_start",
	StartAction: "start_action", EndAction: "end_action", ThoughtStart: "thought_start", ThoughtEnd: "thought_end",
	XTools: "tools", XCall: "call", XArgument: "argument", XResponse: "response", XMessage: "message",
	ToolSepTag: "tool_sep", ArgType: "arg_type", ParamKey: "param_key", ParamValue: "param_value", IQuestCall: "iquest_tool_call",
	MiniMaxSentinel: "minimax", InvokeToolJSON: "content_invoke_tool_json", InvokeToolText: "content_invoke_tool_text",
	MessageModel: "message_model", EndMessage: "end_message", ContentText: "content_text",
	ContentThinking: "content_thinking", EndSampling: "content_model_end_sampling",
	PlamoRequests: "plamo:begin_tool_requests:plamo", PlamoRequestsEnd: "plamo:end_tool_requests:plamo",
	PlamoRequest: "plamo:begin_tool_request:plamo", PlamoRequestEnd: "plamo:end_tool_request:plamo",
	PlamoName: "plamo:begin_tool_name:plamo", PlamoNameEnd: "plamo:end_tool_name:plamo",
	PlamoArgs: "plamo:begin_tool_arguments:plamo", PlamoArgsEnd: "plamo:end_tool_arguments:plamo",
	SolarCall: "tool_call:start", SolarCallEnd: "tool_call:end", SolarArg: "tool_arg:start",
	SolarValue: "tool_arg:value", SolarArgEnd: "tool_arg:end",
}

func (m Marker) String() string {
	if m < NumMarkers {
		return markerNames[m]
	}
	return "marker?"
}

// IsSpecial reports whether m is a special token rather than a tag.
func (m Marker) IsSpecial() bool { return m >= ToolCallsBegin && m < NumMarkers }

type markerEntry struct {
	m     Marker
	alias bool // a variant spelling: reported as a marker_variant repair
	upper bool // the canonical spelling is upper case (<TOOLCALL>, <|START_ACTION|>)
}

// tagNames maps lower-case tag names (after the namespace or DSML prefix is
// removed and `-` folded to `_`) to markers.
var tagNames = map[string]markerEntry{
	"function_calls":      {m: FunctionCalls},
	"functioncalls":       {m: FunctionCalls, alias: true},
	"tool_calls":          {m: ToolCalls},
	"toolcalls":           {m: ToolCalls, alias: true},
	"tools_call":          {m: ToolCalls, alias: true}, // a misplaced `s` (`toolscall`)
	"calls":               {m: ToolCalls},
	"invoke":              {m: Invoke},
	"parameter":           {m: Parameter},
	"param":               {m: Parameter, alias: true},
	"invoke_arg":          {m: Parameter, alias: true},
	"tool_call":           {m: ToolCall},
	"toolcall":            {m: Toolcall, upper: true},
	"tool_use":            {m: ToolUse},
	"function":            {m: Function},
	"arg_key":             {m: ArgKey},
	"arg_value":           {m: ArgValue},
	"invoke_tool_call":    {m: InvokeToolCall},
	"tool":                {m: Tool},
	"think":               {m: Think},
	"thinking":            {m: Think, alias: true},
	"longcat_think":       {m: Think},
	"longcat_tool_call":   {m: LongcatToolCall},
	"longcat_arg_key":     {m: ArgKey}, // longcat_kv writes glm's key/value elements under its prefix
	"longcat_arg_value":   {m: ArgValue},
	"function_call":       {m: FunctionCall},
	"start_function_call": {m: StartFunctionCall},
	"end_function_call":   {m: EndFunctionCall},
	"tools":               {m: Tools},
	"dots_function_call":  {m: DotsFunctionCall},
	"tool_sep":            {m: ToolSepTag},
	"arg_type":            {m: ArgType},
	"param_key":           {m: ParamKey},
	"param_value":         {m: ParamValue},
	"iquest_tool_call":    {m: IQuestCall},
	"tool:":               {m: ToolLabel}, // `<tool: function>`: the name's colon, then the label as an attribute
}

// specialNames maps lower-case special-token names (`▁` and `-` folded to
// `_`) to markers. Bracket tokens ([TOOL_CALLS]) are looked up in upper case.
var specialNames = map[string]markerEntry{
	"tool_calls_begin":                 {m: ToolCallsBegin},
	"tool_calls_end":                   {m: ToolCallsEnd},
	"tool_call_begin":                  {m: ToolCallBegin},
	"tool_call_end":                    {m: ToolCallEnd},
	"tool_sep":                         {m: ToolSep},
	"tool_calls_section_begin":         {m: SectionBegin},
	"tool_call_section_begin":          {m: SectionBegin, alias: true},
	"tool_calls_section_end":           {m: SectionEnd},
	"tool_call_section_end":            {m: SectionEnd, alias: true},
	"tool_call_argument_begin":         {m: ArgumentBegin},
	"start":                            {m: HarmonyStart},
	"channel":                          {m: HarmonyChannel},
	"message":                          {m: HarmonyMessage},
	"constrain":                        {m: HarmonyConstrain},
	"call":                             {m: HarmonyCall},
	"end":                              {m: HarmonyEnd},
	"return":                           {m: HarmonyReturn},
	"python_tag":                       {m: PythonTag},
	"eom_id":                           {m: EndOfMessage},
	"eot_id":                           {m: EndOfMessage},
	"TOOL_CALLS":                       {m: MistralToolCalls},
	"ARGS":                             {m: MistralArgs},
	"CALL_ID":                          {m: MistralCallID},
	"tool_call":                        {m: ToolCallToken},
	"function_call":                    {m: FunctionCallToken},
	"action_start":                     {m: ActionStart},
	"plugin":                           {m: Plugin},
	"action_end":                       {m: ActionEnd},
	"tools_prefix":                     {m: ToolsPrefix},
	"tools_suffix":                     {m: ToolsSuffix},
	"message_sep":                      {m: MessageSep},
	"python_start":                     {m: PythonStart},
	"python_end":                       {m: PythonEnd},
	"tool_call_start":                  {m: ToolCallStart},
	"start_action":                     {m: StartAction, upper: true},
	"end_action":                       {m: EndAction, upper: true},
	"role_sep":                         {m: RoleSep},
	"end_of_msg":                       {m: EndOfMsg},
	"TOOL_CALL":                        {m: ToolCallBracket},
	"eom":                              {m: HarmonyEnd}, // Muse Glimmer's end of a message
	"eot":                              {m: HarmonyEnd}, // and of the turn
	"content_invoke_tool_json":         {m: InvokeToolJSON},
	"content_invoke_tool_text":         {m: InvokeToolText},
	"message_model":                    {m: MessageModel},
	"end_message":                      {m: EndMessage},
	"content_text":                     {m: ContentText},
	"content_thinking":                 {m: ContentThinking},
	"content_model_end_sampling":       {m: EndSampling},
	"plamo:begin_tool_requests:plamo":  {m: PlamoRequests},
	"plamo:end_tool_requests:plamo":    {m: PlamoRequestsEnd},
	"plamo:begin_tool_request:plamo":   {m: PlamoRequest},
	"plamo:end_tool_request:plamo":     {m: PlamoRequestEnd},
	"plamo:begin_tool_name:plamo":      {m: PlamoName},
	"plamo:end_tool_name:plamo":        {m: PlamoNameEnd},
	"plamo:begin_tool_arguments:plamo": {m: PlamoArgs},
	"plamo:end_tool_arguments:plamo":   {m: PlamoArgsEnd},
	"tool_call:start":                  {m: SolarCall},
	"tool_call:end":                    {m: SolarCallEnd},
	"tool_arg:start":                   {m: SolarArg},
	"tool_arg:value":                   {m: SolarValue},
	"tool_arg:end":                     {m: SolarArgEnd},
	"thought_start":                    {m: ThoughtStart},
	"thought_end":                      {m: ThoughtEnd},
}

// sentinelNames maps the names of sentinel tokens (`<]minimax[>[`) met
// alone, not before a tag, to markers.
var sentinelNames = map[string]markerEntry{
	"minimax": {m: MiniMaxSentinel},
}

// halfBarNames maps the names of half-bar tags (<|name>, <name|>: Gemma's
// spelling of an element's opener and closer) to markers.
var halfBarNames = map[string]markerEntry{
	"tool_call": {m: GemmaToolCall},
	"channel":   {m: Think},
}

// xtmlNames maps the lower-case names of XTML tags (Kimi K3: the name
// between <|open|> or <|close|> and <|sep|>) to markers. They are looked
// up apart from tagNames: a plain <tools> or <call> is no marker.
var xtmlNames = map[string]markerEntry{
	"tools":    {m: XTools},
	"call":     {m: XCall},
	"argument": {m: XArgument},
	"response": {m: XResponse},
	"message":  {m: XMessage},
	"think":    {m: Think},
	// `<|open|>toolscall tool="N"`: the wrapper's opener run into the
	// call's, `<|sep|><|open|>` lost between them: the call's opener.
	"toolscall": {m: XCall, alias: true},
}

// MaxNameLen bounds tag and token names; longer names are not markers.
const MaxNameLen = 64

// keyShapes holds, for each first byte of a lookup key, a bit for each key
// length (up to 63) that some name of the tables has: a name without its
// bit is in no table, and is told Unknown without a map look-up. It is
// filled once the tables are complete (fused.go).
var keyShapes [256]uint64

// addShapes notes the shapes of the names of table in keyShapes.
func addShapes(table map[string]markerEntry) {
	for k := range table {
		keyShapes[k[0]] |= 1 << min(len(k), 63)
	}
}

// mayBeName reports whether a lookup key may be in one of the tables.
func mayBeName(key []byte) bool {
	return len(key) > 0 && keyShapes[key[0]]&(1<<min(len(key), 63)) != 0
}
