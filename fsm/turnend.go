package fsm

import (
	"bytes"

	"github.com/toolsieve/toolsieve/lexer"
)

// A chat template's end-of-turn token left after a recovered call:
//
//	```json
//	{"name": "read_file", "arguments": {"path": "/etc/hosts"}}
//	```<|im_end|>
//
// No dialect owns ChatML's <|im_end|> (nor the <|endoftext|> and
// <|end_of_text|> of base models): a server that did not read the call
// passes the token on with it, and the user is shown it after the call.
// Right after a call, with only whitespace and discarded markup between
// (the leftovers sink tracks it, leftover.go), such a token is the end of
// the answer's markup and is discarded as a stray token. Elsewhere it
// stays text: a rendered prompt, a chat transcript or a sentence that
// names it (mention.go) is shown as written; in code it is text anyway.
// A bare fence line the token ends (```<|im_end|>) closes its fence, as
// the line's end would: a fence opener's info string is a word.

// turnEnds are the names of the end-of-turn tokens, as the lexer reads
// them (<|im_end|>: `im_end`).
var turnEnds = [][]byte{[]byte("im_end"), []byte("endoftext"), []byte("end_of_text")}

// turnEnd reports whether special token t, met in text, is an end-of-turn
// token no dialect owns right after a recovered call.
func (m *Machine) turnEnd(t *lexer.Token) bool {
	if t.Marker != lexer.Unknown || !m.left.called || !m.left.blank || !isTurnEnd(t.Name) {
		return false
	}
	if m.code == codeFence && m.fence.line > 0 {
		m.fenceLineSettles() // ```<|im_end|>: the fence line is its closer, not an opener inside it
	}
	return m.code == codeNone
}

func isTurnEnd(name []byte) bool {
	for _, n := range turnEnds {
		if bytes.Equal(name, n) {
			return true
		}
	}
	return false
}
