package toolsieve

import (
	"io"
	"iter"
)

// Events parses r, read as the model's content itself (plain text), and
// yields the parser's events in order. An event is valid until the next
// iteration (use Event.Clone to keep it). A read error is yielded last,
// with a zero Event. To read the content out of a chat response (SSE or a
// JSON document), use package chat's Events.
func Events(r io.Reader, opt Options) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		p := NewParser(opt)
		buf := make([]byte, 32<<10)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				for _, e := range p.Feed(buf[:n]) {
					if !yield(e, nil) {
						return
					}
				}
			}
			if err != nil {
				for _, e := range p.Close() {
					if !yield(e, nil) {
						return
					}
				}
				if err != io.EOF {
					yield(Event{}, err)
				}
				return
			}
		}
	}
}
