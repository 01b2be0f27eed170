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
type stopScan struct {
	p    []byte
	long bool
	at   [8]int // per stop byte: where it is next, at or after the last offset asked; len(p): nowhere; -1: not looked for
}

func newStopScan(p []byte) stopScan {
	s := stopScan{p: p, long: len(p) >= longChunk}
	for k := range stopBytes {
		s.at[k] = -1
	}
	return s
}

// next returns the index of the first byte of plainStop at or after i, or
// len(p); i must not decrease from one call to the next.
func (s *stopScan) next(i int) int {
	if !s.long {
		return nextStop(s.p, i)
	}
	n := len(s.p)
	first := n
	for k, c := range stopBytes {
		a := s.at[k]
		if a < i {
			a = n
			if j := bytes.IndexByte(s.p[i:], c); j >= 0 {
				a = i + j
			}
			s.at[k] = a
		}
		first = min(first, a)
	}
	return first
}
