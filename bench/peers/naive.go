package peers

import (
	"bytes"
	"encoding/json"
	"regexp"
)

// The patterns of the seed 000 design ("lenient-parser.ts"), translated from
// JavaScript to Go's RE2 syntax: the JS flags become inline flags (s: dot
// matches newline, i: case-insensitive); without the m flag `$` is the end of
// the text in both.
var (
	naiveStandard   = regexp.MustCompile(`(?s)<invoke\s+name=["']([^"']+)["'][^>]*>(.*?)</invoke>`)
	naiveUnclosed   = regexp.MustCompile(`(?s)<invoke\s+name=["']([^"']+)["'][^>]*>([^<]*?)(?:inv|</inv|$)`)
	naiveBlockStart = regexp.MustCompile(`(?i)<function_calls>`)
	naiveBlock      = regexp.MustCompile(`(?i)<function_calls>([\s\S]*?)(?:</function_calls>|invfunction_calls>|$)`)
	naiveJSON       = regexp.MustCompile(`\{[\s\S]*\}`)
	naiveStrip      = regexp.MustCompile(`(?i)<function_calls>[\s\S]*?(?:</function_calls>|invfunction_calls>|$)`)
)

// NaiveCall is one call found by ParseLenient.
type NaiveCall struct {
	Name      string
	Arguments []byte // JSON, possibly repaired
}

// ParseLenient is the seed's parseLenientXmlToolCalls over a whole text: no
// <function_calls> means no calls; otherwise the content of the (possibly
// unclosed) block is searched with the standard invoke pattern, then with
// the "unclosed" one, and each call's JSON is cut out and repaired. lenient
// reports that the unclosed pattern was used.
func ParseLenient(text []byte) (calls []NaiveCall, lenient bool) {
	if !naiveBlockStart.Match(text) {
		return nil, false
	}
	content := text
	if m := naiveBlock.FindSubmatch(text); m != nil {
		content = m[1]
	}
	matches := naiveStandard.FindAllSubmatch(content, -1)
	if len(matches) == 0 {
		matches = naiveUnclosed.FindAllSubmatch(content, -1)
		lenient = len(matches) > 0
	}
	for _, m := range matches {
		args := m[2]
		if j := naiveJSON.Find(args); j != nil {
			args = j
		}
		calls = append(calls, NaiveCall{Name: string(bytes.TrimSpace(m[1])), Arguments: fixIncompleteJSON(args)})
	}
	return calls, lenient
}

// fixIncompleteJSON is the seed's fixIncompleteJson: valid JSON is kept;
// otherwise missing ']' and '}' are appended by counting, then a '"' if the
// quotes are odd, and the result is kept only if it is valid.
func fixIncompleteJSON(js []byte) []byte {
	if json.Valid(js) {
		return js
	}
	openBraces := bytes.Count(js, []byte("{"))
	closeBraces := bytes.Count(js, []byte("}"))
	openBrackets := bytes.Count(js, []byte("["))
	closeBrackets := bytes.Count(js, []byte("]"))
	fixed := append([]byte(nil), bytes.TrimSpace(js)...)
	for i := 0; i < openBrackets-closeBrackets; i++ {
		fixed = append(fixed, ']')
	}
	for i := 0; i < openBraces-closeBraces; i++ {
		fixed = append(fixed, '}')
	}
	if bytes.Count(fixed, []byte(`"`))%2 != 0 {
		fixed = append(fixed, '"')
	}
	if json.Valid(fixed) {
		return fixed
	}
	return js
}

// Naive is the classic rescanning stream parser built on ParseLenient: every
// Feed appends the chunk to everything received so far and re-runs the whole
// regex pass over it.
//
// Calls found by the standard pattern (their </invoke> has arrived) are
// passed on as soon as they appear; lenient ones only at Close. Text is not
// passed on as deltas but, as in the seed's Task.ts, as the whole visible
// text of the message, re-derived each time: the accumulated text itself
// when no call was found, otherwise what is left once the seed's
// extractTextFromXml pattern has removed the blocks (without the final
// trim).
type Naive struct {
	acc     []byte
	emitted int // calls passed on
}

// Feed consumes the next chunk and returns the visible text of the whole
// stream so far (valid until the next call) and the new calls.
func (n *Naive) Feed(chunk []byte) (view []byte, calls []NaiveCall) {
	n.acc = append(n.acc, chunk...)
	return n.pass(false)
}

// Close ends the stream: calls still open are passed on as the lenient
// pattern recovers them.
func (n *Naive) Close() (view []byte, calls []NaiveCall) {
	return n.pass(true)
}

func (n *Naive) pass(final bool) (view []byte, calls []NaiveCall) {
	all, lenient := ParseLenient(n.acc)
	if (final || !lenient) && len(all) > n.emitted {
		calls = all[n.emitted:]
		n.emitted = len(all)
	}
	view = n.acc
	if len(all) > 0 {
		view = naiveStrip.ReplaceAll(n.acc, nil)
	}
	return view, calls
}
