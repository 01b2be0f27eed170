package schema

import (
	"bytes"
	"hash/maphash"
	"sync"
)

// Agents send the same tools with every request of a conversation, and
// reading them (a JSON decode and a schema compile per tool) was most of
// the proxy's work before it forwarded a request. Sets read from one
// `tools` array are kept by the array's bytes and shared: a Tools value is
// never changed once read.

// maxCachedArray is the largest tools array kept; cachedSets bounds the
// count, so the cache holds at most their product.
const (
	maxCachedArray = 256 << 10
	cachedSets     = 32
)

var toolsCache = struct {
	sync.Mutex
	seed    maphash.Seed
	entries map[uint64]*cachedTools
	order   [cachedSets]uint64 // keys, oldest replaced first
	next    int
}{seed: maphash.MakeSeed(), entries: make(map[uint64]*cachedTools, cachedSets)}

type cachedTools struct {
	where string
	raw   []byte
	tools *Tools
}

// parseArray reads the tools of one array (where names it in errors),
// from the cache when the same bytes were read before.
func parseArray(data []byte, where string) (*Tools, error) {
	if len(data) > maxCachedArray {
		return readArray(data, where)
	}
	c := &toolsCache
	key := maphash.Bytes(c.seed, data)
	c.Lock()
	e := c.entries[key]
	c.Unlock()
	if e != nil && e.where == where && bytes.Equal(e.raw, data) {
		return e.tools, nil
	}
	t, err := readArray(data, where)
	if err != nil {
		return nil, err
	}
	c.Lock()
	if _, ok := c.entries[key]; !ok {
		if old := c.order[c.next]; len(c.entries) == cachedSets {
			delete(c.entries, old)
		}
		c.order[c.next] = key
		c.next = (c.next + 1) % cachedSets
	}
	c.entries[key] = &cachedTools{where: where, raw: bytes.Clone(data), tools: t}
	c.Unlock()
	return t, nil
}

// readArray reads the tools of one array.
func readArray(data []byte, where string) (*Tools, error) {
	t := &Tools{}
	if err := t.addArray(data, where); err != nil {
		return nil, err
	}
	t.finish()
	return t, nil
}
