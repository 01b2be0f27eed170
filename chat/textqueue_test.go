package chat

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/toolsieve/toolsieve/internal/jsonspan"
	"github.com/toolsieve/toolsieve/sse"
)

// TestTextQueueNeverEmpty: a queue whose content is released one event
// late (the parser holds each line's first word until the next comes)
// never empties; its events still come out whole and in order, and its
// buffer stays about the size of what it holds, not of the stream.
func TestTextQueueNeverEmpty(t *testing.T) {
	var q textQueue
	var sent, want [][]byte
	var prev []byte
	maxBuf := 0
	for i := range 5000 {
		content := fmt.Appendf(nil, "word%d ", i)
		data := fmt.Appendf(nil, `{"content":%q}`, content)
		ev := sse.Event{Data: data, Raw: fmt.Appendf(nil, "data: %s\n\n", data)}
		want = append(want, bytes.Clone(ev.Raw))
		if q.push(&ev, content, prev, jsonspan.Member{}) {
			t.Fatalf("event %d went out directly, but its content was not released", i)
		}
		n := q.ready()
		for k := range n {
			sent = append(sent, bytes.Clone(q.evs[k].raw))
		}
		q.drop(n)
		prev = content
		maxBuf = max(maxBuf, cap(q.buf))
	}
	if len(q.evs) != 1 {
		t.Fatalf("%d events held at the end, want 1", len(q.evs))
	}
	sent = append(sent, q.evs[0].raw)
	if len(sent) != len(want) {
		t.Fatalf("%d events sent, want %d", len(sent), len(want))
	}
	for i := range want {
		if !bytes.Equal(sent[i], want[i]) {
			t.Fatalf("event %d is %q, want %q", i, sent[i], want[i])
		}
	}
	if maxBuf > 4*minCompact {
		t.Errorf("the queue's buffer grew to %d bytes for events of about 40 bytes", maxBuf)
	}
}
