package main

// The summary line that parse and rewrite print on standard error.

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/toolsieve/toolsieve"
)

// tally counts the events of a run for its summary line.
type tally struct {
	calls    int // calls recovered from markup
	native   int // native calls whose markup arguments were converted (rewrite)
	repairs  map[string]int
	runaways int
	errors   int
	// truncated: calls the answer's cut left unfinished (rewrite), not
	// made native
	truncated int
}

// nativeDialect is the dialect the rewriter reports for a native call
// whose markup arguments it converted.
const nativeDialect = "native"

func (t *tally) add(e *toolsieve.Event) {
	switch e.Type {
	case toolsieve.ToolCall:
		if e.Dialect == nativeDialect {
			t.native++
		} else {
			t.calls++
		}
		for _, r := range e.Repairs {
			if t.repairs == nil {
				t.repairs = map[string]int{}
			}
			t.repairs[r]++
		}
	case toolsieve.Runaway:
		t.runaways++
	case toolsieve.Error:
		if e.Reason == toolsieve.ReasonTruncated {
			t.truncated++
			return
		}
		t.errors++
	}
}

// String says what was counted: "2 calls, 3 repairs (missing_closer=1,
// truncated_json=2), 0 runaways", with errors and converted native calls
// when there were any. call names the calls ("call", "call made native").
func (t *tally) String(call string) string {
	var b strings.Builder
	b.WriteString(pluralPhrase(t.calls, call))
	n := 0
	for _, c := range t.repairs {
		n += c
	}
	fmt.Fprintf(&b, ", %s", plural(n, "repair"))
	if n > 0 {
		b.WriteString(" (")
		for i, k := range slices.Sorted(maps.Keys(t.repairs)) {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s=%d", k, t.repairs[k])
		}
		b.WriteString(")")
	}
	fmt.Fprintf(&b, ", %s", plural(t.runaways, "runaway"))
	if t.native > 0 {
		fmt.Fprintf(&b, ", native call arguments converted from markup: %d", t.native)
	}
	if t.truncated > 0 {
		fmt.Fprintf(&b, ", %s", pluralPhrase(t.truncated, "call cut before the model finished it (truncated)"))
	}
	if t.errors > 0 {
		fmt.Fprintf(&b, ", %s", plural(t.errors, "error"))
	}
	return b.String()
}

// pluralPhrase is plural for a noun followed by words: "2 calls made
// native".
func pluralPhrase(n int, phrase string) string {
	noun, rest, _ := strings.Cut(phrase, " ")
	s := plural(n, noun)
	if rest != "" {
		s += " " + rest
	}
	return s
}
