package sievehttp

import (
	"log/slog"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat/chattest"
)

// proxyEnv is an echo upstream with the proxy in front of it.
type proxyEnv struct {
	up    *chattest.EchoUpstream
	proxy *httptest.Server
	logs  *chattest.SyncBuffer
}

func newE2E(t *testing.T) *proxyEnv {
	up := chattest.NewEchoUpstream(t)
	u, _ := url.Parse(up.Server.URL)
	logs := &chattest.SyncBuffer{}
	p := NewProxy(u, toolsieve.Options{})
	p.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ps := httptest.NewServer(p)
	t.Cleanup(ps.Close)
	return &proxyEnv{up: up, proxy: ps, logs: logs}
}
