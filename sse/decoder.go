package sse

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strconv"
	"unsafe"
)

// DefaultMaxEventSize is the limit on the raw size of one block used when
// Decoder.MaxEventSize is zero or negative.
const DefaultMaxEventSize = 8 << 20

// ErrClosed is returned by Feed after Close.
var ErrClosed = errors.New("sse: Feed after Close")

// Error describes a block that was skipped because it was larger than the
// decoder's MaxEventSize.
type Error struct {
	Offset int64 // stream offset of the first skipped byte
	Size   int64 // number of bytes skipped (the whole block, blank line included)
	Limit  int   // the MaxEventSize in force
}

func (e *Error) Error() string {
	return "sse: event at offset " + strconv.FormatInt(e.Offset, 10) +
		" is " + strconv.FormatInt(e.Size, 10) +
		" bytes, over the limit of " + strconv.Itoa(e.Limit) + " bytes; skipped"
}

// Event is one block of the stream: its lines up to and including the
// blank line that ends it.
//
// The byte slices are owned by the Decoder and valid until the next call to
// Feed, Close or Reset; use Clone to keep an event longer. They are
// read-only: Data may share memory with Raw. Type and ID are ordinary
// strings and may be kept.
type Event struct {
	// Offset is the stream offset of the first byte of the block.
	Offset int64
	// Raw holds the exact input bytes of the block, from the first byte of
	// its first line through its terminating blank line (or through the end
	// of input for an Unterminated block). For the first block of a stream
	// that starts with a byte order mark, Raw starts with the mark. Raw is
	// nil when Err is set.
	Raw []byte

	// Type is the value of the last "event" field, "" if none.
	Type    string
	HasType bool // at least one "event" field
	// Data is the values of the "data" fields joined by "\n"; nil if none.
	Data    []byte
	HasData bool // at least one "data" field
	// ID is the value of the last "id" field whose value has no NUL byte.
	ID    string
	HasID bool
	// Retry is the value of the last "retry" field made only of ASCII
	// digits (at least one); values over math.MaxInt saturate.
	Retry    int
	HasRetry bool

	// Fields counts the field lines of the block, known or not; comments
	// and the terminating blank line do not count.
	Fields int
	// Comment reports a block made only of comment lines (and its blank
	// line).
	Comment bool
	// BOM reports that Raw starts with the stream's byte order mark, which
	// the parser skipped.
	BOM bool
	// Unterminated reports a block ended by Close instead of a blank line.
	// Raw may then end in the middle of a line (which was parsed as a
	// complete line).
	Unterminated bool

	// Err is set, and every other field but Offset and Unterminated is
	// zero, when the block was larger than the decoder's limit and was
	// skipped.
	Err *Error
}

// IsMessage reports whether the WHATWG processing model would dispatch
// the block as a message event, that is, whether it has a "data" field
// (for an Unterminated block: would have, had it been terminated).
func (e *Event) IsMessage() bool { return e.Err == nil && e.HasData }

// IsBlank reports a block that is a lone blank line (possibly preceded by
// the byte order mark), such as an extra line between events.
func (e *Event) IsBlank() bool { return e.Err == nil && e.Fields == 0 && !e.Comment }

// Clone returns a copy of e that does not share memory with the decoder.
func (e Event) Clone() Event {
	e.Raw = bytes.Clone(e.Raw)
	e.Data = bytes.Clone(e.Data)
	if e.Err != nil {
		er := *e.Err
		e.Err = &er
	}
	return e
}

type lineState uint8

const (
	stLineStart  lineState = iota // nothing of the line seen yet
	stName                        // in the field name
	stValueStart                  // just after the colon
	stValue                       // in the value
)

type fieldKind uint8

const (
	fUnknown fieldKind = iota
	fComment
	fData
	fEvent
	fID
	fRetry
)

const maxFieldName = len("retry") // longest known field name

var bom = [3]byte{0xEF, 0xBB, 0xBF}

// block is the parse state of the pending block. Offsets named *S and *E
// are relative to the first byte of the block.
type block struct {
	fields, comments int
	bom              bool

	hasType      bool
	typeS, typeE int

	hasData bool
	// multi is set once a second data line is seen: the joined data is
	// then d.data[d.dataMark:]. Before that, the single value is
	// raw[dataS:dataE].
	multi        bool
	dataS, dataE int

	hasID    bool
	idS, idE int

	hasRetry bool
	retry    int
}

