// Package sseoracle fuzzes toolsieve's SSE decoder against an independent
// one, github.com/tmaxmax/go-sse. It is a module of its own so that neither
// importers of toolsieve nor the main module's tests depend on the oracle,
// and so that its fuzzing build instruments nothing else.
package sseoracle
