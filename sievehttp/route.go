package sievehttp

// Upstreams per model: a policy rule may name an upstream of its own (a
// base URL, and where its API key comes from), and the proxy sends each
// request to the upstream of the rule its model matches (the default's
// otherwise). A key the proxy holds replaces the client's credentials.

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/internal/jsonspan"
)

// Ways an upstream key is sent (UpstreamRule.Auth).
const (
	AuthBearer = "bearer"    // Authorization: Bearer KEY (OpenAI and most others)
	AuthAPIKey = "x-api-key" // x-api-key: KEY (Anthropic's API)
)

// UpstreamRule is where the requests of a rule go (the policy field
// "upstream"): a base URL, the request path appended unchanged, as the
// proxy's --upstream; and the API key the proxy sends there, if it holds
// one. The key never comes from the policy file itself: KeyEnv names the
// environment variable that holds it, KeyFile a file (LoadKeys reads them).
type UpstreamRule struct {
	// URL is the base URL (http or https).
	URL string `json:"url"`
	// Name labels the upstream in logs and on /readyz (default: the URL's
	// host).
	Name string `json:"name,omitempty"`
	// KeyEnv is the name of the environment variable holding the key.
	KeyEnv string `json:"key_env,omitempty"`
	// KeyFile is a file holding the key (surrounding whitespace ignored).
	KeyFile string `json:"key_file,omitempty"`
	// Auth is how the key is sent: AuthBearer, AuthAPIKey, or "" (the
	// header the client used for its own key, else x-api-key on Anthropic
	// paths and Authorization: Bearer on the others).
	Auth string `json:"auth,omitempty"`
	// Key is the API key; set by LoadKeys, or in Go. Never logged. When
	// set, it replaces the client's Authorization and x-api-key headers.
	Key string `json:"-"`
}

// DisplayName is the upstream's name, or its host.
func (u *UpstreamRule) DisplayName() string {
	if u.Name != "" {
		return u.Name
	}
	if t, err := u.target(); err == nil {
		return t.Host
	}
	return u.URL
}

// target parses the URL.
func (u *UpstreamRule) target() (*url.URL, error) {
	t, err := url.Parse(u.URL)
	if err != nil || (t.Scheme != "http" && t.Scheme != "https") || t.Host == "" {
		return nil, fmt.Errorf("bad upstream url %q (want an http or https URL)", redactRaw(u.URL))
	}
	return t, nil
}

func (u *UpstreamRule) validate() error {
	if _, err := u.target(); err != nil {
		return err
	}
	if u.KeyEnv != "" && u.KeyFile != "" {
		return errors.New("upstream: key_env and key_file both set (want one)")
	}
	switch u.Auth {
	case "", AuthBearer, AuthAPIKey:
	default:
		return fmt.Errorf("upstream: auth %q (want bearer or x-api-key)", u.Auth)
	}
	return nil
}

// KeySource says where the key comes from, for logs and --explain:
// "env NAME", "file PATH", "set" (in Go) or "none" (the client's own
// credentials are forwarded). Never the key.
func (u *UpstreamRule) KeySource() string {
	switch {
	case u.KeyEnv != "":
		return "env " + u.KeyEnv
	case u.KeyFile != "":
		return "file " + u.KeyFile
	case u.Key != "":
		return "set"
	}
	return "none"
}

// LoadKeys reads the key of every upstream of the policy that names one
// (KeyEnv through lookup, os.LookupEnv when nil; KeyFile from disk). A
// variable that is unset or empty, or a file that cannot be read or is
// empty, is an error that names it (never a key).
func (p *Policy) LoadKeys(lookup func(string) (string, bool)) error {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	for _, up := range p.upstreamRules() {
		var key string
		switch {
		case up.r.KeyEnv != "":
			v, ok := lookup(up.r.KeyEnv)
			if key = strings.TrimSpace(v); !ok || key == "" {
				return fmt.Errorf("policy: %s: upstream key variable %s is not set", up.where, up.r.KeyEnv)
			}
		case up.r.KeyFile != "":
			b, err := os.ReadFile(up.r.KeyFile)
			if err != nil {
				return fmt.Errorf("policy: %s: upstream key file: %w", up.where, err)
			}
			if key = strings.TrimSpace(string(b)); key == "" {
				return fmt.Errorf("policy: %s: upstream key file %s is empty", up.where, up.r.KeyFile)
			}
		default:
			continue
		}
		up.r.Key = key
	}
	return nil
}

// placedUpstream is an upstream of the policy and where it is written.
type placedUpstream struct {
	r     *UpstreamRule
	where string // "default", "rule 2 (deepseek-*)"
}

// upstreamRules returns the policy's upstreams: the default's, then the
// rules', in order.
func (p *Policy) upstreamRules() []placedUpstream {
	if p == nil {
		return nil
	}
	var out []placedUpstream
	if p.Default.Upstream != nil {
		out = append(out, placedUpstream{p.Default.Upstream, "default"})
	}
	for i := range p.Rules {
		if up := p.Rules[i].Upstream; up != nil {
			out = append(out, placedUpstream{up, fmt.Sprintf("rule %d (%s)", i+1, p.Rules[i].Model)})
		}
	}
	return out
}

