package sievehttp

// The memory budget: one bound on the bytes the policy path holds, across
// all requests in flight: request bodies (kept for the model, the tools,
// history cleaning and retries), answers held back while a retry is
// possible, whole JSON answers read for rewriting (seven times their size:
// what their rewriting takes), and the buffers a stream's rewriter grows
// for a large event. Past the budget, a held stream goes out as it comes
// (no retry left for it), a request body or a whole answer is refused with
// 503 and Retry-After, and a stream whose large event does not fit ends
// with an error. The proxy command also makes it the runtime's memory
// limit.

import (
	"sync/atomic"
)

// DefaultMemoryBudget is the budget of a Proxy (and of a Transport with a
// Policy) whose MemoryBudget is 0: room for a few hundred typical agent
// requests (100 KiB to 1 MiB bodies), or for several at the largest
// request size and held answer at once.
const DefaultMemoryBudget = 256 << 20

// DefaultMaxRequestBytes is the largest request body the proxy accepts
// when Proxy.MaxRequestBytes is 0: the request size limit of Anthropic's
// Messages API (32 MB); larger bodies get 413.
const DefaultMaxRequestBytes = 32 << 20

// budget counts reserved bytes against a limit. A nil *budget is
// unbounded. It is safe for concurrent use.
type budget struct {
	limit int64
	used  atomic.Int64
}

func newBudget(limit int64) *budget {
	if limit == 0 {
		limit = DefaultMemoryBudget
	}
	if limit < 0 {
		return nil
	}
	return &budget{limit: limit}
}

// reserve takes n bytes if they fit, and reports whether they did.
func (b *budget) reserve(n int64) bool {
	if b == nil || n <= 0 {
		return true
	}
	for {
		u := b.used.Load()
		if u+n > b.limit {
			return false
		}
		if b.used.CompareAndSwap(u, u+n) {
			return true
		}
	}
}

// release gives n reserved bytes back.
func (b *budget) release(n int64) {
	if b != nil && n > 0 {
		b.used.Add(-n)
	}
}

// inUse returns the bytes reserved and the limit (0, 0 when unbounded).
func (b *budget) inUse() (used, limit int64) {
	if b == nil {
		return 0, 0
	}
	return b.used.Load(), b.limit
}

// hold is one holder's share of a budget: what it reserved, given back at
// once by free.
type hold struct {
	b *budget
	n int64
}

// grow reserves n more bytes, and reports whether they fit.
func (h *hold) grow(n int64) bool {
	if !h.b.reserve(n) {
		return false
	}
	if h.b != nil && n > 0 {
		h.n += n
	}
	return true
}

// set makes the hold n bytes, growing or shrinking it; false when the
// growth does not fit (the hold is left as it was).
func (h *hold) set(n int64) bool {
	if h.b == nil {
		return true
	}
	if n <= h.n {
		h.b.release(h.n - n)
		h.n = n
		return true
	}
	return h.grow(n - h.n)
}

// free gives everything back; later calls do nothing.
func (h *hold) free() {
	h.b.release(h.n)
	h.n = 0
}
