package sievehttp

// Policy: what the proxy and the HTTP wrappers do with each chat request,
// decided per request from headers, per-model rules, built-in defaults for
// known model families and a global default. See docs/policy.md.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/toolsieve/toolsieve"
)

// Request headers that override the policy for one request. They are
// removed (with every other X-Toolsieve-* request header) before the
// request goes upstream.
const (
	HeaderMode         = "X-Toolsieve-Mode"          // strict or lenient
	HeaderRetries      = "X-Toolsieve-Retries"       // 0..MaxRetries
	HeaderDialects     = "X-Toolsieve-Dialects"      // comma-separated dialect names, or "all"
	HeaderHoldText     = "X-Toolsieve-Hold-Text"     // true or false (also 1/0, yes/no, on/off)
	HeaderCleanHistory = "X-Toolsieve-Clean-History" // true or false (also 1/0, yes/no, on/off)
)

// Response headers (or trailers, for streams whose headers went out first)
// that say what was done to an answer.
const (
	HeaderRepairsOut = "X-Toolsieve-Repairs" // repair=count,... over the recovered calls
	HeaderRetriesOut = "X-Toolsieve-Retries" // how many times the request was re-issued
	HeaderRefused    = "X-Toolsieve-Refused" // calls refused by strict mode (their markup stayed text)
	HeaderRunaway    = "X-Toolsieve-Runaway" // the runaway's reason, when the answer was cut
	// HeaderTruncated is the number of calls the answer's cut left
	// unfinished (a broken connection, no finish marker, the token
	// limit): not handed on as calls.
	HeaderTruncated = "X-Toolsieve-Truncated"
)

// MaxRetries caps the retry budget of any rule or header.
const MaxRetries = 10

// Default backoff between retries: Backoff, doubled for each further retry,
// at most MaxBackoff.
const (
	DefaultBackoff    = 500 * time.Millisecond
	DefaultMaxBackoff = 8 * time.Second
)

// Modes.
const (
	ModeLenient = "lenient" // every recovered call is forwarded as a native call
	ModeStrict  = "strict"  // calls with repairs other than AllowRepairs stay text
)

// Rule is one layer of choices. Every field is optional: a field left unset
// (nil, "" or 0) leaves the decision to the layer below.
type Rule struct {
	// Dialects to recognise; ["all"] (or an empty list in a header) means
	// every dialect.
	Dialects []string `json:"dialects,omitempty"`
	// Mode is "strict" or "lenient".
	Mode string `json:"mode,omitempty"`
	// AllowRepairs are the repairs strict mode accepts (default
	// ["marker_variant"]).
	AllowRepairs []string `json:"allow_repairs,omitempty"`
	// Retries is the retry budget: how many times a bad answer is asked
	// for again (0..MaxRetries).
	Retries *int `json:"retries,omitempty"`
	// HoldText holds a streamed answer's text back until its first call
	// or its end, so that a retry stays possible after text was written.
	HoldText *bool `json:"hold_text,omitempty"`
	// StreamCalls sends a recovered call as it is written, as native
	// providers stream calls: its name first, then its arguments piece by
	// piece (Options.StreamCalls). Default: on in lenient mode, off in
	// strict mode (a call that fails later cannot be taken back).
	StreamCalls *bool `json:"stream_calls,omitempty"`
	// CodeGuard keeps markup inside code spans and fences as text
	// (default true; false sets Options.MarkupInCode).
	CodeGuard *bool `json:"code_guard,omitempty"`
	// CleanHistory rewrites markup left in the request's assistant
	// messages (default true with a Policy).
	CleanHistory *bool `json:"clean_history,omitempty"`
	// MaxCallBytes caps one call's bytes (Options.MaxCallBytes).
	MaxCallBytes int `json:"max_call_bytes,omitempty"`
	// IDFormat is the format of call ids the provider accepts: "mistral"
	// (nine alphanumerics) or a prefix (see toolchoice.go).
	IDFormat string `json:"id_format,omitempty"`
	// RetryFeedback makes a retry's request carry the failed answer and
	// a message that names what was wrong with it (see feedback.go).
	RetryFeedback *bool `json:"retry_feedback,omitempty"`
	// Runaway thresholds; zero fields are left to the layer below.
	Runaway *RunawayRule `json:"runaway,omitempty"`
	// Upstream timeouts in milliseconds (see Settings); 0 is unset.
	HeaderTimeoutMS   int `json:"header_timeout_ms,omitempty"`
	IdleTimeoutMS     int `json:"idle_timeout_ms,omitempty"`
	ResponseTimeoutMS int `json:"response_timeout_ms,omitempty"`
	// Upstream is where the rule's requests go (see UpstreamRule); in
	// Default, the upstream of requests no rule routes.
	Upstream *UpstreamRule `json:"upstream,omitempty"`
	// Reasoning is what becomes of reasoning markup in the content
	// (<think>...</think>): ReasoningSplit (default) moves it to the API's
	// reasoning field or thinking block, ReasoningKeep leaves it in the
	// text as the model wrote it (Options.KeepReasoning).
	Reasoning string `json:"reasoning,omitempty"`
}

