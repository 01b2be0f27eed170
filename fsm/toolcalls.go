package fsm

import "encoding/json"

// Models that were trained on the OpenAI message format sometimes write it
// into the content: `{"tool_calls": [{"type": "function", "function":
// {"name": N, "arguments": "{\"k\": 1}"}}]}`, or flattened, `{"tool_calls":
// [{"name": N, "arguments": {..}}]}`. Such an object is a JSON body like
// any other (the json dialect's, in text), holding an array of call
// objects. The probe that looks for a call's name in text follows the two
// containers on the way: the "tool_calls" array of the outer object, and
// a call object's "function" object ("toolCalls" in JavaScript clients'
// spelling is the same array).

// nest is the set of containers a probe has entered.
type nest uint8

const (
	nestTop      nest = 1 << iota // the body is an object, and the probe reads its members
	nestList                      // the "tool_calls" array of the outer object
	nestFunction                  // a call object's "function" object
)

// enters reports whether byte c, where a string value was expected, opens
// a container that holds the call object or its name; the probe then reads
// on inside it.
func (p *probe) enters(c byte) bool {
	key := string(p.key[:p.nkey])
	switch {
	case c == '[' && (key == "tool_calls" || key == "toolCalls") && p.nest == nestTop:
		p.nest = nestList
		p.py = false // the array holds call objects
		p.state = pList
	case c == '{' && key == "function" && p.nest&nestFunction == 0:
		p.nest |= nestFunction
		p.state = pKeyQuote
	default:
		return false
	}
	return true
}

// toolCallsOf returns the array of call objects of an object whose
// "tool_calls" member is one, else nil.
func toolCallsOf(obj []byte) []byte {
	if len(obj) == 0 || obj[0] != '{' {
		return nil
	}
	var o struct {
		ToolCalls json.RawMessage `json:"tool_calls"`
		Camel     json.RawMessage `json:"toolCalls"` // JavaScript clients' spelling
	}
	if json.Unmarshal(obj, &o) != nil {
		return nil
	}
	if len(o.ToolCalls) == 0 {
		o.ToolCalls = o.Camel
	}
	if len(o.ToolCalls) == 0 || o.ToolCalls[0] != '[' {
		return nil
	}
	return o.ToolCalls
}

// isScalarByte reports whether c may be part of a JSON number or literal.
func isScalarByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'E'
}
