package fsm

// A call id is not a tool name. Models that lost the name of a call write
// the id they were shown in its place (kimi's `call_59adf5614cfe4f4b8a71be54`
// where `functions.NAME:IDX` belongs): run under that name, the call would
// go to a tool nobody declared, with arguments meant for another. A name in
// the shape of an id (a known id prefix, then at least 16 letters and
// digits, nothing else) is no name: the call is then kept as text with an
// error, as every call without a name.

// idPrefixes start the call ids of the chat APIs (OpenAI `call_`,
// Anthropic `toolu_`, `call-`, `chatcmpl-tool-`).
var idPrefixes = [...]string{"call_", "call-", "toolu_", "chatcmpl-tool-"}

// isCallID reports whether name is written as a call id.
func isCallID(name []byte) bool {
	for _, p := range idPrefixes {
		if len(name) < len(p)+16 || string(name[:len(p)]) != p {
			continue
		}
		for _, c := range name[len(p):] {
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
				return false
			}
		}
		return true
	}
	return false
}

// underscoreID reads kimi's call id written with underscores
// (`functions_NAME_IDX` for `functions.NAME:IDX`): the name between the
// prefix and the index, when that name is a declared tool and the whole is
// not. Anything else (an undeclared name, no index, a declared tool whose
// own name starts with `functions_`) gives nil: the header stays as written.
func underscoreID(header []byte, declared func([]byte) bool) []byte {
	const prefix = "functions_"
	if len(header) <= len(prefix) || string(header[:len(prefix)]) != prefix || declared(header) {
		return nil
	}
	i := len(header)
	for i > len(prefix) && '0' <= header[i-1] && header[i-1] <= '9' {
		i--
	}
	if i == len(header) || i <= len(prefix) || header[i-1] != '_' {
		return nil // no index, or nothing but an index after the prefix
	}
	if name := header[len(prefix) : i-1]; len(name) > 0 && declared(name) {
		return name
	}
	return nil
}
