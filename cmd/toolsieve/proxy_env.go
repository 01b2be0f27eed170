package main

// The proxy's configuration from the environment: every flag also reads
// TOOLSIEVE_<FLAG> (upper case, dashes as underscores) when it is not on
// the command line, so that a container or a systemd unit is configured
// without a command line; and the upstream's key, which is never a flag.

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"strings"

	"github.com/toolsieve/toolsieve/sievehttp"
)

// envPrefix starts the flags' environment variables; envUpstreamKey is
// the default upstream's key (--upstream-key-file names a file instead).
const (
	envPrefix      = "TOOLSIEVE_"
	envUpstreamKey = "TOOLSIEVE_UPSTREAM_KEY"
)

// noEnvFlags are flags read only from the command line: one-shot actions.
var noEnvFlags = map[string]bool{"explain": true}

// envName is the environment variable of flag name.
func envName(name string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// flagsFromEnv sets each flag of fs that the command line did not set from
// its environment variable, when that is set and not empty (flags win).
// A bad value is an error naming the variable.
func flagsFromEnv(fs *flag.FlagSet, lookup func(string) (string, bool)) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] || noEnvFlags[f.Name] {
			return
		}
		v, ok := lookup(envName(f.Name))
		if !ok || v == "" {
			return
		}
		if err := fs.Set(f.Name, v); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", envName(f.Name), err))
		}
	})
	return errors.Join(errs...)
}

// defaultUpstream makes the policy's default upstream: --upstream (which
// replaces the policy file's "default" upstream), else the policy file's.
// Its key, when the policy names none for it, comes from keyFile
// (--upstream-key-file, TOOLSIEVE_UPSTREAM_KEY_FILE), else from the
// variable TOOLSIEVE_UPSTREAM_KEY when it is set; Policy.LoadKeys reads it.
// Without either, the clients' own credentials are forwarded. It returns
// the default upstream's URL; an error when there is none.
func defaultUpstream(pol *sievehttp.Policy, flagURL, keyFile string, lookup func(string) (string, bool)) (*url.URL, error) {
	if flagURL != "" {
		up, err := url.Parse(flagURL)
		if err != nil || (up.Scheme != "http" && up.Scheme != "https") || up.Host == "" {
			return nil, errors.New("bad --upstream value (want an http or https URL)")
		}
		pol.Default.Upstream = &sievehttp.UpstreamRule{URL: flagURL}
	}
	d := pol.Default.Upstream
	if d == nil {
		return nil, errors.New("--upstream is required (or TOOLSIEVE_UPSTREAM, or an upstream in the policy's default)")
	}
	if d.KeyEnv == "" && d.KeyFile == "" && d.Key == "" {
		if v, ok := lookup(envUpstreamKey); keyFile == "" && ok && strings.TrimSpace(v) != "" {
			d.KeyEnv = envUpstreamKey
		}
		d.KeyFile = keyFile
	}
	return url.Parse(d.URL) // validated with the policy
}

// explainUpstream is the upstream of --explain's output: where requests
// for the model go and where its key comes from (never the key).
func explainUpstream(s *sievehttp.Settings) map[string]string {
	up := s.Upstream
	if up == nil {
		return map[string]string{"url": "(--upstream)", "key": "none"}
	}
	out := map[string]string{"url": up.Redacted(), "name": up.DisplayName(), "key": up.KeySource()}
	if up.Auth != "" {
		out["auth"] = up.Auth
	}
	return out
}

// policyKeys reports an upstream key the proxy holds: anyone who can
// reach the proxy would use it.
func policyKeys(pol *sievehttp.Policy) bool {
	for _, u := range pol.Upstreams(nil) {
		if u.Key != "" {
			return true
		}
	}
	return false
}

// reasoningName is the policy's name of the reasoning setting.
func reasoningName(keep bool) string {
	if keep {
		return sievehttp.ReasoningKeep
	}
	return sievehttp.ReasoningSplit
}

// upstreamList names the policy's upstreams for the start-up log: name,
// URL without credentials, where the key comes from (never the key).
func upstreamList(pol *sievehttp.Policy) string {
	var b strings.Builder
	for i, u := range pol.Upstreams(nil) {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%s (key: %s)", u.DisplayName(), u.Redacted(), u.KeySource())
	}
	return b.String()
}
