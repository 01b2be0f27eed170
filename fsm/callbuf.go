package fsm

// The buffer of markup in progress (m.buf): how it grows, and how the
// bytes of a reported call stay in place.

// bigBuf is the room from which the buffer grows by a quarter, not double.
const bigBuf = 1 << 20

// grow makes room in buf for n more bytes, up to the call cap. Doubling
// up to bigBuf, then a quarter: a large call leaves less than a quarter
// of its buffer unused, so that the buffer and the call's arguments (about
// the call's size again) hold in about 2.5 times the call's size. A growth
// that leaves the cap less than three times the new room goes to the cap
// at once: it spends at most twice that room more (within the cap) and
// spares a call that goes on to the cap the growths left (two doublings,
// or five quarters that copy ten times that room), and the buffers they
// leave behind for the collector (issue 31: a 100 MiB call at its cap
// allocated 5 times its size and peaked at 3.1 times it in resident memory).
func (m *Machine) grow(n int) {
	c := cap(m.buf)
	step := c
	if c >= bigBuf {
		step = c / 4
	}
	size := min(max(len(m.buf)+n, c+step, 64), m.opt.MaxCall)
	if m.opt.MaxCall/3 < size {
		size = m.opt.MaxCall
	}
	nb := make([]byte, size)
	m.buf = nb[:copy(nb, m.buf)]
}

// A call's markup can be as large as the call cap. So that a sink need not
// copy it, the first call reported in a Write is Stable: its bytes stay in
// place until the next Write or Close. The buffer that holds them is set
// aside (kept), the markup after the call goes on in a side buffer, and
// the next Write moves that markup back into the kept buffer, whose room
// is reused. Later calls in the same Write are not Stable: their bytes are
// shifted away as usual, and a sink copies what it keeps of them.

// maxSide bounds the room of the side buffer kept for the next call: more
// is dropped, so that a parser does not hold two large buffers.
const maxSide = 64 << 10

// stable reports whether a call reported now may be Stable.
func (m *Machine) stable() bool { return m.kept == nil }

// setAside drops buf[:end], a Stable call just reported, leaving its bytes
// in place: the rest of buf moves to the side buffer.
func (m *Machine) setAside(end int) {
	m.kept = m.buf
	m.buf = append(m.side[:0], m.buf[end:]...)
	m.side = nil
	m.bufOff += int64(end)
	m.seg.start -= end
	m.call.start -= end
}

// restore takes the kept buffer back, at the start of a Write or Close.
func (m *Machine) restore() {
	side := m.buf
	m.buf = append(m.kept[:0], side...)
	m.kept = nil
	if cap(side) <= maxSide {
		m.side = side
	}
}

// idleBuf is the most room of each buffer Release keeps.
const idleBuf = 4 << 10

// Release gives back the room of the buffers a large call grew when the
// machine is idle (nothing in progress), so that an idle parser stays
// small, and reports whether it gave back any: the events of the last
// Write still hold what they reference, and the next call grows its own
// buffers.
func (m *Machine) Release() bool {
	return m.plain && m.release() // inlined: a Feed in a call pays one test
}

// release is Release for an idle machine.
func (m *Machine) release() bool {
	big := cap(m.kept) > idleBuf || cap(m.buf) > idleBuf && len(m.buf) == 0 || cap(m.argsBuf) > idleBuf ||
		cap(m.call.args) > idleBuf || m.out != nil && (cap(m.out.Raw) > idleBuf || cap(m.out.Args) > idleBuf) ||
		m.lj != nil && cap(m.lj.Bytes()) > idleBuf || m.py != nil && cap(m.py.Args()) > idleBuf
	if !big {
		return false
	}
	if cap(m.kept) > idleBuf {
		m.kept = nil // the markup after the call, in m.buf, goes on there
	}
	if len(m.buf) == 0 && cap(m.buf) > idleBuf {
		m.buf = nil
	}
	if cap(m.argsBuf) > idleBuf {
		m.argsBuf = nil
	}
	if cap(m.call.args) > idleBuf {
		m.call.args = nil
	}
	if m.out != nil && (cap(m.out.Raw) > idleBuf || cap(m.out.Args) > idleBuf) {
		m.out = nil // made again for the next call (outCall)
	}
	if m.lj != nil && cap(m.lj.Bytes()) > idleBuf {
		m.lj = nil // made again for the next loose object (loose.go)
	}
	if m.py != nil && cap(m.py.Args()) > idleBuf {
		m.py = nil // made again for the next pythonic body (startPy)
	}
	m.params = m.params[:0] // the values of the last call, in the buffers
	clear(m.params[:cap(m.params)])
	return true
}
