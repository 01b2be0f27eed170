package scanbase

// Grow returns out with room for n more bytes, doubling its capacity. A
// scanner calls it at the start of a Write that may append more than out
// has room for, n about what that Write may append (escapes double a
// byte), so that its output grows here by doubling: append's growth past
// 256 bytes, by about a quarter, allocated five times a large value's size
// in all (issue 31: 5.5 MiB for the 1.1 MiB arguments of a 1 MiB gemma4 or
// pythonic call).
func Grow(out []byte, n int) []byte {
	nb := make([]byte, len(out), max(2*cap(out), len(out)+n))
	copy(nb, out)
	return nb
}
