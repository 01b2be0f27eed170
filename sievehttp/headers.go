package sievehttp

// Request headers: the X-Toolsieve-* headers read as a Rule, and the rule
// that they may only tighten what the operator decided, unless the policy
// says "client_overrides": true.

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// headerRule reads the X-Toolsieve-* request headers as a Rule.
func headerRule(h http.Header) (Rule, error) {
	var r Rule
	if h == nil {
		return r, nil
	}
	if v := strings.TrimSpace(h.Get(HeaderMode)); v != "" {
		v = strings.ToLower(v)
		if v != ModeStrict && v != ModeLenient {
			return r, fmt.Errorf("%s: %q (want strict or lenient)", HeaderMode, v)
		}
		r.Mode = v
	}
	if v := strings.TrimSpace(h.Get(HeaderRetries)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > MaxRetries {
			return r, fmt.Errorf("%s: %q (want 0 to %d)", HeaderRetries, v, MaxRetries)
		}
		r.Retries = &n
	}
	if v := strings.TrimSpace(h.Get(HeaderDialects)); v != "" {
		names := strings.Split(v, ",")
		if _, err := dialectSet(names); err != nil {
			return r, fmt.Errorf("%s: %v", HeaderDialects, err)
		}
		r.Dialects = names
	}
	for _, f := range [...]struct {
		name string
		dst  **bool
	}{{HeaderHoldText, &r.HoldText}, {HeaderCleanHistory, &r.CleanHistory}} {
		if v := strings.TrimSpace(h.Get(f.name)); v != "" {
			var b bool
			switch strings.ToLower(v) {
			case "1", "t", "true", "yes", "on":
				b = true
			case "0", "f", "false", "no", "off":
			default:
				return r, fmt.Errorf("%s: %q (want true or false)", f.name, v)
			}
			*f.dst = &b
		}
	}
	return r, nil
}

// tighten drops the fields of the header rule hr that would loosen s (the
// operator's settings), and returns the names of their headers:
//
//   - mode: strict over lenient only;
//   - retries: no more than the operator's budget;
//   - dialects: a subset of the operator's ("all" only when the operator's
//     are all);
//   - hold-text: off only (holding costs the proxy memory, and only pays
//     with retries the operator grants).
//
// Clean-History is the client's choice either way: it changes only the
// request's own body.
func (s *Settings) tighten(hr *Rule) []string {
	var refused []string
	if hr.Mode == ModeLenient && s.Strict {
		hr.Mode, refused = "", append(refused, HeaderMode)
	}
	if hr.Retries != nil && *hr.Retries > s.Retries {
		hr.Retries, refused = nil, append(refused, HeaderRetries)
	}
	if len(hr.Dialects) > 0 && s.Dialects != nil {
		want, _ := dialectSet(hr.Dialects) // validated by headerRule
		if want == nil || slices.ContainsFunc(want, func(d string) bool { return !slices.Contains(s.Dialects, d) }) {
			hr.Dialects, refused = nil, append(refused, HeaderDialects)
		}
	}
	if hr.HoldText != nil && *hr.HoldText && !s.HoldText {
		hr.HoldText, refused = nil, append(refused, HeaderHoldText)
	}
	return refused
}
