package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/sievehttp"
)

const proxyUsage = `Usage: toolsieve proxy --upstream URL [--upstream-key-file FILE] [--listen ADDR] [--tools FILE] [--policy FILE]
                       [--mode strict|lenient] [--retries N] [--hold-text] [--retry-feedback] [--stream-calls] [--dialects LIST]
                       [--no-builtin] [--backoff D] [--header-timeout D] [--idle-timeout D]
                       [--response-timeout D] [--client-timeout D] [--memory-budget SIZE]
                       [--max-request-body SIZE] [--client-keys-file FILE] [--metrics]
                       [--capture DIR] [--log-format text|json] [--log-level LEVEL]
       toolsieve proxy [--policy FILE] [policy flags] --explain MODEL

Serves an OpenAI-compatible (and Anthropic-compatible) endpoint on ADDR and
forwards every request to URL with the request path appended unchanged:
with --upstream https://api.deepseek.com, point the client's base URL at
http://127.0.0.1:8080/v1. Chat responses (POST .../chat/completions and
.../messages, streamed or not) come back with the tool calls the model wrote
as markup turned into native tool calls, the markup taken out of the
content, and finish_reason tool_calls (stop_reason tool_use). Everything
else passes through unchanged, but GET /healthz, which the proxy answers.
Credentials are forwarded, never logged; user:password@ in URL is sent as
Basic authentication on requests without an Authorization header.

Listening on an address other than loopback is logged as a warning: anyone
who can reach it can use the proxy. With credentials in --upstream (user
information, or a key in its query) the proxy then refuses to start unless
--client-keys-file names the keys that every request must present.

A policy decides per request (see docs/policy.md): the first rule of
--policy whose glob matches the request's model, then the built-in rule of
the model's family (DeepSeek, Qwen, GLM), then the global default (the
policy file's "default", overridden by the flags below). Request headers
X-Toolsieve-Mode, -Retries, -Dialects, -Hold-Text and -Clean-History (never
forwarded) may only tighten that (strict, fewer retries, fewer dialects, no
hold), unless the policy file says "client_overrides": true. Strict mode
keeps calls with structural repairs (anything but marker_variant) as text
and says so in X-Toolsieve-Refused. A bad answer (a runaway, unrecovered or
refused call markup, an empty call block) is asked for again, with backoff,
while nothing of it has reached the client. Assistant messages of the
request that still hold tool markup are rewritten with native calls.

Every flag but --explain can also be set by an environment variable,
TOOLSIEVE_ and its name in upper case with underscores (TOOLSIEVE_UPSTREAM,
TOOLSIEVE_POLICY, TOOLSIEVE_LISTEN, TOOLSIEVE_METRICS=true, ...); a flag on
the command line wins over its variable. The upstream's API key is never a
flag: TOOLSIEVE_UPSTREAM_KEY, or a file (--upstream-key-file,
TOOLSIEVE_UPSTREAM_KEY_FILE). With a key the proxy replaces the client's
Authorization or x-api-key with it; without one the client's are forwarded.

Upstreams per model: a policy rule may name its own "upstream" (URL, and
"key_env" the variable holding its key, or "key_file"); requests go to the
upstream of the rule their model matches, others to --upstream (or the
policy default's upstream). GET /readyz asks each upstream for /v1/models
and answers 200 while one of them answers, 503 when none does.

Flags:
  --upstream URL        the API to forward to (required, unless the policy's
                        default names an upstream)
  --upstream-key-file FILE
                        a file holding the upstream's API key
  --capture DIR         save each chat exchange in DIR: ID.request.json (the
                        request body), ID.upstream (the upstream's answer as
                        received), ID.response (what the client got),
                        ID.meta.json (model, status, headers without
                        credentials); replay one with toolsieve rewrite
                        --policy FILE --model MODEL --tools ID.request.json
                        ID.upstream
  --listen ADDR         address to serve on (default 127.0.0.1:8080)
  --tools FILE          declared tools to use for every request, instead of the
                        tools each request declares
  --policy FILE         a JSON policy file (see docs/policy.md)
  --mode MODE           global default: strict or lenient (default lenient)
  --retries N           global default retry budget, 0 to 10 (default 0)
  --hold-text           global default: hold a stream's text back while a
                        retry is possible (costs latency)
  --retry-feedback      global default: a retry's request carries the failed
                        answer and a message saying what was wrong with it
  --stream-calls        global default: send a recovered call as it is
                        written, name first, then its arguments piece by piece
                        (default on in lenient mode, off in strict mode;
                        --stream-calls=false turns it off)
  --dialects LIST       global default dialects, comma-separated (default all)
  --no-builtin          no built-in rules for known model families
  --backoff D           wait before the first retry, doubled after each
                        (default 500ms, at most 8s)
  --header-timeout D    wait for a streamed answer's response headers
                        (default 2m0s)
  --idle-timeout D      longest silence of the upstream in the middle of an
                        answer (default 5m0s)
  --response-timeout D  wait for the response headers of a non-streamed
                        answer, written whole first (default 10m0s)
  --client-timeout D    a client connection silent this long is closed: while
                        it sends its request, between requests, or while it
                        takes none of its answer (default 1m0s)
  --memory-budget SIZE  bytes held across requests: request bodies, answers
                        held for retries, whole answers being rewritten,
                        stream buffers grown by large events (default
                        256MiB); past it held streams go out unheld and
                        other requests get 503. Also the Go runtime's
                        memory limit, unless GOMEMLIMIT is set
  --max-request-body SIZE
                        largest request body; larger ones get 413
                        (default 32MiB)
  --client-keys-file FILE
                        keys, one per line (# comments), that every request
                        but GET /healthz must present, as X-Toolsieve-Key,
                        Authorization: Bearer KEY or x-api-key (the last two
                        are then removed before forwarding); others get 401.
                        Compared in constant time, never logged
  --metrics             serve Prometheus metrics on GET /metrics
  --explain MODEL       print the settings a request for MODEL gets, and exit
  --log-format FMT      text or json (default text), on standard error;
                        durations are in seconds (duration_seconds)
  --log-level LEVEL     debug, info, warn or error (default info)

Timeouts are Go durations (90s, 2m); sizes are bytes with an optional unit
(KB, MB, GB or KiB, MiB, GiB). Upstream timeouts cancel the upstream request
and end the client's answer with an error in the API's shape: 504 before
it started, an error event in a stream under way.

Stops on SIGINT or SIGTERM, letting requests in flight finish for up to 10s.
Exit status: 0 after a clean stop, 1 when the address cannot be served,
2 for bad usage.
`