// Decoder is a push-mode event-stream decoder. The zero value is ready to
// use. A Decoder must not be used from several goroutines at once.
type Decoder struct {
	// MaxEventSize is the largest raw size, in bytes, of a block that is
	// kept; larger blocks are skipped and reported with Event.Err. Zero or
	// negative means DefaultMaxEventSize. Change it only before the first
	// Feed or after Reset.
	MaxEventSize int

	off    int64 // bytes fed so far
	closed bool

	// events are returned by a call. Their slices point into the arenas
	// as they were when the event ended: an arena that grows later in the
	// call moves to a new array and leaves the old one as it was (nothing
	// writes where a returned event lies before the next call).
	events []Event

	// raw holds the raw bytes of the events completed during the current
	// call, followed by the flushed bytes of the pending block at
	// raw[evStart:]. The pending block's bytes that are still only in the
	// caller's chunk are p[segStart:].
	raw      []byte
	evStart  int
	segStart int
	// base converts an index in the current chunk to an offset relative
	// to the start of the pending block: rel(i) = base + i.
	base int
	// data holds joined multi-line data; the pending block's is at
	// data[dataMark:].
	data     []byte
	dataMark int

	evOff int64 // stream offset of the pending block
	blk   block

	// line state
	st      lineState
	kind    fieldKind
	name    [maxFieldName]byte
	nameLen int // may exceed maxFieldName: then the name is unknown
	vs      int // relative offset of the current value
	idNUL   bool
	retryN  int // digits seen in a retry value, -1 once invalid
	retryV  int

	nextLF int // index in the current chunk of the next LF (len(p) if none)
	nextCR int // and of the next CR

	crPending  bool // last byte was a CR line end: swallow a following LF
	endPending bool // the pending block ended with a blank line ended by CR

	bomN    int // bytes of the byte order mark matched at stream start
	bomDone bool

	// skipping is set while the bytes of an oversized block are dropped;
	// skipLineStart tells whether the next byte starts a line.
	skipping      bool
	skipLineStart bool

	types internCache
	ids   internCache
}

func (d *Decoder) max() int {
	if d.MaxEventSize <= 0 {
		return DefaultMaxEventSize
	}
	return d.MaxEventSize
}

// shrinkAbove is the arena capacity past which an arena mostly unused is
// replaced by a smaller one.
const shrinkAbove = 256 << 10

// Footprint returns the bytes the decoder holds in its buffers (their
// capacity): at most about twice MaxEventSize, while a large event is
// read, and a little more than the largest chunk fed otherwise. Callers
// that bound memory (a proxy's budget) count it.
func (d *Decoder) Footprint() int {
	return cap(d.raw) + cap(d.data) + cap(d.events)*int(unsafe.Sizeof(Event{}))
}

// Pending returns the bytes of the block read so far and not returned
// yet (an event still coming).
func (d *Decoder) Pending() int {
	if d.skipping {
		return 0
	}
	return len(d.raw) - d.evStart
}

// Offset returns the number of bytes fed so far.
func (d *Decoder) Offset() int64 { return d.off }

// Reset makes the decoder ready for a new stream, keeping its buffers and
// MaxEventSize.
func (d *Decoder) Reset() {
	*d = Decoder{
		MaxEventSize: d.MaxEventSize,
		events:       d.events[:0],
		raw:          d.raw[:0],
		data:         d.data[:0],
		types:        d.types,
		ids:          d.ids,
	}
}

// Feed decodes p and returns the blocks it completes, in stream order. The
// returned slice and the byte slices in its events are valid until the
// next call to Feed, Close or Reset; p is not retained.
//
// The error is non-nil only when Feed is called after Close (ErrClosed).
// Problems in the input are never errors of Feed: oversized blocks are
// reported in order, as events with Err set.
func (d *Decoder) Feed(p []byte) ([]Event, error) {
	if d.closed {
		return nil, ErrClosed
	}
	d.begin(len(p))
	d.scan(p)
	if d.skipping {
		d.segStart = len(p)
	} else {
		d.flush(p, len(p))
		if len(d.raw)-d.evStart > d.max() {
			d.startSkip()
		}
	}
	d.off += int64(len(p))
	return d.events, nil
}

