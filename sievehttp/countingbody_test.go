package sievehttp

import (
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCountingBodyEvents: the data lines counted do not depend on where
// the reads split the stream, and lines that only contain "data:" or
// start with another field are not counted.
func TestCountingBodyEvents(t *testing.T) {
	stream := ": comment\n\ndata: {\"a\":1}\n\nevent: x\ndata: y\n\nid: 3\nxdata: no\n data: no\ndata:\n\ndata: z\r\n\r\ndata"
	const want = 4 // not the comment, "xdata", " data" or the last "data" (no colon)
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		c := &countingBody{ReadCloser: io.NopCloser(strings.NewReader(stream)), st: 1}
		buf := make([]byte, 1+rng.IntN(8))
		if round == 0 {
			buf = make([]byte, len(stream))
		}
		n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{c}, buf)
		if err != nil || n != int64(len(stream)) || c.n != n {
			t.Fatalf("read %d of %d bytes (counted %d): %v", n, len(stream), c.n, err)
		}
		if c.events != want {
			t.Fatalf("reads of %d bytes: %d data lines, want %d", len(buf), c.events, want)
		}
	}
}
