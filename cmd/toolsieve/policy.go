package main

// The proxy's policy flags: --policy FILE and the global default's fields,
// the warnings for flags that built-in family rules outrank, and --explain.

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/sievehttp"
)

// policyFlags are the flags that make the proxy's policy.
type policyFlags struct {
	file            *string
	mode            *string
	retries         *int
	holdText        *bool
	retryFeedback   *bool
	streamCalls     *bool
	dialects        *string
	noBuiltin       *bool
	backoff         *time.Duration
	headerTimeout   *time.Duration
	idleTimeout     *time.Duration
	responseTimeout *time.Duration
	explain         *string
}

func addPolicyFlags(fs *flag.FlagSet) *policyFlags {
	return &policyFlags{
		file:            fs.String("policy", "", ""),
		mode:            fs.String("mode", "", ""),
		retries:         fs.Int("retries", 0, ""),
		holdText:        fs.Bool("hold-text", false, ""),
		retryFeedback:   fs.Bool("retry-feedback", false, ""),
		streamCalls:     fs.Bool("stream-calls", false, ""),
		dialects:        fs.String("dialects", "", ""),
		noBuiltin:       fs.Bool("no-builtin", false, ""),
		backoff:         fs.Duration("backoff", 0, ""),
		headerTimeout:   fs.Duration("header-timeout", 0, ""),
		idleTimeout:     fs.Duration("idle-timeout", 0, ""),
		responseTimeout: fs.Duration("response-timeout", 0, ""),
		explain:         fs.String("explain", "", ""),
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
	positive := func(name string, d time.Duration) {
		if d <= 0 && err == nil {
			err = fmt.Errorf("bad --%s value %s (want more than 0)", name, d)
		}
	}
	ms := func(d time.Duration) int { return int(max(1, d.Milliseconds())) }
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
		case "retry-feedback":
			b := *f.retryFeedback
			pol.Default.RetryFeedback = &b
		case "stream-calls":
			b := *f.streamCalls
			pol.Default.StreamCalls = &b
		case "dialects":
			pol.Default.Dialects = strings.Split(*f.dialects, ",")
		case "no-builtin":
			pol.NoBuiltin = *f.noBuiltin
		case "backoff":
			positive(fl.Name, *f.backoff)
			pol.Backoff = *f.backoff
		case "header-timeout":
			positive(fl.Name, *f.headerTimeout)
			pol.Default.HeaderTimeoutMS = ms(*f.headerTimeout)
		case "idle-timeout":
			positive(fl.Name, *f.idleTimeout)
			pol.Default.IdleTimeoutMS = ms(*f.idleTimeout)
		case "response-timeout":
			positive(fl.Name, *f.responseTimeout)
			pol.Default.ResponseTimeoutMS = ms(*f.responseTimeout)
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

// outranked is a flag whose value a built-in family rule overrides for
// that family's models (built-in rules rank above the global default).
type outranked struct {
	flag, value string
	rule        sievehttp.ModelRule
	ruleValue   string
}

func (o outranked) String() string {
	return fmt.Sprintf("--%s %s does not apply to models matching %q: the built-in rule %s sets %s %s and ranks above the command line; "+
		"to apply it, add a policy rule {\"model\": %q, %q: %s} or use --no-builtin",
		o.flag, o.value, o.rule.Model, o.rule.Name, o.flag, o.ruleValue, o.rule.Model, o.flag, jsonValue(o.flag, o.value))
}

// jsonValue is a flag's value as the policy file writes it.
func jsonValue(flag, v string) string {
	if flag == "mode" {
		return strconv.Quote(v)
	}
	return v
}

// outrankedFlags lists the flags given on the command line (--mode,
// --retries) whose value a built-in rule overrides.
func (f *policyFlags) outrankedFlags(fs *flag.FlagSet, pol *sievehttp.Policy) []outranked {
	if pol.NoBuiltin {
		return nil
	}
	var out []outranked
	fs.Visit(func(fl *flag.Flag) {
		for _, r := range sievehttp.BuiltinRules() {
			switch {
			case fl.Name == "mode" && r.Mode != "" && r.Mode != pol.Default.Mode:
				out = append(out, outranked{fl.Name, pol.Default.Mode, r, r.Mode})
			case fl.Name == "retries" && r.Retries != nil && *r.Retries != *f.retries:
				out = append(out, outranked{fl.Name, strconv.Itoa(*f.retries), r, strconv.Itoa(*r.Retries)})
			}
		}
	})
	return out
}

// explainPolicy prints the settings that apply to a request for model, and
// on warn the flags a built-in rule outranks for that model.
func explainPolicy(w, warn io.Writer, pol *sievehttp.Policy, model string, over []outranked) error {
	s, err := pol.Resolve(model, nil)
	if err != nil {
		return err
	}
	for _, o := range over {
		if o.rule.Match(model) {
			fmt.Fprintf(warn, "toolsieve proxy: warning: %s\n", o)
		}
	}
	dialects := s.Dialects
	if dialects == nil {
		dialects = []string{"all"}
	}
	allow := s.AllowRepairs
	if allow == nil {
		allow = []string{"marker_variant"}
	}
	// The layers that set something, then "defaults" for what none set.
	decided := append(s.From, "defaults")
	out := map[string]any{
		"model": model, "mode": s.Mode(), "dialects": dialects, "allow_repairs": allow,
		"retries": s.Retries, "hold_text": s.HoldText, "retry_feedback": s.RetryFeedback, "stream_calls": s.StreamCalls, "code_guard": s.CodeGuard,
		"clean_history": s.CleanHistory, "decided_by": decided,
		"header_timeout":   orDefault(s.HeaderTimeout, sievehttp.DefaultHeaderTimeout).String(),
		"idle_timeout":     orDefault(s.IdleTimeout, sievehttp.DefaultIdleTimeout).String(),
		"response_timeout": orDefault(s.ResponseTimeout, sievehttp.DefaultResponseTimeout).String(),
		"client_overrides": pol.ClientOverrides,
		"upstream":         explainUpstream(&s),
		"model_label":      pol.ModelLabel(model, nil),
		"reasoning":        reasoningName(s.KeepReasoning),
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

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}