// Close reports the end of input and returns the blocks it completes: a
// block ended by a blank line whose CR was the last byte, and a pending
// block cut off before its blank line (returned with Unterminated set, see
// the package documentation). Calling Close again returns nothing. Call
// Reset to decode another stream.
func (d *Decoder) Close() ([]Event, error) {
	if d.closed {
		d.events = d.events[:0]
		return nil, nil
	}
	d.closed = true
	d.begin(0)
	if d.crPending {
		d.crPending = false
		if d.endPending {
			d.endPending = false
			d.endBlock(nil, 0)
		}
	}
	if d.skipping {
		if d.off > d.evOff {
			d.emitSkip(d.off-d.evOff, true)
		}
	} else {
		if !d.bomDone && d.bomN > 0 {
			d.bomMismatch()
		}
		switch d.st {
		case stName:
			d.resolve()
			d.vs = d.base
			d.lineEnd(nil, 0)
		case stValueStart:
			d.vs = d.base
			d.lineEnd(nil, 0)
		case stValue:
			d.lineEnd(nil, 0)
		}
		if len(d.raw)-d.evStart > 0 {
			d.endBlockAt(nil, 0, true)
		}
	}
	return d.events, nil
}

// begin starts a call: it moves the pending block to the front of the
// arenas (each byte is moved at most once, as the pending block only moves
// when blocks before it were returned) and reserves room for the chunk.
func (d *Decoder) begin(n int) {
	d.events = d.events[:0]
	if d.evStart > 0 {
		k := copy(d.raw, d.raw[d.evStart:])
		d.raw = d.raw[:k]
		d.evStart = 0
	}
	if d.dataMark > 0 {
		k := copy(d.data, d.data[d.dataMark:])
		d.data = d.data[:k]
		d.dataMark = 0
	}
	// An arena grown for a large event is given back once the bytes it
	// holds are a small part of it, so that one large event does not keep
	// its memory for the rest of the stream.
	if cap(d.raw) > shrinkAbove && 4*(len(d.raw)+n) < cap(d.raw) {
		d.raw = append(make([]byte, 0, len(d.raw)+n+n/8), d.raw...)
	}
	if cap(d.data) > shrinkAbove && 4*len(d.data) < cap(d.data) {
		d.data = append([]byte(nil), d.data...)
	}
	if !d.skipping {
		if cap(d.raw) == 0 {
			// Room for a pending block carried over too, so that the
			// next chunk of the same size fits.
			n += n / 8
		}
		d.raw = slices.Grow(d.raw, n)
	}
	// Room for the events of n bytes, but the smallest, at once (up to a
	// proxy's read: a larger chunk grows them as it goes). Room grown for
	// a burst of events is given back when chunks are small again, so
	// that a stream of tokens read one event at a time keeps little.
	if k := min(n, 32<<10)/128 + 1; cap(d.events) == 0 || cap(d.events) > 64 && cap(d.events) > 8*k {
		d.events = make([]Event, 0, k)
	}
	d.segStart = 0
	d.base = len(d.raw)
}

// flush appends the pending block's bytes p[segStart:end] to raw.
func (d *Decoder) flush(p []byte, end int) {
	d.raw = append(d.raw, p[d.segStart:end]...)
	d.segStart = end
}

// newBlock makes index start of the current chunk the start of a new
// pending block.
func (d *Decoder) newBlock(start int) {
	d.evStart = len(d.raw)
	d.segStart = start
	d.base = -start
	d.dataMark = len(d.data)
	d.evOff = d.off + int64(start)
	d.blk = block{}
	d.st = stLineStart
}

func (d *Decoder) endBlock(p []byte, end int) { d.endBlockAt(p, end, false) }

