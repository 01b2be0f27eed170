package scanbase

// Room returns out with room for n more bytes. A scanner calls it once per
// Write, n about what that Write may append (escapes double a byte), so
// that its output grows here by doubling: append's growth past 256 bytes,
// by about a quarter, allocated five times a large value's size in all
// (issue 31: 5.5 MiB for the 1.1 MiB arguments of a 1 MiB gemma4 or
// pythonic call).
func Room(out []byte, n int) []byte {
	if cap(out)-len(out) >= n {
		return out
	}
	return grow(out, n)
}

func grow(out []byte, n int) []byte {
	nb := make([]byte, len(out), max(2*cap(out), len(out)+n))
	copy(nb, out)
	return nb
}