// proxySignals returns the context that stops the proxy; tests replace it.
var proxySignals = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// proxyListening is called with the address the proxy serves on; tests
// use it to find a port chosen by the system.
var proxyListening = func(net.Addr) {}

func runProxy(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "proxy"
	fs := newFlagSet(name)
	listen := fs.String("listen", "127.0.0.1:8080", "")
	upstream := fs.String("upstream", "", "")
	toolsFile := fs.String("tools", "", "")
	logFormat := fs.String("log-format", "text", "")
	logLevel := fs.String("log-level", "info", "")
	metrics := fs.Bool("metrics", false, "")
	clientTimeout := fs.Duration("client-timeout", defaultClientTimeout, "")
	memBudget := sizeFlag(fs, "memory-budget", sievehttp.DefaultMemoryBudget)
	maxBody := sizeFlag(fs, "max-request-body", sievehttp.DefaultMaxRequestBytes)
	keysFile := fs.String("client-keys-file", "", "")
	upKeyFile := fs.String("upstream-key-file", "", "")
	capture := fs.String("capture", "", "")
	pf := addPolicyFlags(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(err, name, proxyUsage, stdout, stderr)
	}
	if err := flagsFromEnv(fs, os.LookupEnv); err != nil {
		return usageError(stderr, name, proxyUsage, err.Error())
	}
	if len(pos) > 0 {
		return usageError(stderr, name, proxyUsage, fmt.Sprintf("unexpected arguments: %q", pos))
	}
	policy, err := pf.policy(fs)
	if err != nil {
		return usageError(stderr, name, proxyUsage, err.Error())
	}
	over := pf.outrankedFlags(fs, policy)
	up, upErr := defaultUpstream(policy, *upstream, *upKeyFile, os.LookupEnv)
	if *pf.explain != "" {
		if err := explainPolicy(stdout, stderr, policy, *pf.explain, over); err != nil {
			fmt.Fprintf(stderr, "toolsieve proxy: %v\n", err)
			return exitIO
		}
		return exitOK
	}
	if upErr != nil {
		return usageError(stderr, name, proxyUsage, upErr.Error())
	}
	if err := policy.LoadKeys(os.LookupEnv); err != nil {
		return usageError(stderr, name, proxyUsage, err.Error())
	}
	if *clientTimeout <= 0 {
		return usageError(stderr, name, proxyUsage, fmt.Sprintf("bad --client-timeout value %s (want more than 0)", *clientTimeout))
	}
	var keys *sievehttp.ClientKeys
	if *keysFile != "" {
		if keys, err = sievehttp.LoadClientKeys(*keysFile); err != nil {
			return usageError(stderr, name, proxyUsage, "--client-keys-file: "+err.Error())
		}
	}
	open := !loopback(*listen)
	if open && keys == nil && (upstreamCredentials(up) || policyKeys(policy)) {
		return usageError(stderr, name, proxyUsage, fmt.Sprintf("--upstream holds credentials and --listen %s is not a loopback address: "+
			"anyone who can reach it would use them; name the keys clients must present with --client-keys-file, or listen on 127.0.0.1", *listen))
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return usageError(stderr, name, proxyUsage, fmt.Sprintf("bad --log-level value %q", *logLevel))
	}
	hopts := &slog.HandlerOptions{Level: level}
	var logger *slog.Logger
	switch *logFormat {
	case "text":
		logger = slog.New(slog.NewTextHandler(stderr, hopts))
	case "json":
		logger = slog.New(slog.NewJSONHandler(stderr, hopts))
	default:
		return usageError(stderr, name, proxyUsage, fmt.Sprintf("bad --log-format value %q (want text or json)", *logFormat))
	}
	var opt toolsieve.Options
	if *toolsFile != "" {
		tools, err := loadTools(*toolsFile)
		if err != nil {
			return usageError(stderr, name, proxyUsage, "--tools: "+err.Error())
		}
		opt.Tools = tools
	}

	limit, fromEnv := setMemoryLimit(int64(*memBudget))

	p := sievehttp.NewProxy(up, opt)
	p.Logger = logger
	p.Policy = policy
	p.MemoryBudget, p.MaxRequestBytes = int64(*memBudget), int64(*maxBody)
	p.ClientWriteTimeout = *clientTimeout
	p.ClientKeys = keys
	p.CaptureDir = *capture
	if *metrics {
		p.Metrics = sievehttp.NewMetrics()
		p.Metrics.Version = versionString()
	}
	srv := &http.Server{
		Handler: p,
		// A request must come in whole within the client timeout (headers
		// within 10s of it); the deadline is lifted once the body is read,
		// so long streamed answers are not cut. Writes are bounded per
		// write by the proxy (ClientWriteTimeout), not here: WriteTimeout
		// would cut every answer longer than it.
		ReadHeaderTimeout: min(10*time.Second, *clientTimeout),
		ReadTimeout:       *clientTimeout,
		IdleTimeout:       *clientTimeout,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		logger.Error("cannot listen", "addr", *listen, "error", err.Error())
		return exitIO
	}
	ctx, stop := proxySignals()
	defer stop()
	logger.Info("proxy listening", "addr", ln.Addr().String(), "upstream", p,
		"policy_rules", len(policy.Rules), "builtin", !policy.NoBuiltin, "client_overrides", policy.ClientOverrides,
		"metrics", *metrics, "memory_budget", int64(*memBudget), "memory_limit", limit, "memory_limit_from", fromEnv,
		"upstream_basic_auth", up.User != nil, "upstreams", upstreamList(policy), "capture", *capture)
	if open {
		logger.Warn("listening on an address other than loopback: anyone who can reach it can use the proxy",
			"addr", ln.Addr().String(), "client_keys", keys.Len())
	}
	for _, o := range over {
		logger.Warn(o.String())
	}
	proxyListening(ln.Addr())
	go releaseIdle(ctx, p, int64(*memBudget))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		logger.Error("serving stopped", "error", err.Error())
		return exitIO
	case <-ctx.Done():
	}
	logger.Info("stopping")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error("serving stopped", "error", err.Error())
		return exitIO
	}
	return exitOK
}