// Reasoning settings (Rule.Reasoning).
const (
	ReasoningSplit = "split"
	ReasoningKeep  = "keep"
)

// RunawayRule holds runaway thresholds (see RunawayLimits); 0 is unset.
type RunawayRule struct {
	OpenersWithoutCloser int `json:"openers_without_closer,omitempty"`
	NestedBlocks         int `json:"nested_blocks,omitempty"`
	RepeatedCalls        int `json:"repeated_calls,omitempty"`
	StrayClosers         int `json:"stray_closers,omitempty"`
}

// ModelRule is a Rule for the models whose name matches Model: a glob
// with path.Match syntax (*, ?, [...]), matched case-insensitively against
// the request body's "model". A pattern without a slash is also matched
// against the part of the name after its last slash, so "deepseek-*"
// matches "deepseek/deepseek-chat" and "deepseek-ai/DeepSeek-V3".
type ModelRule struct {
	Model string `json:"model"`
	// Name labels the rule in logs (default: the pattern).
	Name string `json:"name,omitempty"`
	Rule
}

// Match reports whether the rule's pattern matches model.
func (r *ModelRule) Match(model string) bool {
	pat, m := strings.ToLower(r.Model), strings.ToLower(model)
	if ok, _ := path.Match(pat, m); ok {
		return true
	}
	if !strings.Contains(pat, "/") {
		if i := strings.LastIndexByte(m, '/'); i >= 0 {
			ok, _ := path.Match(pat, m[i+1:])
			return ok
		}
	}
	return false
}

// Policy decides, for each chat request, the Settings that apply. Each
// field of Settings comes from the first of these that sets it:
//
//  1. the request's X-Toolsieve-* headers, where they tighten what the
//     layers below decide (see ClientOverrides);
//  2. the first of Rules whose pattern matches the request's model;
//  3. the first built-in family rule (BuiltinRules) that matches, unless
//     NoBuiltin;
//  4. Default;
//  5. the defaults: lenient, no retries, no hold, calls streamed in
//     lenient mode only, code guard on, history cleaning on, every
//     dialect, the parser's runaway thresholds, the Default*Timeout
//     upstream timeouts.
//
// A nil *Policy is lenient without retries, built-in rules or history
// cleaning (the headers still apply, tightening only). The zero Policy is
// valid.
type Policy struct {
	Default   Rule
	Rules     []ModelRule
	NoBuiltin bool
	// ClientOverrides lets the request headers loosen the operator's
	// settings too (lenient over strict, more retries, other dialects,
	// hold-text on). Without it a header that would loosen a setting is
	// ignored, and named in Settings.Refused.
	ClientOverrides bool
	// Backoff is the wait before the first retry, doubled for each
	// further one up to MaxBackoff (0: the defaults).
	Backoff    time.Duration
	MaxBackoff time.Duration
	// Feedback replaces the texts of retry feedback messages, by kind
	// (FeedbackKinds; see feedback.go).
	Feedback map[string]string
}

// policyFile is the JSON form of a Policy.
type policyFile struct {
	Default         Rule              `json:"default"`
	Rules           []ModelRule       `json:"rules"`
	Builtin         *bool             `json:"builtin"`
	ClientOverrides bool              `json:"client_overrides"`
	BackoffMS       *int              `json:"backoff_ms"`
	MaxBackoffMS    *int              `json:"max_backoff_ms"`
	Feedback        map[string]string `json:"feedback_messages"`
}

