// Package swar tests the eight bytes of a uint64 at once (SIMD within a
// register): the one statement of the word tricks the byte scanners use
// (lexer, fsm, jsonspan, repeat, sse) to find a few byte values in text
// without a test per byte. Words are little-endian: byte i of a word is
// s[i], so the lowest bit a test sets marks the first byte it matched.
package swar

import "encoding/binary"

const (
	Ones  = 0x0101010101010101 // 1 in each byte
	Highs = 0x8080808080808080 // each byte's high bit
)

// ZeroBytes is non-zero when a byte of x is zero: the high bit of the
// first zero byte is its lowest bit set (bits above it may be false, set
// by a borrow). x^(c*Ones) has a zero byte where x holds c; with c a
// constant that is a constant, which the inliner counts as one node where
// a call would count as its body (the scanners' tests stay inlined).
func ZeroBytes(x uint64) uint64 { return (x - Ones) &^ x & Highs }

// Load64 returns s[i:i+8] as a word.
func Load64[T string | []byte](s T, i int) uint64 {
	w := s[i : i+8]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// Short returns p, four to eight bytes, as one word: its first four bytes
// and its last four, which overlap, so that a test of the word's eight
// bytes tests each byte of p (a byte may be tested twice).
func Short(p []byte) uint64 {
	return uint64(binary.LittleEndian.Uint32(p)) | uint64(binary.LittleEndian.Uint32(p[len(p)-4:]))<<32
}
