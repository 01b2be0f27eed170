package jsonspan

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/toolsieve/toolsieve/internal/scanbase"
)

// TestQuoteRoundTrip: AppendQuoted gives JSON that encoding/json reads
// back, and AppendUnquoted reads both its output and encoding/json's.
func TestQuoteRoundTrip(t *testing.T) {
	for _, s := range []string{"", "a", "\"\\/\b\f\n\r\t", "\x01\x1f", "杭州🙂", "\u2028", "<&>"} {
		q := AppendQuoted(nil, s)
		var back string
		require.NoError(t, json.Unmarshal(q, &back), "%q", q)
		require.Equal(t, s, back)
		require.Equal(t, s, string(AppendUnquoted(nil, q)))
		std, _ := json.Marshal(s)
		require.Equal(t, s, string(AppendUnquoted(nil, std)))
		u, ok := Unquote(std)
		require.True(t, ok)
		require.Equal(t, s, string(u))
	}
	require.Equal(t, "\U0001F642", string(AppendUnquoted(nil, []byte(`"\ud83d\ude42"`))))
}

// TestQuoteBulk: the word-at-a-time escaping gives the same bytes as
// escaping one byte at a time (refQuote), for both modes, at every length
// and alignment around the bytes that need escapes.
func TestQuoteBulk(t *testing.T) {
	special := []string{"\"", "\\", "\n", "\x01", "\x7f", "\x80", "é", "\u2028", "\xff", "<"}
	for n := 0; n < 40; n++ {
		for _, sp := range special {
			for at := 0; at <= n; at++ {
				b := make([]byte, 0, n+len(sp))
				for i := 0; i < n; i++ {
					b = append(b, 'a'+byte(i%26))
				}
				s := string(b[:at]) + sp + string(b[at:])
				require.Equal(t, string(refQuote(s, true)), string(AppendString(nil, s)), "%q", s)
				require.Equal(t, string(refQuote(s, false)), string(AppendQuoted(nil, []byte(s))), "%q", s)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, rng.IntN(100))
		for i := range b {
			b[i] = byte(rng.IntN(256))
			if rng.IntN(2) == 0 {
				b[i] = 'a'
			}
		}
		require.Equal(t, string(refQuote(string(b), true)), string(AppendString(nil, b)), "%q", b)
		require.Equal(t, string(refQuote(string(b), false)), string(AppendQuoted(nil, b)), "%q", b)
	}
}

// TestEscapesAreScanbase: a string's body is escaped as the argument
// scanners escape string content (scanbase.AppendStrByte, the one rule):
// every ASCII byte, alone and inside a word-at-a-time run.
func TestEscapesAreScanbase(t *testing.T) {
	for c := range byte(utf8.RuneSelf) {
		want := string(scanbase.AppendStrByte(nil, c))
		require.Equal(t, want, string(AppendEscaped(nil, []byte{c})), "%q", c)
		run := []byte("abcdefghijklmnop")
		run[9] = c
		require.Equal(t, "abcdefghi"+want+"klmnop", string(AppendEscaped(nil, run)), "%q", c)
	}
}

// refQuote escapes s one byte at a time: the reference for AppendString
// (checkUTF8) and AppendQuoted.
func refQuote(s string, checkUTF8 bool) []byte {
	const hex = "0123456789abcdef"
	dst := []byte{'"'}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf || !checkUTF8 {
			switch {
			case c >= 0x20 && c != '"' && c != '\\':
				dst = append(dst, c)
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c == '\b':
				dst = append(dst, '\\', 'b')
			case c == '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, "\\ufffd"...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// TestStringScansBulk: the string scans that skip eight bytes at a time
// (Valid, SkipString, SanitizeString) agree with encoding/json and with
// one byte at a time, wherever the bytes that matter fall.
func TestStringScansBulk(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	palette := []byte{'a', 'a', 'a', 'a', '"', '\\', 'n', 'u', '0', '\x01', 0xC3, 0xA9, 0xE2, 0x80, 0xA8, 0xFF}
	for range 5000 {
		body := randFrom(rng, palette, rng.IntN(40))
		tok := append(append([]byte{'"'}, body...), '"')
		require.Equal(t, json.Valid(tok), Valid(tok), "%q", tok)
		end := -1
		for j := 1; j < len(tok); j++ {
			if tok[j] == '\\' {
				j++
			} else if tok[j] == '"' {
				end = j + 1
				break
			}
		}
		require.Equal(t, end, SkipString(tok, 0), "%q", tok)
		if json.Valid(tok) {
			got := SanitizeString(nil, tok)
			var a, b string
			require.NoError(t, json.Unmarshal(got, &a), "%q", got)
			require.NoError(t, json.Unmarshal(tok, &b))
			require.Equal(t, b, a, "%q", tok)
			require.True(t, utf8.Valid(got), "%q", got)
		}
	}
}

// TestCompactString: the one pass appends what SanitizeString does for the
// token SkipString finds, across the eight-byte steps.
func TestCompactString(t *testing.T) {
	for _, body := range []string{"", `a\"b`, `\\`, "caf\xc3\xa9 \xff x\u2028y\u2029", strings.Repeat(`ab\n\"cd`, 5) + "\xe2\x80",
		strings.Repeat("x", 15) + `\u00e9` + strings.Repeat("\xc3\xa9", 9) + `\\`} {
		for pad := range 9 {
			v := []byte(strings.Repeat(" ", pad) + `"` + body + `"` + ` ,1`)
			end := SkipString(v, pad)
			want := SanitizeString([]byte("<"), v[pad:end])
			got, gotEnd := CompactString([]byte("<"), v, pad)
			if string(got) != string(want) || gotEnd != end {
				t.Errorf("%q: got %q %d, want %q %d", v, got, gotEnd, want, end)
			}
		}
	}
}

// TestSkipPlainFollowsEndsPlain checks that the word-at-a-time SkipPlain
// stops exactly where EndsPlain, the one statement of the rule, says: for
// every byte value at every place in a word, after bytes that do not stop.
func TestSkipPlainFollowsEndsPlain(t *testing.T) {
	for c := range 256 {
		for at := range 8 {
			b := []byte("abcdefghijklmnop")
			b[at] = byte(c)
			want := len(b) // no stop: both words skipped
			if EndsPlain(byte(c)) {
				want = at
			}
			if got := SkipPlain(b, 0); got != want {
				t.Fatalf("byte %#x at %d: SkipPlain stopped at %d, want %d", c, at, got, want)
			}
		}
	}
}