// setMemoryLimit sets the Go runtime's soft memory limit to the memory
// budget, so that the memory the proxy takes from the system follows the
// budget and not only the bytes the budget counts (the garbage collector
// works harder as the heap nears it, instead of letting the heap reach
// twice what is live), unless the operator set GOMEMLIMIT. What the budget
// does not count (the parsers' bounded state, connection buffers, garbage
// not collected yet, the binary) is the difference between the budget and
// the process's size. It returns the limit in force and where it came from
// ("budget" or "GOMEMLIMIT").
func setMemoryLimit(budget int64) (int64, string) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return debug.SetMemoryLimit(-1), "GOMEMLIMIT"
	}
	debug.SetMemoryLimit(budget)
	return budget, "budget"
}

// releaseIdle gives memory back to the system once the proxy holds nothing
// of its budget: after a load the runtime keeps the heap it grew (garbage
// is only collected as more is allocated, and free pages go back slowly),
// so the process would stay at its peak. Every releaseEvery, when nothing
// is held and the process keeps more than a quarter of the budget (16 MiB
// at least), it collects and returns what is free.
func releaseIdle(ctx context.Context, p *sievehttp.Proxy, budget int64) {
	t := time.NewTicker(releaseEvery)
	defer t.Stop()
	sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if held, _ := p.MemoryHeld(); held > 0 {
			continue
		}
		metrics.Read(sample)
		if kept := int64(sample[0].Value.Uint64() - sample[1].Value.Uint64()); kept > max(16<<20, budget/4) {
			debug.FreeOSMemory()
		}
	}
}

