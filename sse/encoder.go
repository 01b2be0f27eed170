package sse

import "github.com/toolsieve/toolsieve/internal/swar"

// AppendEvent appends one event block to dst and returns the extended
// slice: "event: typ\n" (left out when typ is ""), then one "data: line\n"
// per line of data, then the blank line "\n".
//
// Data is split into lines at LF, CR and CRLF, the line ends of the
// format; the decoder joins data lines with LF, so a CR or CRLF in data
// comes back as LF. Empty data gives one empty data line, which decodes to
// empty data. CR and LF bytes in typ are dropped, as they would end the
// line. Nothing is allocated when dst has room.
func AppendEvent(dst []byte, typ string, data []byte) []byte {
	if typ != "" {
		dst = append(dst, "event: "...)
		dst = appendNoEOL(dst, typ)
		dst = append(dst, '\n')
	}
	dst = appendLines(dst, "data: ", data)
	return append(dst, '\n')
}

// AppendComment appends a comment-only block to dst: one ": line\n" per
// line of text (split like data in AppendEvent; a lone ":\n" for empty
// text), then the blank line "\n". Such blocks are ignored by clients and
// are typically used as keep-alives.
func AppendComment(dst []byte, text string) []byte {
	if text == "" {
		return append(dst, ":\n\n"...)
	}
	dst = appendLines(dst, ": ", text)
	return append(dst, '\n')
}

// appendLines appends prefix+line+"\n" for each line of s.
func appendLines[T string | []byte](dst []byte, prefix string, s T) []byte {
	start := 0
	for i := nextEOL(s, 0); i < len(s); i = nextEOL(s, start) {
		dst = append(dst, prefix...)
		dst = append(dst, s[start:i]...)
		dst = append(dst, '\n')
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		start = i + 1
	}
	dst = append(dst, prefix...)
	dst = append(dst, s[start:]...)
	return append(dst, '\n')
}

// nextEOL returns the index of the first CR or LF of s from i on, or
// len(s). It tests eight bytes at a time for either (an event's data,
// JSON, seldom has one), then finds the byte.
func nextEOL[T string | []byte](s T, i int) int {
	for ; i+8 <= len(s); i += 8 {
		if x := swar.Load64(s, i); swar.ZeroBytes(x^('\n'*swar.Ones))|swar.ZeroBytes(x^('\r'*swar.Ones)) != 0 {
			break
		}
	}
	for i < len(s) && s[i] != '\n' && s[i] != '\r' {
		i++
	}
	return i
}

func appendNoEOL(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '\n' && c != '\r' {
			dst = append(dst, c)
		}
	}
	return dst
}
