// Package e2e holds toolsieve's end-to-end tests: the official OpenAI and
// Anthropic Go SDKs as clients of the proxy, the Transport and the SDKs'
// middleware, over loopback. It is a module of its own so that importers of
// toolsieve never download the SDKs.
package e2e
