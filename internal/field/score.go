package field

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/toolsieve/toolsieve"
)

// Chunkings are the chunk sizes every sample is fed at (0: whole).
var Chunkings = []int{0, 1, 3, 7, 61}

// Result is how the parser did on one sample.
type Result struct {
	Sample *Sample
	// Why is empty when the sample passed at every chunking; otherwise
	// what failed first, and at which chunking.
	Why string
}

// Passed reports whether the sample passed at every chunking.
func (r Result) Passed() bool { return r.Why == "" }

// Score feeds sample s at every chunking and checks the outcome.
func Score(s *Sample) Result {
	opt := toolsieve.Options{IDPrefix: "call_"}
	tj, err := s.ToolsJSON()
	if err == nil && tj != nil {
		opt.Tools, err = toolsieve.ParseTools(tj)
	}
	if err != nil {
		return Result{s, "tools: " + err.Error()}
	}
	input := s.Bytes()
	for _, n := range Chunkings {
		if why := s.judge(input, feed(opt, input, n)); why != "" {
			return Result{s, fmt.Sprintf("%s (chunk %s)", why, chunkName(n))}
		}
	}
	return Result{s, ""}
}

func chunkName(n int) string {
	if n == 0 {
		return "whole"
	}
	return fmt.Sprint(n)
}

// outcome is what one run gave.
type outcome struct {
	text    []byte
	back    []byte // text and raw bytes, in order: the input again
	calls   []toolsieve.Event
	runaway bool
}

func feed(opt toolsieve.Options, input []byte, n int) outcome {
	p := toolsieve.NewParser(opt)
	var o outcome
	take := func(evs []toolsieve.Event) {
		for _, e := range evs {
			switch e.Type {
			case toolsieve.Text:
				o.text = append(o.text, e.Text...)
				o.back = append(o.back, e.Text...)
				continue
			case toolsieve.ToolCall:
				o.calls = append(o.calls, e.Clone())
			case toolsieve.Runaway:
				o.runaway = true
			}
			o.back = append(o.back, e.Raw...)
		}
	}
	if n == 0 {
		n = len(input)
	}
	for len(input) > 0 {
		k := min(n, len(input))
		take(p.Feed(input[:k]))
		input = input[k:]
	}
	take(p.Close())
	return o
}

// judge compares one run with what the human read; "" when it matches.
func (s *Sample) judge(input []byte, o outcome) string {
	if !bytes.Equal(o.back, input) {
		return "bytes not accounted for"
	}
	if o.runaway != s.Runaway {
		return fmt.Sprintf("runaway %v, want %v", o.runaway, s.Runaway)
	}
	if len(o.calls) != len(s.Calls) {
		return fmt.Sprintf("%d calls %s, want %d %s", len(o.calls), gotNames(o.calls), len(s.Calls), wantNames(s.Calls))
	}
	for i, want := range s.Calls {
		got := o.calls[i]
		if string(got.Name) != want.Name {
			return fmt.Sprintf("call %d is %s, want %s", i, got.Name, want.Name)
		}
		var args map[string]json.RawMessage
		if err := json.Unmarshal(got.Arguments, &args); err != nil {
			return fmt.Sprintf("call %d arguments are not an object: %s", i, got.Arguments)
		}
		for k, v := range want.Arguments {
			a, ok := args[k]
			if !ok {
				return fmt.Sprintf("call %d (%s) lacks argument %q", i, want.Name, k)
			}
			if !sameValue(v, a) {
				return fmt.Sprintf("call %d (%s) argument %q is %.80s, want %.80s", i, want.Name, k, a, v)
			}
		}
	}
	if s.Kind == Negative && len(s.Keep) == 0 && !bytes.Equal(o.text, input) {
		return "text is not the whole input"
	}
	for _, k := range s.Keep {
		if !bytes.Contains(o.text, []byte(k)) {
			return fmt.Sprintf("text lost %.60q", k)
		}
	}
	for _, d := range s.Drop {
		if bytes.Contains(o.text, []byte(d)) {
			return fmt.Sprintf("text still holds %.60q", d)
		}
	}
	return ""
}

func gotNames(calls []toolsieve.Event) string {
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = string(c.Name)
	}
	return "[" + strings.Join(names, " ") + "]"
}

func wantNames(calls []Call) string {
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Name
	}
	return "[" + strings.Join(names, " ") + "]"
}

// sameValue compares an expected argument value with the one the parser
// gave, after normalising numbers, booleans and surrounding whitespace: a
// string "5" equals the number 5, " a\n" equals "a", 1.0 equals 1.
func sameValue(want, got json.RawMessage) bool {
	var w, g any
	if json.Unmarshal(want, &w) != nil || json.Unmarshal(got, &g) != nil {
		return false
	}
	return equalNorm(w, g)
}

func equalNorm(w, g any) bool {
	switch wv := w.(type) {
	case map[string]any:
		gv, ok := g.(map[string]any)
		if !ok {
			if s, isStr := g.(string); isStr { // an object written as JSON text
				var inner any
				return json.Unmarshal([]byte(s), &inner) == nil && equalNorm(w, inner)
			}
			return false
		}
		if len(wv) != len(gv) {
			return false
		}
		for k, x := range wv {
			y, ok := gv[k]
			if !ok || !equalNorm(x, y) {
				return false
			}
		}
		return true
	case []any:
		gv, ok := g.([]any)
		if !ok {
			if s, isStr := g.(string); isStr {
				var inner any
				return json.Unmarshal([]byte(s), &inner) == nil && equalNorm(w, inner)
			}
			return false
		}
		if len(wv) != len(gv) {
			return false
		}
		for i := range wv {
			if !equalNorm(wv[i], gv[i]) {
				return false
			}
		}
		return true
	}
	if _, ok := g.(map[string]any); ok {
		return false
	}
	if _, ok := g.([]any); ok {
		return false
	}
	return scalar(w) == scalar(g)
}

// scalar is the normal form of a scalar: trimmed text, numbers in one
// exact decimal form.
func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		return new(big.Float).SetFloat64(x).Text('g', -1)
	case string:
		t := strings.TrimSpace(x)
		if f, ok := new(big.Float).SetString(t); ok && t != "" && strings.IndexFunc(t, isLetterButE) < 0 {
			return f.Text('g', -1)
		}
		return t
	}
	return fmt.Sprint(v)
}

func isLetterButE(r rune) bool {
	return (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') && r != 'e' && r != 'E'
}
