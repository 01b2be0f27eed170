package fsm

// SentencePiece models write a space as `▁` (U+2581); a server that does
// not map it back passes it through, between a marker and the call's
// body (`[TOOL_CALLS]▁[{"name":▁"f"..`) and inside the body. Where
// whitespace may stand before a call's header or body, `▁` counts as
// whitespace; the JSON scanner reads it as whitespace between tokens and,
// once it did, writes the body's `▁` as spaces (jsonscan). The call
// carries marker_variant. A `▁` elsewhere (in prose, in a value of a call
// written with spaces) is left as it is.

// spSpace is the UTF-8 encoding of U+2581.
const spSpace = "\u2581"

// firstNonBlank is firstNonSpace that also passes `▁`.
func firstNonBlank(b []byte) int {
	for i := 0; i < len(b); i++ {
		switch {
		case isSpace(b[i]):
		case spAt(b, i):
			i += len(spSpace) - 1
		default:
			return i
		}
	}
	return -1
}

// spAt reports whether a `▁` starts at b[i].
func spAt(b []byte, i int) bool {
	return b[i] == spSpace[0] && len(b)-i >= len(spSpace) && string(b[i:i+len(spSpace)]) == spSpace
}
