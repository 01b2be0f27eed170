//go:build invariants

package fsm

import (
	"strings"
	"testing"
)

// TestLevelCheckCatches: the level check panics on a state its level does
// not allow and on a move the table does not list, and passes the state of
// a fresh machine.
func TestLevelCheckCatches(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(m *Machine)
		want  string
	}{
		{"fresh", func(m *Machine) {}, ""},
		{"call without block", func(m *Machine) { m.lv = lvCall }, "no block around the call"},
		{"pending closer in text", func(m *Machine) { m.pend.active = true }, "a pending closer"},
		{"markup after runaway", func(m *Machine) {
			m.stop()
			m.checkLevel()
			m.buf = append(m.buf, "<x>"...)
		}, "bytes of markup after the runaway"},
		{"out of the stopped level", func(m *Machine) {
			m.stop()
			m.checkLevel()
			m.lv = lvText
		}, "entered from"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(Options{}, &recorder{})
			tc.spoil(m)
			got := func() (msg string) {
				defer func() {
					if x := recover(); x != nil {
						msg, _ = x.(string)
					}
				}()
				m.checkLevel()
				return ""
			}()
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Fatalf("check: %q, want %q", got, tc.want)
			}
		})
	}
}