// releaseEvery is how often releaseIdle looks.
const releaseEvery = 2 * time.Second

// loopback reports a --listen address that only this machine reaches:
// localhost or a loopback IP (an empty host, as in ":8080", is every
// interface).
func loopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		host = listen
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// upstreamCredentials reports credentials in the upstream URL, which the
// proxy adds to the requests it forwards: user information, or a query
// parameter named like a key (key, token, secret, password, signature).
func upstreamCredentials(u *url.URL) bool {
	if u.User != nil {
		return true
	}
	for k := range u.Query() {
		k = strings.ToLower(k)
		for _, w := range [...]string{"key", "token", "secret", "password", "sig", "auth"} {
			if strings.Contains(k, w) {
				return true
			}
		}
	}
	return false
}

// defaultClientTimeout is --client-timeout's default.
const defaultClientTimeout = sievehttp.DefaultClientWriteTimeout

// byteSize is a flag value of bytes: a number with an optional unit (KB,
// MB, GB, KiB, MiB, GiB); more than 0.
type byteSize int64

func sizeFlag(fs *flag.FlagSet, name string, def int64) *byteSize {
	v := byteSize(def)
	fs.Var(&v, name, "")
	return &v
}

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }

func (b *byteSize) Set(s string) error {
	num := strings.TrimRightFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	unit := strings.TrimSpace(s[len(num):])
	mult, ok := map[string]int64{"": 1, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9,
		"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[unit]
	n, err := strconv.ParseInt(num, 10, 64)
	if !ok || err != nil || n <= 0 || n > math.MaxInt64/mult {
		return fmt.Errorf("bad size %q (want bytes, or a number with KB, MB, GB, KiB, MiB or GiB)", s)
	}
	*b = byteSize(n * mult)
	return nil
}
