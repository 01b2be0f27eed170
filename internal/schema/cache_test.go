package schema

import (
	"fmt"
	"testing"
)

// TestToolsCache: the same tools array, alone or in request bodies, is
// read once and shared; other arrays get their own set; the cache keeps
// at most cachedSets sets.
func TestToolsCache(t *testing.T) {
	arr := `[{"type":"function","function":{"name":"cache_probe","parameters":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}}]`
	a, err := ParseTools([]byte(arr))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseTools([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":` + arr + `}`))
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Error("the same tools array in a request body was read again")
	}
	if d, ok := b.Lookup("cache_probe"); !ok || len(d.Required) != 1 || d.Required[0] != "q" {
		t.Fatalf("cached set: %v %v", d, ok)
	}
	for i := range 3 * cachedSets {
		other, err := ParseTools(fmt.Appendf(nil, `[{"name":"tool_%d","parameters":{"type":"object"}}]`, i))
		if err != nil {
			t.Fatal(err)
		}
		if other == a || other.Len() != 1 || other.Names()[0] != fmt.Sprintf("tool_%d", i) {
			t.Fatalf("array %d: %v", i, other.Names())
		}
	}
	toolsCache.Lock()
	n := len(toolsCache.entries)
	toolsCache.Unlock()
	if n > cachedSets {
		t.Errorf("%d sets cached, at most %d", n, cachedSets)
	}
	if _, err := ParseTools([]byte(`[{"name": 3}]`)); err == nil {
		t.Error("a bad array read without error")
	}
	if _, err := ParseTools([]byte(`[{"name": 3}]`)); err == nil {
		t.Error("a bad array read without error the second time")
	}
}
