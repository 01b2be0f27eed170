// Package scanbase holds what the three argument scanners of fsm share:
// jsonscan (JSON), loosejson (loose objects: bare keys, other quotes, a
// dialect's string delimiter) and pyscan (Python calls). Each reads its own
// grammar one byte at a time into JSON; this package says once how the
// three report a byte they cannot use, which bytes are whitespace, which
// literals they read and what JSON they write for them, and how a byte of
// string content is written as JSON.
//
// Everything here is small enough to inline or is a plain table, so that
// sharing it costs the scanners nothing (the closing notes of issue 26 give
// the instruction counts).
package scanbase

import "strconv"

// Step results: what a scanner's step did with one byte.
const (
	Consumed uint8 = iota // the byte was used
	Again                 // the state changed; look at the same byte again
	Stop                  // the byte cannot continue the value (done or failed)
)

// SyntaxError is the error a scanner's Err returns after Write met a byte
// that cannot continue what it scans.
type SyntaxError struct {
	Scanner string // the scanner's package: "jsonscan", "loosejson", "pyscan"
	Offset  int    // offset of the byte in the input since Reset
	Byte    byte   // the byte
	Where   string // where in the grammar the scanner was
}

// Error describes the byte, its offset and the grammar position.
func (e *SyntaxError) Error() string {
	return e.Scanner + ": unexpected byte " + strconv.QuoteRune(rune(e.Byte)) +
		" at offset " + strconv.Itoa(e.Offset) + " " + e.Where
}

// IsSpace reports whether c is JSON whitespace, allowed between tokens.
func IsSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t'
}

// HexVal returns the value of the hexadecimal digit c.
func HexVal(c byte) (rune, bool) {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0'), true
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10, true
	}
	return 0, false
}

// Literals the scanners read: LitSrc[i] as the input spells it (JSON's and
// Python's), LitDst[i] the JSON written for it.
const (
	LitTrue uint8 = iota
	LitFalse
	LitNull
	LitPyTrue
	LitPyFalse
	LitPyNone
)

var (
	LitSrc = [...]string{"true", "false", "null", "True", "False", "None"}
	LitDst = [...]string{"true", "false", "null", "true", "false", "null"}
)

// LitFor returns the literal whose first byte is c, if any.
func LitFor(c byte) (uint8, bool) {
	switch c {
	case 't':
		return LitTrue, true
	case 'f':
		return LitFalse, true
	case 'n':
		return LitNull, true
	case 'T':
		return LitPyTrue, true
	case 'F':
		return LitPyFalse, true
	case 'N':
		return LitPyNone, true
	}
	return 0, false
}

// CloserOf returns the byte that closes the container open ('{' or '[').
func CloserOf(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
}

// ctlEscapes holds the short JSON escapes of the control characters that
// have one.
var ctlEscapes = [0x20]byte{'\b': 'b', '\t': 't', '\n': 'n', '\f': 'f', '\r': 'r'}

const hexDigits = "0123456789abcdef"

// AppendStrByte appends c to out as the content of a JSON string: escaped
// when it is a control byte, a quote or a backslash, else as it is.
func AppendStrByte(out []byte, c byte) []byte {
	switch {
	case c < 0x20:
		if e := ctlEscapes[c]; e != 0 {
			return append(out, '\\', e)
		}
		return AppendUEscape(out, rune(c))
	case c == '"' || c == '\\':
		return append(out, '\\', c)
	}
	return append(out, c)
}

// AppendUEscape appends the JSON escape \uXXXX of r, which is below 0x10000.
func AppendUEscape(out []byte, r rune) []byte {
	return append(out, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
}
