// Package sievehttp puts toolsieve to HTTP use: a Transport (an
// http.RoundTripper) and a Middleware for client SDKs that rewrite chat
// responses as they are read, and a Proxy (an http.Handler) that forwards
// requests to an upstream and rewrites its chat responses for any client.
// A Policy sets, per model (request headers may tighten it), the dialects,
// strict mode, retries of bad answers, history cleaning and the upstream
// timeouts; one memory budget bounds what is held across requests; what
// fails comes back in the API's own error shape (ExchangeError in Go);
// Metrics counts what happened, in the Prometheus text format.
package sievehttp