// endBlockAt ends the pending block at index end of the current chunk.
func (d *Decoder) endBlockAt(p []byte, end int, unterminated bool) {
	if d.skipping {
		d.emitSkip(d.off+int64(end)-d.evOff, unterminated)
		d.skipping = false
		d.newBlock(end)
		return
	}
	size := d.base + end
	if size > d.max() {
		d.raw = d.raw[:d.evStart]
		d.data = d.data[:d.dataMark]
		d.emitSkip(int64(size), unterminated)
		d.newBlock(end)
		return
	}
	d.flush(p, end)
	raw := d.raw[d.evStart:]
	b := &d.blk
	// The event is written in place: it is large, and most fields are zero.
	d.events = append(d.events, Event{})
	e := &d.events[len(d.events)-1]
	e.Offset = d.evOff
	e.HasType, e.HasData, e.HasID, e.HasRetry = b.hasType, b.hasData, b.hasID, b.hasRetry
	e.Retry, e.Fields = b.retry, b.fields
	e.Comment = b.comments > 0 && b.fields == 0
	e.BOM, e.Unterminated = b.bom, unterminated
	if b.hasType {
		e.Type = d.types.get(raw[b.typeS:b.typeE])
	}
	if b.hasID {
		e.ID = d.ids.get(raw[b.idS:b.idE])
	}
	e.Raw = raw[:len(raw):len(raw)]
	if b.hasData {
		if b.multi {
			e.Data = d.data[d.dataMark:len(d.data):len(d.data)]
		} else {
			e.Data = raw[b.dataS:b.dataE:b.dataE]
		}
	}
	d.newBlock(end)
}

func (d *Decoder) emitSkip(size int64, unterminated bool) {
	d.events = append(d.events, Event{
		Offset:       d.evOff,
		Unterminated: unterminated,
		Err:          &Error{Offset: d.evOff, Size: size, Limit: d.max()},
	})
}

// startSkip drops the pending block, which is already over the limit, and
// skips the rest of it. It is called at the end of a Feed, with all of the
// block flushed.
func (d *Decoder) startSkip() {
	d.skipLineStart = d.st == stLineStart && (d.bomDone || d.bomN == 0)
	d.bomDone = true
	d.skipping = true
	d.raw = d.raw[:d.evStart]
	d.data = d.data[:d.dataMark]
	d.blk = block{}
	d.st = stLineStart
}

// bomMismatch handles a stream that starts with a proper prefix of the
// byte order mark: those bytes are the start of an (unknown) field name.
func (d *Decoder) bomMismatch() {
	d.bomDone = true
	copy(d.name[:], bom[:d.bomN])
	d.nameLen = d.bomN
	d.st = stName
}

// resolve sets the kind of the current line from its field name.
func (d *Decoder) resolve() {
	d.kind = fUnknown
	if d.nameLen <= maxFieldName {
		switch string(d.name[:d.nameLen]) {
		case "data":
			d.kind = fData
		case "event":
			d.kind = fEvent
		case "id":
			d.kind = fID
			d.idNUL = false
		case "retry":
			d.kind = fRetry
			d.retryN, d.retryV = 0, 0
		}
	}
}

// lineEnd ends the current non-blank line, whose terminator (if any) is at
// index i of the current chunk.
func (d *Decoder) lineEnd(p []byte, i int) {
	ve := d.base + i
	b := &d.blk
	switch d.kind {
	case fComment:
		b.comments++
		d.st = stLineStart
		return
	case fData:
		if !b.hasData {
			b.hasData = true
			b.dataS, b.dataE = d.vs, ve
			break
		}
		d.flush(p, i)
		raw := d.raw[d.evStart:]
		if !b.multi {
			b.multi = true
			d.data = append(d.data, raw[b.dataS:b.dataE]...)
		}
		d.data = append(d.data, '\n')
		d.data = append(d.data, raw[d.vs:ve]...)
	case fEvent:
		b.hasType = true
		b.typeS, b.typeE = d.vs, ve
	case fID:
		if !d.idNUL {
			b.hasID = true
			b.idS, b.idE = d.vs, ve
		}
	case fRetry:
		if d.retryN > 0 {
			b.hasRetry = true
			b.retry = d.retryV
		}
	}
	b.fields++
	d.st = stLineStart
}

