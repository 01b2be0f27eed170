package main

// The demo's before/after view: each piece of a sample's input (a run of
// text, or the markup that an event stands for) on the left, abbreviated
// to one column, and what came out of it on the right, so that "broken →
// fixed" reads at a glance. Every input byte is in exactly one piece: the
// text of a text event or the raw of another.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/width"

	"github.com/toolsieve/toolsieve"
)

// Widths of the view's columns, in terminal columns.
const (
	inCols  = 44 // the input piece
	outCols = 72 // what it became
)

// viewRow is one line of the view: an input piece and what it became,
// with detail lines under it in the right column (not abbreviated).
type viewRow struct {
	in      []byte // nil for a row that stands for no input (an error, a note)
	out     string
	details []string
}

// viewBuilder turns a sample's events into rows, merging the runs that
// read as one piece: text events in a row, discards in a row with one
// reason, and a call's start with the call.
type viewBuilder struct {
	rows    []viewRow
	text    []byte           // pending text run
	disc    []byte           // pending discards
	nDisc   int              // how many
	reason  toolsieve.Reason // theirs
	started map[int][]byte   // call index -> raw of its tool_call_start
	fedAt   map[int]int      // call index -> bytes fed when its name was known
	total   int              // the sample's bytes
}

func newViewBuilder(total int) *viewBuilder {
	return &viewBuilder{started: map[int][]byte{}, fedAt: map[int]int{}, total: total}
}

func (v *viewBuilder) flushText() {
	if len(v.text) > 0 {
		v.rows = append(v.rows, viewRow{in: v.text, out: "text"})
		v.text = nil
	}
}

func (v *viewBuilder) flushDiscards() {
	switch {
	case v.nDisc == 1:
		v.rows = append(v.rows, viewRow{in: v.disc, out: "dropped: " + v.reason.String()})
	case v.nDisc > 1:
		v.rows = append(v.rows, viewRow{in: v.disc, out: fmt.Sprintf("dropped ×%d: %s", v.nDisc, v.reason)})
	}
	v.disc, v.nDisc = nil, 0
}

// add takes the next event.
func (v *viewBuilder) add(e *demoEvent) {
	if e.Type != toolsieve.Discard || e.Reason != v.reason {
		v.flushDiscards()
	}
	if e.Type != toolsieve.Text {
		v.flushText()
	}
	switch e.Type {
	case toolsieve.Text:
		v.text = append(v.text, e.Text...)
	case toolsieve.ToolCallStart:
		v.started[e.Index] = append(v.started[e.Index], e.Raw...)
		v.fedAt[e.Index] = e.fed
	case toolsieve.ToolCall:
		when := fmt.Sprintf("out after %d/%d bytes fed", e.fed, v.total)
		if at, ok := v.fedAt[e.Index]; ok {
			when += fmt.Sprintf(" (named after %d)", at)
		}
		v.rows = append(v.rows, viewRow{
			in:      append(v.started[e.Index], e.Raw...),
			out:     fmt.Sprintf("call #%d %s %s", e.Index, e.Name, compactArgs(e.Arguments)),
			details: callDetails(e, when),
		})
		delete(v.started, e.Index)
		delete(v.fedAt, e.Index)
	case toolsieve.Discard:
		v.disc = append(v.disc, e.Raw...)
		v.reason = e.Reason
		v.nDisc++
	case toolsieve.Runaway:
		v.rows = append(v.rows, viewRow{in: e.Raw,
			out:     fmt.Sprintf("RUNAWAY %s: the stream is cut here", e.Reason),
			details: []string{fmt.Sprintf("after %d/%d bytes fed", e.fed, v.total)}})
	case toolsieve.Reasoning:
		v.rows = append(v.rows, viewRow{in: e.Raw, out: "reasoning: " + visible(e.Text)})
	case toolsieve.Error:
		msg := "error: " + e.Message
		if e.Offset >= 0 {
			msg += fmt.Sprintf(" (offset %d)", e.Offset)
		}
		v.rows = append(v.rows, viewRow{out: msg})
	}
}

// callDetails are the detail lines of a call: its repairs, if any, on a
// line of their own, then its dialect, id and when it came out.
func callDetails(e *demoEvent, when string) []string {
	about := fmt.Sprintf("dialect %s, id %s, %s", e.Dialect, e.ID, when)
	if len(e.Repairs) == 0 {
		return []string{"no repairs; " + about}
	}
	return []string{"repaired: " + strings.Join(e.Repairs, ", "), about}
}

// finish flushes what is pending and returns the rows; a call whose name
// came out but that never followed gets a row of its own markup.
func (v *viewBuilder) finish() []viewRow {
	v.flushText()
	v.flushDiscards()
	for _, idx := range slices.Sorted(maps.Keys(v.started)) {
		v.rows = append(v.rows, viewRow{in: v.started[idx],
			out: fmt.Sprintf("note: call #%d named after %d bytes fed, but no call followed", idx, v.fedAt[idx])})
	}
	return v.rows
}

// writeView prints the rows under a header.
func writeView(w *bufio.Writer, rows []viewRow) {
	fmt.Fprintf(w, "%s%s   %s\n", indent, pad("broken input, as the model wrote it", inCols), "what came out")
	for _, r := range rows {
		left := ""
		arrow := "   "
		if r.in != nil {
			left, arrow = abbrevCols(visible(r.in), inCols), " → "
		}
		fmt.Fprintf(w, "%s%s%s%s\n", indent, pad(left, inCols), arrow, abbrevCols(r.out, outCols))
		for _, d := range r.details {
			fmt.Fprintf(w, "%s%s     %s\n", indent, pad("", inCols), d)
		}
	}
}

// visible shows b on one line: line ends as ↵, tabs as ⇥, other control
// characters as ·, and invalid UTF-8 as �.
func visible(b []byte) string {
	var s strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		b = b[n:]
		switch {
		case r == '\n':
			s.WriteString("↵")
		case r == '\r':
			continue
		case r == '\t':
			s.WriteString("⇥")
		case r < 0x20 || r == 0x7f:
			s.WriteString("·")
		default:
			s.WriteRune(r)
		}
	}
	return s.String()
}

// cols returns the terminal columns of r: two for wide and fullwidth
// characters (CJK, the fullwidth bars of DeepSeek's markers), else one.
func cols(r rune) int {
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

func strCols(s string) int {
	n := 0
	for _, r := range s {
		n += cols(r)
	}
	return n
}

// abbrevCols fits s in n columns: when it is wider, it keeps its start
// (two thirds) and its end, joined by "…".
func abbrevCols(s string, n int) string {
	if strCols(s) <= n {
		return s
	}
	headCols := (n - 1) * 2 / 3
	tailCols := n - 1 - headCols
	var head strings.Builder
	used := 0
	for _, r := range s {
		if used+cols(r) > headCols {
			break
		}
		head.WriteRune(r)
		used += cols(r)
	}
	rs := []rune(s)
	start, used := len(rs), 0
	for start > 0 && used+cols(rs[start-1]) <= tailCols {
		start--
		used += cols(rs[start])
	}
	return head.String() + "…" + string(rs[start:])
}

// pad fills s with spaces to n columns.
func pad(s string, n int) string {
	if w := strCols(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

// compactArgs shows call arguments as compact JSON.
func compactArgs(args []byte) string {
	var buf bytes.Buffer
	if len(args) == 0 || json.Compact(&buf, args) != nil {
		return "{}"
	}
	return buf.String()
}
