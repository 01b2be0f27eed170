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
