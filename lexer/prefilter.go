package lexer

// The prefilter: most triggers in code and prose begin no marker (`a < b`,
// `xs[i]`, `[]byte`, `<<EOF`, `[the docs]`). A candidate costs a
// recognizer reset, a text token for its bytes given back and a token more
// for the text after it. The prefilter makes such a trigger the first byte
// of the text run that follows it instead, when the bytes after it in the
// chunk show that the recognizer fails it at once (the tables ltFails,
// ltSpaceFails, bracketFails, openFails and slashFails are read off the
// recognizer itself, plainrun.go). A trigger it cannot decide (the chunk
// ends, a letter follows '<') takes the candidate's route as before, and a
// backtick run always does: code spans and fences are tokens. Every
// trigger still begins a token, as the fsm's text handlers expect (a label
// `[Tool Use: f]` is looked for at a token's first byte); the tokens are
// the same either way but for where text is cut.

// rejectedAt reports whether the trigger p[i] ('<', '[' or '`') is one the
// recognizer fails before it could become a marker, judging by the bytes
// after it in p: then p[i:k] is text and p[k] is to be looked at again
// (k <= len(p)); else k is -1.
func rejectedAt(p []byte, i int) int {
	switch p[i] {
	case '<':
		k := i + 1
		if k < len(p) && p[k] == ' ' {
			if k++; k < len(p) && ltSpaceFails[p[k]] {
				return k
			}
			return -1
		}
		if k < len(p) && ltFails[p[k]] {
			return k
		}
	case '[':
		k := bracketEnd(p, i+1)
		if k == len(p) {
			return -1
		}
		fails := &bracketFails // after a name
		switch {
		case k == i+1:
			fails = &openFails // `[` alone
		case k == i+2 && p[i+1] == '/':
			fails = &slashFails
		}
		if fails[p[k]] {
			return k
		}
	}
	return -1
}

// Prefilter turns the prefilter on (the default) or off: off, every
// trigger begins a candidate (the long way, which tests compare with).
func (l *Lexer) Prefilter(on bool) { l.slow = !on }

// rejected is rejectedAt in the chunk, when the prefilter is on.
func (l *Lexer) rejected(i int) int {
	if l.slow {
		return -1
	}
	return rejectedAt(l.src, i)
}
