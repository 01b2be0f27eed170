package chat

import "github.com/toolsieve/toolsieve/internal/jsonspan"

// ChoiceMode is what a request's tool_choice asks of the answer.
type ChoiceMode uint8

// Tool choice modes, the same in every API.
const (
	// ChoiceAuto: the model decides (also when tool_choice is absent or
	// not understood).
	ChoiceAuto ChoiceMode = iota
	// ChoiceNone: no call ("none"; Anthropic {"type":"none"}).
	ChoiceNone
	// ChoiceRequired: at least one call ("required"; Anthropic
	// {"type":"any"}).
	ChoiceRequired
	// ChoiceTool: a call to the tool named (OpenAI {"type":"function",
	// "function":{"name":...}}, Responses {"type":"function","name":...},
	// Anthropic {"type":"tool","name":...}).
	ChoiceTool
)

func (m ChoiceMode) String() string {
	return [...]string{"auto", "none", "required", "tool"}[m]
}

// ToolChoice is a request's tool_choice, read the same way in every API.
type ToolChoice struct {
	Mode ChoiceMode
	Name string // the tool of ChoiceTool
}

// readToolChoice reads tool_choice and parallel_tool_calls from a request
// body whose top-level members are ms.
func readToolChoice(body []byte, ms []jsonspan.Member) (tc ToolChoice, noParallel bool) {
	if m, ok := jsonspan.Lookup(body, ms, "parallel_tool_calls"); ok && string(body[m.Start:m.End]) == "false" {
		noParallel = true
	}
	m, ok := jsonspan.Lookup(body, ms, "tool_choice")
	if !ok {
		return tc, noParallel
	}
	str := func(v jsonspan.Member) string {
		if !jsonspan.IsString(body, v) {
			return ""
		}
		return string(jsonspan.AppendUnquoted(nil, body[v.Start:v.End]))
	}
	if jsonspan.IsString(body, m) {
		switch str(m) {
		case "none":
			tc.Mode = ChoiceNone
		case "required", "any":
			tc.Mode = ChoiceRequired
		}
		return tc, noParallel
	}
	cms, ok := jsonspan.Members(body, m.Start, nil)
	if !ok {
		return tc, noParallel
	}
	if d, ok := jsonspan.Lookup(body, cms, "disable_parallel_tool_use"); ok && string(body[d.Start:d.End]) == "true" {
		noParallel = true
	}
	t, _ := jsonspan.Lookup(body, cms, "type")
	switch str(t) {
	case "none":
		tc.Mode = ChoiceNone
	case "any", "required":
		tc.Mode = ChoiceRequired
	case "tool", "function":
		name := ""
		if n, ok := jsonspan.Lookup(body, cms, "name"); ok {
			name = str(n)
		} else if f, ok := jsonspan.Lookup(body, cms, "function"); ok {
			if fms, ok := jsonspan.Members(body, f.Start, nil); ok {
				if n, ok := jsonspan.Lookup(body, fms, "name"); ok {
					name = str(n)
				}
			}
		}
		if name != "" {
			tc = ToolChoice{Mode: ChoiceTool, Name: name}
		}
	}
	return tc, noParallel
}
