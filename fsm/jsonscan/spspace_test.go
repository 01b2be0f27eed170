package jsonscan

import "testing"

// TestSentencePieceSpaces: a U+2581 where whitespace belongs reads as a
// space at every split; once one did, those in strings do too; one in a
// string of a body written with spaces stays, and so does another
// character that shares its first byte.
func TestSentencePieceSpaces(t *testing.T) {
	runCases(t, []scanCase{
		{name: "between tokens", in: "▁{\"a\":▁1,▁\"b\":▁[2,▁3]}", out: `{"a": 1, "b": [2, 3]}`, n: all, done: true},
		{name: "in strings once one stood between tokens", in: "{\"a\":▁\"New▁York\"}", out: `{"a": "New York"}`, n: all, done: true},
		{name: "another character of the same lead byte stays", in: "{\"a\":▁\"x—y▁z\"}", out: `{"a": "x—y z"}`, n: all, done: true},
		{name: "in a string of a body with spaces it stays", in: "{\"a\": \"New▁York\"}", out: "{\"a\": \"New▁York\"}", n: all, done: true},
		// The lead byte was taken as the start of a space: the error is at
		// the byte after it.
		{name: "another character where whitespace belongs fails", in: "{\"a\":—1}", n: 6, fail: true, out: `{}`, tr: true},
	})
}