// ParsePolicy reads a policy from JSON (see docs/policy.md). Unknown
// fields, unknown dialects, modes or repairs, bad patterns and budgets out
// of range are errors.
func ParsePolicy(data []byte) (*Policy, error) {
	var f policyFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	if dec.More() {
		return nil, errors.New("policy: data after the JSON object")
	}
	p := &Policy{Default: f.Default, Rules: f.Rules, NoBuiltin: f.Builtin != nil && !*f.Builtin, ClientOverrides: f.ClientOverrides, Feedback: f.Feedback}
	if f.BackoffMS != nil {
		if *f.BackoffMS < 0 {
			return nil, errors.New("policy: backoff_ms must not be negative")
		}
		p.Backoff = time.Duration(*f.BackoffMS) * time.Millisecond
	}
	if f.MaxBackoffMS != nil {
		if *f.MaxBackoffMS < 0 {
			return nil, errors.New("policy: max_backoff_ms must not be negative")
		}
		p.MaxBackoff = time.Duration(*f.MaxBackoffMS) * time.Millisecond
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// LoadPolicy reads a policy file.
func LoadPolicy(name string) (*Policy, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return ParsePolicy(data)
}

// Validate checks every rule of p.
func (p *Policy) Validate() error {
	if p == nil {
		return nil
	}
	if err := p.Default.validate(); err != nil {
		return fmt.Errorf("policy: default: %w", err)
	}
	if err := validFeedback(p.Feedback); err != nil {
		return fmt.Errorf("policy: feedback_messages: %w", err)
	}
	for i := range p.Rules {
		r := &p.Rules[i]
		if r.Model == "" {
			return fmt.Errorf("policy: rule %d: no model pattern", i+1)
		}
		if _, err := path.Match(strings.ToLower(r.Model), ""); err != nil {
			return fmt.Errorf("policy: rule %d: bad model pattern %q", i+1, r.Model)
		}
		if err := r.Rule.validate(); err != nil {
			return fmt.Errorf("policy: rule %d (%s): %w", i+1, r.Model, err)
		}
	}
	return nil
}

func (r *Rule) validate() error {
	if _, err := dialectSet(r.Dialects); err != nil {
		return err
	}
	switch r.Mode {
	case "", ModeLenient, ModeStrict:
	default:
		return fmt.Errorf("mode %q (want strict or lenient)", r.Mode)
	}
	for _, name := range r.AllowRepairs {
		if !knownRepair(name) {
			return fmt.Errorf("unknown repair %q in allow_repairs", name)
		}
	}
	if r.Retries != nil && (*r.Retries < 0 || *r.Retries > MaxRetries) {
		return fmt.Errorf("retries %d (want 0 to %d)", *r.Retries, MaxRetries)
	}
	if r.MaxCallBytes < 0 {
		return errors.New("max_call_bytes must not be negative")
	}
	if rr := r.Runaway; rr != nil && (rr.OpenersWithoutCloser < 0 || rr.NestedBlocks < 0 || rr.RepeatedCalls < 0 || rr.StrayClosers < 0) {
		return errors.New("runaway thresholds must not be negative")
	}
	if r.HeaderTimeoutMS < 0 || r.IdleTimeoutMS < 0 || r.ResponseTimeoutMS < 0 {
		return errors.New("timeouts must not be negative")
	}
	if r.Upstream != nil {
		if err := r.Upstream.validate(); err != nil {
			return err
		}
	}
	switch r.Reasoning {
	case "", ReasoningSplit, ReasoningKeep:
	default:
		return fmt.Errorf("reasoning %q (want split or keep)", r.Reasoning)
	}
	if err := validIDFormat(r.IDFormat); err != nil {
		return err
	}
	return nil
}

// dialectSet checks dialect names; nil means every dialect ("all").
func dialectSet(names []string) ([]string, error) {
	if len(names) == 0 || len(names) == 1 && strings.EqualFold(names[0], "all") {
		return nil, nil
	}
	out := make([]string, 0, len(names))
	for _, n := range names {
		n = strings.ToLower(strings.TrimSpace(n))
		if !slices.Contains(toolsieve.Dialects(), n) {
			return nil, fmt.Errorf("unknown dialect %q (known: %s)", n, strings.Join(toolsieve.Dialects(), ", "))
		}
		out = append(out, n)
	}
	return out, nil
}

func knownRepair(name string) bool {
	_, ok := toolsieve.ParseRepair(name)
	return ok
}

// Settings are the choices in force for one request.
type Settings struct {
	// Dialects enabled; nil means the parser's default (all).
	Dialects     []string
	Strict       bool
	AllowRepairs []string
	Retries      int
	HoldText     bool
	StreamCalls  bool
	CodeGuard    bool
	CleanHistory bool
	MaxCallBytes int
	IDFormat     string // "", "mistral" or a prefix
	// RetryFeedback: a retry tells the model what was wrong.
	RetryFeedback bool
	Runaway       toolsieve.RunawayLimits
	// Upstream timeouts; 0 means the default (DefaultHeaderTimeout, ...).
	// HeaderTimeout bounds the wait for the response headers of a
	// streamed request, ResponseTimeout that of any other request (its
	// server answers when the whole answer is ready), IdleTimeout the
	// silence between two reads of a response body.
	HeaderTimeout, IdleTimeout, ResponseTimeout time.Duration
	// Upstream is where the request goes: the matching rule's upstream,
	// else the default's; nil means the proxy's Upstream.
	Upstream *UpstreamRule
	// KeepReasoning leaves reasoning markup in the text (Rule.Reasoning
	// "keep").
	KeepReasoning bool
	// From names the layers that set something, highest first, for logs:
	// "header", a rule's name, "builtin:deepseek", "global" (Default).
	From []string
	// Refused names the request headers that were ignored because they
	// would have loosened the operator's settings.
	Refused []string
}

// Mode returns "strict" or "lenient".
func (s *Settings) Mode() string {
	if s.Strict {
		return ModeStrict
	}
	return ModeLenient
}

// apply sets the fields r sets, and reports whether it set any.
func (s *Settings) apply(r *Rule) bool {
	set := false
	if len(r.Dialects) > 0 {
		s.Dialects, _ = dialectSet(r.Dialects)
		set = true
	}
	if r.Mode != "" {
		s.Strict, set = r.Mode == ModeStrict, true
	}
	if r.AllowRepairs != nil {
		s.AllowRepairs, set = r.AllowRepairs, true
	}
	if r.Retries != nil {
		s.Retries, set = *r.Retries, true
	}
	if r.HoldText != nil {
		s.HoldText, set = *r.HoldText, true
	}
	if r.StreamCalls != nil {
		s.StreamCalls, set = *r.StreamCalls, true
	}
	if r.CodeGuard != nil {
		s.CodeGuard, set = *r.CodeGuard, true
	}
	if r.CleanHistory != nil {
		s.CleanHistory, set = *r.CleanHistory, true
	}
	if r.MaxCallBytes > 0 {
		s.MaxCallBytes, set = r.MaxCallBytes, true
	}
	if r.IDFormat != "" {
		s.IDFormat, set = r.IDFormat, true
	}
	if r.RetryFeedback != nil {
		s.RetryFeedback, set = *r.RetryFeedback, true
	}
	if rr := r.Runaway; rr != nil {
		for _, f := range [...]struct {
			dst *int
			v   int
		}{
			{&s.Runaway.OpenersWithoutCloser, rr.OpenersWithoutCloser},
			{&s.Runaway.NestedBlocks, rr.NestedBlocks},
			{&s.Runaway.RepeatedCalls, rr.RepeatedCalls},
			{&s.Runaway.StrayClosers, rr.StrayClosers},
		} {
			if f.v > 0 {
				*f.dst, set = f.v, true
			}
		}
	}
	for _, f := range [...]struct {
		dst *time.Duration
		ms  int
	}{
		{&s.HeaderTimeout, r.HeaderTimeoutMS}, {&s.IdleTimeout, r.IdleTimeoutMS}, {&s.ResponseTimeout, r.ResponseTimeoutMS},
	} {
		if f.ms > 0 {
			*f.dst, set = time.Duration(f.ms)*time.Millisecond, true
		}
	}
	if r.Upstream != nil {
		s.Upstream, set = r.Upstream, true
	}
	if r.Reasoning != "" {
		s.KeepReasoning, set = r.Reasoning == ReasoningKeep, true
	}
	return set
}

// Resolve returns the settings for a request for model with headers h
// (nil: none). It fails only on a bad header value.
func (p *Policy) Resolve(model string, h http.Header) (Settings, error) {
	return p.resolve(model, h, nil)
}

// resolve is Resolve for a proxy whose Upstream is fallback: its host
// tells a family when neither the model name nor the policy's upstream
// does.
func (p *Policy) resolve(model string, h http.Header, fallback *url.URL) (Settings, error) {
	s := Settings{CodeGuard: true, CleanHistory: p != nil}
	streamSet := false
	layer := func(r *Rule, name string) {
		streamSet = streamSet || r.StreamCalls != nil
		if s.apply(r) {
			s.From = append(s.From, name)
		}
	}
	if p != nil {
		layer(&p.Default, "global")
		rule := p.match(model)
		if fam, _ := p.family(model, rule, fallback); fam != nil {
			layer(&fam.Rule, "builtin:"+fam.Name)
		}
		if rule != nil {
			layer(&rule.Rule, rule.layerName())
		}
	}
	hr, err := headerRule(h)
	if err != nil {
		return s, err
	}
	if p == nil || !p.ClientOverrides {
		s.Refused = s.tighten(&hr)
	}
	layer(&hr, "header")
	if !streamSet {
		s.StreamCalls = !s.Strict
	}
	// Reverse From so that the deciding layer comes first, as documented.
	slices.Reverse(s.From)
	return s, nil
}

// LabelOther is the model label of requests that match no rule and no
// family (and of requests whose model is not known).
const LabelOther = "other"

// Family returns the built-in family whose rule applies to model ("" for
// none), and whether it was found by the upstream's host (a claude-* name
// sent to DeepSeek's Anthropic endpoint) rather than by the model's name.
// fallback is the proxy's Upstream, used when the policy names none.
func (p *Policy) Family(model string, fallback *url.URL) (family string, byHost bool) {
	if p == nil {
		return "", false
	}
	fam, byHost := p.family(model, p.match(model), fallback)
	if fam == nil {
		return "", false
	}
	return fam.Name, byHost
}

// family returns the built-in rule for model (rule: the policy rule it
// matches, if any): the first that matches its name, else the one of the
// family its upstream's host serves; nil without built-ins.
func (p *Policy) family(model string, rule *ModelRule, fallback *url.URL) (*ModelRule, bool) {
	if p.NoBuiltin {
		return nil, false
	}
	if fam := builtinFor(model); fam != nil {
		return fam, false
	}
	up := p.Default.Upstream
	if rule != nil && rule.Upstream != nil {
		up = rule.Upstream
	}
	fam := builtinNamed(familyOfHost(upstreamHost(up, fallback)))
	return fam, fam != nil
}

// ModelLabel returns the model label of a request for model in metrics:
// the name of the first rule its model matches (its pattern when it has no
// name), else its built-in family (by name or by upstream host), else
// LabelOther. The labels are bounded by the policy, whatever names clients
// send. fallback is as for Family.
func (p *Policy) ModelLabel(model string, fallback *url.URL) string {
	if p == nil {
		return LabelOther
	}
	rule := p.match(model)
	if rule != nil {
		return rule.label()
	}
	if fam, _ := p.family(model, nil, fallback); fam != nil {
		return fam.Name
	}
	return LabelOther
}

// ModelLabels returns every label ModelLabel can return, in a fixed order:
// the rules' (each once), the built-in families' unless NoBuiltin, and
// LabelOther.
func (p *Policy) ModelLabels() []string {
	var out []string
	add := func(l string) {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	if p != nil {
		for i := range p.Rules {
			add(p.Rules[i].label())
		}
		if !p.NoBuiltin {
			for i := range builtinRules {
				add(builtinRules[i].Name)
			}
		}
	}
	add(LabelOther)
	return out
}

// match returns the first rule whose pattern matches model, or nil.
func (p *Policy) match(model string) *ModelRule {
	for i := range p.Rules {
		if p.Rules[i].Match(model) {
			return &p.Rules[i]
		}
	}
	return nil
}

// layerName names the rule in Settings.From.
func (r *ModelRule) layerName() string {
	if r.Name != "" {
		return r.Name
	}
	return "rule:" + r.Model
}

// label is the rule's model label in metrics: its name, or its pattern.
func (r *ModelRule) label() string {
	if r.Name != "" {
		return r.Name
	}
	return r.Model
}

// builtinFor returns the first built-in rule that matches model, or nil.
func builtinFor(model string) *ModelRule {
	for i := range builtinRules {
		if builtinRules[i].Match(model) {
			return &builtinRules[i]
		}
	}
	return nil
}

// builtinNamed returns the first built-in rule of family name, or nil.
func builtinNamed(name string) *ModelRule {
	for i := range builtinRules {
		if name != "" && builtinRules[i].Name == name {
			return &builtinRules[i]
		}
	}
	return nil
}

// upstreamHost is the host of up, or of fallback when up is nil.
func upstreamHost(up *UpstreamRule, fallback *url.URL) string {
	if up != nil {
		if t, err := up.target(); err == nil {
			return t.Host
		}
		return ""
	}
	if fallback != nil {
		return fallback.Host
	}
	return ""
}

// options returns the parser options for s on top of base: the dialects,
// code guard, call cap and runaway thresholds that s sets.
func (s *Settings) options(base toolsieve.Options) toolsieve.Options {
	o := base
	if s.Dialects != nil {
		o.Dialects = s.Dialects
	}
	if !s.CodeGuard {
		o.MarkupInCode = true
	}
	o.StreamCalls = s.StreamCalls
	o.KeepReasoning = s.KeepReasoning
	if s.MaxCallBytes > 0 {
		o.MaxCallBytes = s.MaxCallBytes
	}
	s.idOptions(&o)
	if s.Strict {
		o.Strict = &toolsieve.Strict{Allow: toolsieve.RepairMarkerVariant}
		if s.AllowRepairs != nil {
			o.Strict.Allow = 0
			for _, n := range s.AllowRepairs {
				r, _ := toolsieve.ParseRepair(n) // names were validated
				o.Strict.Allow |= r
			}
		}
	}
	for _, f := range [...]struct {
		dst *int
		v   int
	}{
		{&o.Runaway.OpenersWithoutCloser, s.Runaway.OpenersWithoutCloser},
		{&o.Runaway.NestedBlocks, s.Runaway.NestedBlocks},
		{&o.Runaway.RepeatedCalls, s.Runaway.RepeatedCalls},
		{&o.Runaway.StrayClosers, s.Runaway.StrayClosers},
	} {
		if f.v > 0 {
			*f.dst = f.v
		}
	}
	return o
}

// backoff returns the wait before retry n (0-based).
func (p *Policy) backoff(n int) time.Duration {
	base, max := DefaultBackoff, DefaultMaxBackoff
	if p != nil && p.Backoff > 0 {
		base = p.Backoff
	}
	if p != nil && p.MaxBackoff > 0 {
		max = p.MaxBackoff
	}
	d := base
	for range n {
		if d >= max/2 {
			return max
		}
		d *= 2
	}
	return min(d, max)
}

// ---- built-in model families ----

func intp(n int) *int { return &n }

// builtinRules are the defaults for known model families, tried in order
// (so "deepseek-r1-distill-qwen" is DeepSeek). They tune, they do not
// narrow: every dialect stays enabled, because a model of one family may
// write another's markup (a distilled model, a router alias) and the
// content decides the dialect. DeepSeek is lenient (as Kilo Code makes it
// by default); families known to loop get 2 retries.
var builtinRules = []ModelRule{
	{Model: "*deepseek*", Name: "deepseek", Rule: Rule{Retries: intp(2), Mode: ModeLenient}},
	{Model: "*qwen*", Name: "qwen", Rule: Rule{Retries: intp(2)}},
	{Model: "*qwq*", Name: "qwen", Rule: Rule{Retries: intp(2)}},
	{Model: "*glm*", Name: "glm", Rule: Rule{Retries: intp(2)}},
}

// BuiltinRules returns a copy of the built-in family rules, in the order
// they are tried.
func BuiltinRules() []ModelRule {
	out := make([]ModelRule, len(builtinRules))
	for i, r := range builtinRules {
		r.Dialects = slices.Clone(r.Dialects)
		out[i] = r
	}
	return out
}
