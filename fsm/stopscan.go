package fsm

import "bytes"

// Finding plainStop's bytes in a long chunk. nextStop tests eight bytes a
// step for the seven stop bytes, a few instructions a byte whatever the
// chunk; a chunk of prose a few KiB long (a whole answer read at once, a
// proxy's large read) goes faster with one bytes.IndexByte pass (vector
// code) per stop byte, each pass resumed where it found its byte last:
// the chunk is read once per stop byte, however many newlines it holds.

// stopBytes lists the bytes of plainStop, from the table.
var stopBytes = func() (b []byte) {
	for c := range 256 {
		if plainStop[c] {
			b = append(b, byte(c))
		}
	}
	return b
}()

// longChunk is the chunk length from which stopScan uses the passes.
const longChunk = 256

// stopScan finds plainStop's bytes in one chunk, at increasing offsets.
// Its zero value is ready.
type stopScan struct {
	at [8]int // per stop byte: 1 + where it is next, at or after the last offset asked (1 + len(p): nowhere); 0: not looked for
}

// next returns the index of the first byte of plainStop in p at or after
// i, or len(p); p is the same chunk at every call, and i does not
// decrease from one call to the next.
func (s *stopScan) next(p []byte, i int) int {
	if len(p) < longChunk {
		return nextStop(p, i)
	}
	return s.passes(p, i)
}

// passes is next for a long chunk.
func (s *stopScan) passes(p []byte, i int) int {
	n := len(p)
	first := n
	for k, c := range stopBytes {
		a := s.at[k] - 1
		if a < i {
			a = n
			if j := bytes.IndexByte(p[i:], c); j >= 0 {
				a = i + j
			}
			s.at[k] = a + 1
		}
		first = min(first, a)
	}
	return first
}