// scan runs the parser over the chunk p.
func (d *Decoder) scan(p []byte) {
	d.nextLF, d.nextCR = -1, -1
	for i := 0; i < len(p); i++ {
		c := p[i]
		if d.crPending {
			d.crPending = false
			if c == '\n' {
				if d.endPending {
					d.endPending = false
					d.endBlock(p, i+1)
				}
				continue
			}
			if d.endPending {
				d.endPending = false
				d.endBlock(p, i)
			}
		}
		if d.skipping {
			i = d.skip(p, i)
			continue
		}
		if !d.bomDone {
			if c == bom[d.bomN] {
				d.bomN++
				if d.bomN == len(bom) {
					d.bomDone = true
					d.blk.bom = true
				}
				continue
			}
			if d.bomN > 0 {
				d.bomMismatch()
			} else {
				d.bomDone = true
			}
		}
		switch d.st {
		case stLineStart:
			switch c {
			case '\n':
				d.endBlock(p, i+1)
			case '\r':
				d.crPending = true
				d.endPending = true
			case ':':
				d.kind = fComment
				d.st = stValue
			case 'd':
				if len(p)-i >= len("data: ") && string(p[i:i+6]) == "data: " {
					// The usual line, "data: " and its value, without
					// going through its name a byte at a time.
					d.kind, d.st = fData, stValue
					d.vs = d.base + i + 6
					i = d.value(p, i+6)
					continue
				}
				fallthrough
			default:
				d.name[0] = c
				d.nameLen = 1
				d.st = stName
			}
		case stName:
			switch c {
			case ':':
				d.resolve()
				d.st = stValueStart
			case '\n', '\r':
				d.resolve()
				d.vs = d.base + i
				d.lineEnd(p, i)
				d.crPending = c == '\r'
			default:
				if d.nameLen < maxFieldName {
					d.name[d.nameLen] = c
				}
				if d.nameLen <= maxFieldName {
					d.nameLen++
				}
			}
		case stValueStart:
			d.vs = d.base + i
			d.st = stValue
			if c == ' ' {
				d.vs++
				continue
			}
			i = d.value(p, i)
		case stValue:
			i = d.value(p, i)
		}
	}
}

// value scans value bytes from index i, ending the line if its terminator
// is in p. It returns the index of the last byte it consumed.
func (d *Decoder) value(p []byte, i int) int {
	// The positions of the next LF and of the next CR are remembered for
	// the rest of the chunk, so that with CR line ends the bytes after a
	// CR are not searched for an LF again on every line, and with LF line
	// ends a chunk is searched for a CR once.
	if d.nextLF < i {
		d.nextLF = nextByte(p, i, '\n')
	}
	if d.nextCR < i {
		d.nextCR = nextByte(p, i, '\r')
	}
	rest := p[i:]
	n := min(d.nextLF, d.nextCR) - i
	v := rest[:n]
	switch d.kind {
	case fID:
		if !d.idNUL && bytes.IndexByte(v, 0) >= 0 {
			d.idNUL = true
		}
	case fRetry:
		d.retryDigits(v)
	}
	if n == len(rest) {
		return len(p) - 1
	}
	j := i + n
	d.lineEnd(p, j)
	d.crPending = p[j] == '\r'
	return j
}

// nextByte returns the index of the first c in p from i on, or len(p).
func nextByte(p []byte, i int, c byte) int {
	if k := bytes.IndexByte(p[i:], c); k >= 0 {
		return i + k
	}
	return len(p)
}

func (d *Decoder) retryDigits(v []byte) {
	if d.retryN < 0 {
		return
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			d.retryN = -1
			return
		}
		x := int(c - '0')
		if d.retryV > (math.MaxInt-x)/10 {
			d.retryV = math.MaxInt
		} else {
			d.retryV = d.retryV*10 + x
		}
		d.retryN++
	}
}

// skip drops bytes of an oversized block from index i, looking for the
// blank line that ends it. It returns the index of the last byte it
// consumed.
func (d *Decoder) skip(p []byte, i int) int {
	for ; i < len(p); i++ {
		c := p[i]
		switch c {
		case '\n', '\r':
			if d.skipLineStart {
				if c == '\r' {
					d.crPending = true
					d.endPending = true
				} else {
					d.endBlock(p, i+1)
				}
				return i
			}
			d.skipLineStart = true
			if c == '\r' {
				d.crPending = true
				return i
			}
		default:
			d.skipLineStart = false
		}
	}
	return len(p) - 1
}

// internCache avoids allocating a string for a value seen recently.
type internCache struct {
	s    [8]string
	next int
}

const maxIntern = 64

func (c *internCache) get(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	for _, s := range c.s {
		if s == string(b) {
			return s
		}
	}
	s := string(b)
	if len(b) <= maxIntern {
		c.s[c.next] = s
		c.next = (c.next + 1) % len(c.s)
	}
	return s
}
