package fsm

import (
	"bytes"
	"encoding/json"
)

// Models sometimes encode a call's JSON arguments twice: the body is a JSON
// string whose content is the arguments object
// (`<|tool_call_argument_begin|>"{\"todos\": [..]}"`). Such a string is
// decoded once; when its content is a JSON object, that object is the
// call's arguments, with json_repaired. A string holding anything else is
// no arguments (the call is then unread, as before).

// decodeTwice returns the object that args, a JSON string, encodes, or nil.
func decodeTwice(args []byte) []byte {
	a := bytes.TrimSpace(args)
	if len(a) < 2 || a[0] != '"' {
		return nil
	}
	var s string
	if json.Unmarshal(a, &s) != nil {
		return nil
	}
	inner := bytes.TrimSpace([]byte(s))
	if len(inner) == 0 || inner[0] != '{' || !json.Valid(inner) {
		return nil
	}
	return inner
}
