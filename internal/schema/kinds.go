package schema

// The kinds of JSON values the typer tells apart.

import (
	"bytes"

	"github.com/toolsieve/toolsieve/internal/jsonspan"
)

// trimSpace trims JSON whitespace and \v, \f from both ends of b.
func trimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isTrimSpace(b[i]) {
		i++
	}
	for j > i && isTrimSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

func isTrimSpace(c byte) bool { return jsonspan.IsSpace(c) || c == '\v' || c == '\f' }

// jsonKind returns the kind of a valid JSON value.
func jsonKind(v []byte) kindSet {
	switch v[0] {
	case '{':
		return kObj
	case '[':
		return kArr
	case '"':
		return kStr
	case 't', 'f':
		return kBool
	case 'n':
		return kNull
	}
	if bytes.ContainsAny(v, ".eE") {
		return kNum
	}
	return kInt
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
