package fsm

import "github.com/toolsieve/toolsieve/lexer"

// A special token named in a sentence is text. Models write their end
// tokens right after their last word (`done.<|eot_id|>`) or on a line of
// their own; a token after a space in the middle of a line (`the standard
// <|eot_id|> ends the turn`) is prose that talks about it, and dropping it
// would change what the sentence says.

// mentioned reports whether the stray special token t stands after a
// space inside a line of text: a mention, kept as text.
func (m *Machine) mentioned(t *lexer.Token) bool {
	return (m.prev == ' ' || m.prev == '\t') && !t.Has(lexer.LineStart) && !t.Has(lexer.Closing)
}
