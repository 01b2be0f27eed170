package fsm

import "github.com/toolsieve/toolsieve/lexer"

// Dialect names, as reported in tool_call events.
const (
	Anthropic      = "anthropic"
	DSML           = "dsml"
	MiniMax        = "minimax"
	Qwen3Coder     = "qwen3_coder"
	Hermes         = "hermes"
	GLM            = "glm"
	InvokeToolCall = "invoke_tool_call"
	ToolTag        = "tool_tag"
	DeepSeekV3     = "deepseek_v3"
	DeepSeekV31    = "deepseek_v31"
	KimiK2         = "kimi_k2"
	Harmony        = "harmony"
	Mistral        = "mistral"
	Llama3         = "llama3"
	JSON           = "json"
)

// AllDialects lists every dialect the machine knows.
var AllDialects = []string{Anthropic, DSML, MiniMax, Qwen3Coder, Hermes, GLM, InvokeToolCall,
	ToolTag, DeepSeekV3, DeepSeekV31, KimiK2, Harmony, Mistral, Llama3, JSON}

// family is one block grammar shared by several dialects: which element
// holds a call, where its name comes from, and how arguments are written.
// Adding a dialect that reuses a grammar means adding a table entry.
type family uint8

const (
	famNone     family = iota
	famInvoke          // <wrapper><invoke name=N><parameter name=K>V</parameter></invoke></wrapper> (anthropic, dsml, minimax)
	famToolCall        // <tool_call> whose content decides: qwen3_coder, hermes or glm
	famQwen            // <tool_call><function=N><parameter=K>\nV\n</parameter></function></tool_call>
	famHermes          // <tool_call>{"name":N,"arguments":{..}}</tool_call>
	famGLM             // <tool_call>N<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>
	famITC             // <invoke_tool_call><tool name=N args="{..}"/></invoke_tool_call>
	famToolTag         // <N><K>V</K></N> for a declared tool N
	famToken           // special tokens: deepseek_v3, deepseek_v31, kimi_k2
	famMistral         // [TOOL_CALLS]N[ARGS]{..} or [TOOL_CALLS][{"name":N,"arguments":{..}}]
	famLlama           // <|python_tag|>{"name":N,"parameters":{..}}; {..}
	famHarmony         // <|start|>assistant<|channel|>commentary to=functions.N<|message|>{..}<|call|>
	famJSON            // {"name":N,"arguments":{..}} in text, for a declared N
)

// grammar describes a family's elements.
type grammar struct {
	call     lexer.Marker // element that holds one call (Unknown: the block is the call)
	param    lexer.Marker // element that holds one argument
	trimNL   bool         // one leading and one trailing newline of a value are markup
	jsonBody bool         // the call element may hold a JSON object instead of params
}

var grammars = [...]grammar{
	famInvoke:   {call: lexer.Invoke, param: lexer.Parameter, jsonBody: true},
	famQwen:     {call: lexer.Function, param: lexer.Parameter, trimNL: true},
	famHermes:   {jsonBody: true},
	famGLM:      {param: lexer.ArgValue},
	famITC:      {call: lexer.Tool},
	famToolTag:  {trimNL: true},
	famToolCall: {},
	famNone:     {},
	famToken:    {call: lexer.ToolCallBegin, jsonBody: true},
	famMistral:  {jsonBody: true},
	famLlama:    {jsonBody: true},
	famHarmony:  {jsonBody: true},
	famJSON:     {jsonBody: true},
}

// blockMarkers are the wrapper elements and the family each one opens.
var blockMarkers = map[lexer.Marker]family{
	lexer.FunctionCalls:  famInvoke,
	lexer.ToolCalls:      famInvoke,
	lexer.ToolCall:       famToolCall,
	lexer.ToolUse:        famHermes,
	lexer.InvokeToolCall: famITC,
}

// structural lists the tag markers that are tool-call markup in any
// dialect: a stray closer of one of them is discarded, not kept as text.
var structural = map[lexer.Marker]bool{
	lexer.FunctionCalls: true, lexer.ToolCalls: true, lexer.Invoke: true, lexer.Parameter: true,
	lexer.ToolCall: true, lexer.ToolUse: true, lexer.Function: true, lexer.ArgKey: true,
	lexer.ArgValue: true, lexer.InvokeToolCall: true,
}

// dialectOf names the dialect of a call in family f opened by token t.
func dialectOf(f family, blockTok, callTok markerInfo) string {
	switch f {
	case famInvoke:
		switch {
		case blockTok.dsml || callTok.dsml:
			return DSML
		case blockTok.minimax:
			return MiniMax
		}
		return Anthropic
	case famQwen:
		return Qwen3Coder
	case famHermes:
		return Hermes
	case famGLM:
		return GLM
	case famITC:
		return InvokeToolCall
	case famToolTag:
		return ToolTag
	case famMistral:
		return Mistral
	case famLlama:
		return Llama3
	case famHarmony:
		return Harmony
	case famJSON:
		return JSON
	}
	return ""
}

// markerInfo is what the machine keeps of an opener after its token is gone.
type markerInfo struct {
	marker  lexer.Marker
	dsml    bool
	minimax bool
	variant bool
}

func infoOf(t *lexer.Token) markerInfo {
	return markerInfo{
		marker:  t.Marker,
		dsml:    t.Has(lexer.DSML),
		minimax: string(t.NS) == "minimax",
		variant: t.Flags&lexer.Variant != 0 || t.Has(lexer.DSML) && t.Has(lexer.ASCIIBar),
	}
}

// corruptClosers are names whose closer real models misspell without its
// `</` (`invfunction_calls>`); the machine looks for them before a '>'
// inside markup.
var corruptClosers = []struct {
	name   string
	marker lexer.Marker
}{
	{"function_calls", lexer.FunctionCalls},
	{"tool_calls", lexer.ToolCalls},
	{"invoke_tool_call", lexer.InvokeToolCall},
	{"tool_call", lexer.ToolCall},
	{"invoke", lexer.Invoke},
	{"parameter", lexer.Parameter},
	{"function", lexer.Function},
}
