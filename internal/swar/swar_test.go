package swar

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestZeroBytes: the lowest bit ZeroBytes sets marks the first byte equal
// to c, wherever it stands and whatever the bytes around it.
func TestZeroBytes(t *testing.T) {
	fill := []byte{0x00, 0x01, 0x0a, 0x0b, 0x7f, 0x80, 0xff, 'a'}
	for _, c := range []byte{'\n', '<', 0, 0xff} {
		for pos := range 9 { // 8: no byte is c
			for _, f := range fill {
				if f == c {
					continue
				}
				var w [8]byte
				for i := range w {
					w[i] = f
				}
				if pos < 8 {
					w[pos] = c
				}
				m := ZeroBytes(Load64(w[:], 0) ^ uint64(c)*Ones)
				if pos == 8 {
					assert.Zero(t, m, "%q in %q", c, w)
					continue
				}
				assert.Equal(t, uint64(0x80)<<(8*pos), m&-m, "%q in %q", c, w)
			}
		}
	}
}

// TestLoad64 and TestShort: byte i of s is byte i of the word; a short
// slice's word holds each of its bytes.
func TestLoad64(t *testing.T) {
	assert.Equal(t, uint64(0x0807060504030201), Load64([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 1))
	assert.Equal(t, uint64(0x6867666564636261), Load64("abcdefgh", 0))
}

func TestShort(t *testing.T) {
	assert.Equal(t, uint64(0x0403020104030201), Short([]byte{1, 2, 3, 4}))
	assert.Equal(t, uint64(0x0706050404030201), Short([]byte{1, 2, 3, 4, 5, 6, 7}))
	assert.Equal(t, Load64([]byte{1, 2, 3, 4, 5, 6, 7, 8}, 0), Short([]byte{1, 2, 3, 4, 5, 6, 7, 8}))
}
