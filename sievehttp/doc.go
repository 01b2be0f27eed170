// Package sievehttp puts toolsieve to HTTP use: a Transport (an
// http.RoundTripper) and a Middleware for client SDKs that rewrite chat
// responses as they are read, and a Proxy (an http.Handler) that forwards
// requests to an upstream and rewrites its chat responses for any client.
// A Policy sets, per model and per request header, the dialects, strict
// mode, retries of bad answers and history cleaning; Metrics counts what
// happened, in the Prometheus text format.
package sievehttp
