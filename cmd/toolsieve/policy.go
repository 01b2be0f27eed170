package main

// The proxy's policy flags: --policy FILE and the global default's fields.

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/sievehttp"
)

// policyFlags are the flags that make the proxy's policy.
type policyFlags struct {
	file      *string
	mode      *string
	retries   *int
	holdText  *bool
	dialects  *string
	noBuiltin *bool
	backoff   *time.Duration
	explain   *string
}

func addPolicyFlags(fs *flag.FlagSet) *policyFlags {
	return &policyFlags{
		file:      fs.String("policy", "", ""),
		mode:      fs.String("mode", "", ""),
		retries:   fs.Int("retries", 0, ""),
		holdText:  fs.Bool("hold-text", false, ""),
		dialects:  fs.String("dialects", "", ""),
		noBuiltin: fs.Bool("no-builtin", false, ""),
		backoff:   fs.Duration("backoff", 0, ""),
		explain:   fs.String("explain", "", ""),
	}
}

// policy loads --policy (if any) and lays the flags that were given over
// its global default.
func (f *policyFlags) policy(fs *flag.FlagSet) (*sievehttp.Policy, error) {
	pol := &sievehttp.Policy{}
	if *f.file != "" {
		p, err := sievehttp.LoadPolicy(*f.file)
		if err != nil {
			return nil, fmt.Errorf("--policy: %w", err)
		}
		pol = p
	}
	var err error
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "mode":
			pol.Default.Mode = strings.ToLower(*f.mode)
		case "retries":
			n := *f.retries
			pol.Default.Retries = &n
		case "hold-text":
			b := *f.holdText
			pol.Default.HoldText = &b
		case "dialects":
			pol.Default.Dialects = strings.Split(*f.dialects, ",")
		case "no-builtin":
			pol.NoBuiltin = *f.noBuiltin
		case "backoff":
			if *f.backoff <= 0 {
				err = fmt.Errorf("bad --backoff value %s (want more than 0)", *f.backoff)
			}
			pol.Backoff = *f.backoff
		}
	})
	if err != nil {
		return nil, err
	}
	if err := pol.Validate(); err != nil {
		return nil, fmt.Errorf("bad policy flags: %w", err)
	}
	return pol, nil
}

// explainPolicy prints the settings that apply to a request for model.
func explainPolicy(w io.Writer, pol *sievehttp.Policy, model string) error {
	s, err := pol.Resolve(model, nil)
	if err != nil {
		return err
	}
	dialects := s.Dialects
	if dialects == nil {
		dialects = []string{"all"}
	}
	allow := s.AllowRepairs
	if allow == nil {
		allow = []string{"marker_variant"}
	}
	out := map[string]any{
		"model": model, "mode": s.Mode(), "dialects": dialects, "allow_repairs": allow,
		"retries": s.Retries, "hold_text": s.HoldText, "code_guard": s.CodeGuard,
		"clean_history": s.CleanHistory, "decided_by": append(s.From, "defaults"),
	}
	if s.MaxCallBytes > 0 {
		out["max_call_bytes"] = s.MaxCallBytes
	}
	if r := s.Runaway; r != (toolsieve.RunawayLimits{}) { // 0: the parser's default
		out["runaway"] = map[string]int{"openers_without_closer": r.OpenersWithoutCloser,
			"nested_blocks": r.NestedBlocks, "repeated_calls": r.RepeatedCalls, "stray_closers": r.StrayClosers}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