// Upstreams returns the distinct upstreams requests may go to: the
// default's (fallback when the policy names none), then those of the
// rules, each once (the same URL and key source).
func (p *Policy) Upstreams(fallback *url.URL) []*UpstreamRule {
	var out []*UpstreamRule
	seen := map[[2]string]bool{}
	add := func(u *UpstreamRule) {
		k := [2]string{u.URL, u.KeySource() + "\x00" + u.Auth}
		if !seen[k] {
			seen[k] = true
			out = append(out, u)
		}
	}
	if p == nil || p.Default.Upstream == nil {
		if fallback != nil {
			add(&UpstreamRule{URL: fallback.String()})
		}
	}
	for _, up := range p.upstreamRules() {
		add(up.r)
	}
	return out
}

// routes reports whether some rule sends its requests elsewhere than the
// default upstream.
func (p *Policy) routes() bool {
	if p == nil {
		return false
	}
	for i := range p.Rules {
		if p.Rules[i].Upstream != nil {
			return true
		}
	}
	return false
}

// route is where one request goes.
type route struct {
	target *url.URL
	name   string
	key    string
	auth   string
}

// routeFor returns where a request with settings s goes: s.Upstream, or
// fallback (the proxy's Upstream, without a key).
func routeFor(s *Settings, fallback *url.URL) (route, error) {
	if s.Upstream == nil {
		if fallback == nil {
			return route{}, errors.New("no upstream")
		}
		return route{target: fallback, name: fallback.Host}, nil
	}
	t, err := s.Upstream.target()
	if err != nil {
		return route{}, err
	}
	return route{target: t, name: s.Upstream.DisplayName(), key: s.Upstream.Key, auth: s.Upstream.Auth}, nil
}

// clientKeyStyle is the header a client sent its key in: AuthAPIKey,
// AuthBearer, or "".
func clientKeyStyle(h http.Header) string {
	switch {
	case h.Get("X-Api-Key") != "":
		return AuthAPIKey
	case h.Get("Authorization") != "":
		return AuthBearer
	}
	return ""
}

// setCredentials puts the route's credentials on an outgoing request's
// headers: its key, replacing the client's Authorization and x-api-key,
// in the header its Auth names (or client's style, or the API's own); or,
// without a key, the user information of its URL as Basic authentication
// when the client sent no Authorization.
func (rt *route) setCredentials(h http.Header, client string, api chat.API) {
	if rt.key == "" {
		if u := rt.target.User; u != nil && h.Get("Authorization") == "" {
			pw, _ := u.Password()
			r := http.Request{Header: h}
			r.SetBasicAuth(u.Username(), pw)
		}
		return
	}
	style := rt.auth
	if style == "" {
		style = client
	}
	if style == "" {
		style = AuthBearer
		if api == chat.APIAnthropic {
			style = AuthAPIKey
		}
	}
	h.Del("Authorization")
	h.Del("X-Api-Key")
	if style == AuthAPIKey {
		h.Set("X-Api-Key", rt.key)
	} else {
		h.Set("Authorization", "Bearer "+rt.key)
	}
}

// hostFamilies are the providers whose hosts tell the family of the model
// behind them when its name does not: Claude Code sends claude-* names to
// DeepSeek's, GLM's and Qwen's Anthropic endpoints. Hosts match
// themselves and their subdomains.
var hostFamilies = []struct {
	family string
	hosts  []string
}{
	{"deepseek", []string{"deepseek.com"}},
	{"qwen", []string{"dashscope.aliyuncs.com", "dashscope-intl.aliyuncs.com"}},
	{"glm", []string{"bigmodel.cn", "z.ai"}},
}

// familyOfHost returns the family whose provider serves host, or "".
func familyOfHost(host string) string {
	host = strings.ToLower(host)
	if h, _, ok := strings.Cut(host, ":"); ok {
		host = h
	}
	for _, f := range hostFamilies {
		for _, s := range f.hosts {
			if host == s || strings.HasSuffix(host, "."+s) {
				return f.family
			}
		}
	}
	return ""
}

// redactRaw drops the user information and query of a URL written in a
// policy, for error messages.
func redactRaw(s string) string {
	if u, err := url.Parse(s); err == nil {
		return redactURL(u)
	}
	return "(unparsable)"
}

// peekModel reads the model of a request that is not a chat request
// (token counting, embeddings), so that it goes to the upstream of its
// model's rule too: when the policy routes by model, a POST, PUT or PATCH
// body up to MaxRequestBytes is held (in the memory budget) and read for
// its "model". A larger body, or one that names no model, goes to the
// default upstream. release gives the body's share of the budget back.
func (p *Proxy) peekModel(r *http.Request) (out *http.Request, model string, release func(), err error) {
	h := &hold{b: p.mem}
	release = h.free
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
	default:
		return r, "", release, nil
	}
	if !p.Policy.routes() {
		return r, "", release, nil
	}
	max := p.MaxRequestBytes
	if max <= 0 {
		max = DefaultMaxRequestBytes
	}
	out, body, err := holdBody(r, bodyLimits{max: max, hold: h})
	if err != nil {
		return nil, "", release, err
	}
	ms, _ := jsonspan.Members(body, 0, nil)
	if m, ok := jsonspan.Lookup(body, ms, "model"); ok && jsonspan.IsString(body, m) {
		model = string(jsonspan.AppendUnquoted(nil, body[m.Start:m.End]))
	}
	return out, model, release, nil
}

// Redacted is the URL without user information or query, for logs and
// --explain.
func (u *UpstreamRule) Redacted() string { return redactRaw(u.URL) }
