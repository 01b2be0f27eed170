package lexer

// PlainRun serves callers that take most triggers as content (an argument's
// value, a JSON string): it finds the bytes the recognizer rejects at once,
// without feeding them to a Lexer.

// ltFails marks the ASCII bytes on which the recognizer fails a candidate
// `<` at once; ltSpaceFails the same after `< `; bracketFails the same
// after `[NAME` or `[/NAME`, and openFails and slashFails after `[` and
// `[/`. They are read off the recognizer itself.
var ltFails, ltSpaceFails, bracketFails, openFails, slashFails = func() (lt, lts, br, op, sl [256]bool) {
	for c := range byte(0x80) {
		lt[c] = failsAfter("<", c)
		lts[c] = failsAfter("< ", c)
		br[c] = failsAfter("[A", c) && failsAfter("[/A", c)
		op[c] = failsAfter("[", c)
		sl[c] = failsAfter("[/", c)
	}
	return
}()

// failsAfter reports whether a fresh recognizer, given prefix (a possible
// marker's start), fails at byte c.
func failsAfter(prefix string, c byte) bool {
	var r recognizer
	r.reset(false)
	for i := range len(prefix) {
		r.step(prefix[i])
	}
	return r.step(c) == fail
}

// bracketEnd returns where the name of a bracket token `[NAME]` or
// `[/NAME]` that may begin at p[j] ends: after an optional slash, upper
// case letters, '_' and digits (not first), at most MaxNameLen of them, as
// the recognizer's stBracket takes them.
func bracketEnd(p []byte, j int) int {
	if j < len(p) && p[j] == '/' {
		j++
	}
	k := j
	for k < len(p) && k-j < MaxNameLen {
		c := p[k]
		if !('A' <= c && c <= 'Z' || c == '_' || k > j && '0' <= c && c <= '9') {
			break
		}
		k++
	}
	return k
}

// PlainRun returns the length of the longest prefix of p that an idle
// Lexer returns as text and backtick runs: every '<' and '[' in it is one
// the bytes after it in p show is no marker, and it does not end inside a
// UTF-8 sequence. Backtick runs inside it count too, but not one that
// ends p: the Lexer holds that one back until it sees where the run ends,
// and so must a caller that streams what it takes (FuzzShortPaths found a
// value's trailing backtick streamed before the long way had it).
func PlainRun(p []byte) int {
	for i := nextTrigger(p, 0); i < len(p); i = nextTrigger(p, i) {
		if p[i] == '`' {
			j := i + 1
			for j < len(p) && p[j] == '`' {
				j++
			}
			if j == len(p) {
				return i
			}
			i = j
			continue
		}
		k := rejectedAt(p, i) // prefilter.go
		if k < 0 {
			return i
		}
		i = k // p[k] is looked at again: it may be a trigger
	}
	return CompleteUTF8(p)
}
