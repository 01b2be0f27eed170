package sievehttp

// Readiness: GET /readyz asks every upstream for its model list (GET
// <base>/v1/models, with the key the proxy holds for it) and says which
// answered. The proxy is ready when at least one upstream answers: with
// several upstreams, one that is down fails only its own models, and
// taking every replica out of service for it would fail the others too.
// The answer says each upstream's state, for operators and alerts.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/toolsieve/toolsieve/chat"
)

// Defaults of Proxy.ReadyTimeout and Proxy.ReadyCache.
const (
	DefaultReadyTimeout = 3 * time.Second
	DefaultReadyCache   = 10 * time.Second
)

// Upstream states on /readyz.
const (
	UpstreamOK           = "ok"           // it answered (any status below 500 but a refused key)
	UpstreamUnauthorized = "unauthorized" // 401 or 403 to the key the proxy holds for it
	UpstreamError        = "error"        // a 5xx status
	UpstreamUnreachable  = "unreachable"  // no answer: refused, reset, not resolved, timed out
)

// UpstreamHealth is what /readyz says of one upstream.
type UpstreamHealth struct {
	Name    string  `json:"name"`
	State   string  `json:"state"`
	Code    int     `json:"code,omitempty"`
	Seconds float64 `json:"latency_seconds"`
	Error   string  `json:"error,omitempty"`
}

// readiness is the last probe of the upstreams, shared by the /readyz
// requests that come while it is fresh or under way.
type readiness struct {
	mu      sync.Mutex
	at      time.Time
	results []UpstreamHealth
	running chan struct{} // closed when the probe under way ends
}

// serveReady answers GET /readyz: 200 when an upstream answers, 503 when
// none does. The upstreams' states are shown to clients that may use the
// proxy (with ClientKeys, those that presented a key).
func (p *Proxy) serveReady(w http.ResponseWriter, r *http.Request, keyed bool) {
	res := p.probeUpstreams(r.Context())
	ready := false
	for _, h := range res {
		ready = ready || h.State == UpstreamOK
	}
	out := struct {
		Status    string           `json:"status"`
		Upstreams []UpstreamHealth `json:"upstreams,omitempty"`
	}{Status: "ready"}
	if !ready {
		out.Status = "not_ready"
	}
	if keyed {
		out.Upstreams = res
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if !ready {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	if r.Method == http.MethodGet {
		json.NewEncoder(w).Encode(out)
	}
}

// probeUpstreams returns the upstreams' states: those of the last probe
// while it is fresh, else of a new one (one at a time; requests that come
// meanwhile wait for it, or for their own end).
func (p *Proxy) probeUpstreams(ctx context.Context) []UpstreamHealth {
	rd := &p.ready
	ttl := p.ReadyCache
	if ttl == 0 {
		ttl = DefaultReadyCache
	}
	for {
		rd.mu.Lock()
		if rd.results != nil && time.Since(rd.at) < ttl {
			res := rd.results
			rd.mu.Unlock()
			return res
		}
		if ch := rd.running; ch != nil {
			rd.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil
			}
		}
		ch := make(chan struct{})
		rd.running = ch
		rd.mu.Unlock()

		res := p.probeAll()
		rd.mu.Lock()
		rd.results, rd.at, rd.running = res, time.Now(), nil
		rd.mu.Unlock()
		close(ch)
		return res
	}
}

// probeAll probes every upstream at once, each within ReadyTimeout. The
// probes do not end with the request that started them: their result is
// kept for the next ones.
func (p *Proxy) probeAll() []UpstreamHealth {
	ups := p.Policy.Upstreams(p.Upstream)
	res := make([]UpstreamHealth, len(ups))
	ctx, cancel := context.WithTimeout(context.Background(), p.readyTimeout())
	defer cancel()
	var wg sync.WaitGroup
	for i, up := range ups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = p.probe(ctx, up)
		}()
	}
	wg.Wait()
	return res
}

// probe asks one upstream for its model list.
func (p *Proxy) probe(ctx context.Context, up *UpstreamRule) UpstreamHealth {
	h := UpstreamHealth{Name: up.DisplayName(), State: UpstreamUnreachable}
	t, err := up.target()
	if err != nil {
		h.Error = err.Error()
		return h
	}
	u := *t
	u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/models"
	u.RawPath = ""
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		h.Error = err.Error()
		return h
	}
	req.Header.Set("Anthropic-Version", "2023-06-01") // Anthropic's API wants it; others ignore it
	rt := route{target: t, key: up.Key, auth: up.Auth}
	style := up.Auth
	if style == "" && strings.Contains(strings.ToLower(up.URL), "anthropic") {
		style = AuthAPIKey
	}
	rt.setCredentials(req.Header, style, chat.APIAuto)
	start := time.Now()
	resp, err := p.rt.RoundTrip(req)
	h.Seconds = time.Since(start).Seconds()
	if err != nil {
		if ctx.Err() != nil {
			h.Error = "no answer within " + p.readyTimeout().String()
		} else {
			h.Error = publicCause(err)
		}
		return h
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	h.Code = resp.StatusCode
	switch {
	case resp.StatusCode >= 500:
		h.State = UpstreamError
	case (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) && up.Key != "":
		h.State = UpstreamUnauthorized
	default:
		h.State = UpstreamOK
	}
	return h
}

func (p *Proxy) readyTimeout() time.Duration {
	if p.ReadyTimeout > 0 {
		return p.ReadyTimeout
	}
	return DefaultReadyTimeout
}
