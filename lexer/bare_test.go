package lexer

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// bare feeds s to a Bare and describes what it read: the tag, or where it
// failed.
func bare(s string, attrs bool) string {
	var b Bare
	b.Reset(attrs)
	for i := 0; i < len(s); i++ {
		switch b.Step(s[i]) {
		case BareFail:
			return "fail at " + s[i:]
		case BareDone:
			if i < len(s)-1 {
				return "done early"
			}
			return describe(b.Token([]byte(s)))
		}
	}
	return "more"
}

func TestBare(t *testing.T) {
	tests := []struct {
		in    string
		attrs bool
		want  string
	}{
		{`function_calls>`, false, `tag(function_calls,name=function_calls,raw="function_calls>")`},
		{`｜DSML｜tool_calls>`, false, `tag(tool_calls,ns=DSML,name=tool_calls,raw="｜DSML｜tool_calls>")`},
		{`invoke name="get_weather">`, true, `tag(invoke,name=invoke,name=get_weather,raw="invoke name=\"get_weather\">")`},
		{`function=get_weather>`, true, `tag(function,name=function,value=get_weather,raw="function=get_weather>")`},
		{`/invoke>`, true, "fail at /invoke>"},            // closers are read by the fsm's misspelt-closer rule
		{`invoke name="x">`, false, `fail at  name="x">`}, // a block opener carries no attributes
		{`function_calls`, false, "more"},
		{`杭州>`, false, "fail at \xad州>"}, // another script: no tag, decided at the last byte of its first character
		{`The weather is fine.`, true, "fail at is fine."},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, bare(tt.in, tt.attrs), tt.in)
	}
}

func TestFusedNames(t *testing.T) {
	tests := []struct{ in, want string }{
		{`<toolscall>`, `tag(tool_calls,variant,name=toolscall,raw="<toolscall>")`},
		{`<TOOLCALLS>`, `tag(tool_calls,variant,name=TOOLCALLS,raw="<TOOLCALLS>")`},
		{`<toolcall>`, `tag(toolcall,variant,name=toolcall,raw="<toolcall>")`}, // nemotron's own, in lower case
		{`<TOOLCALL>`, `tag(toolcall,name=TOOLCALL,raw="<TOOLCALL>")`},         // canonical
		{`<functioncall>`, `tag(function_call,variant,name=functioncall,raw="<functioncall>")`},
		{`<｜toolcallbegin｜>`, `special(tool_call_begin,variant,name=toolcallbegin,raw="<｜toolcallbegin｜>")`},
		{`[TOOLCALLS]`, `special(TOOL_CALLS,variant,name=TOOLCALLS,raw="[TOOLCALLS]")`},
	}
	for _, tt := range tests {
		assert.Equal(t, []string{tt.want}, lexAll(tt.in, nil), tt.in)
	}
	assert.Contains(t, TagNames(ToolCalls), "toolscall")
	assert.Contains(t, TagNames(ToolCalls), "tool_calls")
}
