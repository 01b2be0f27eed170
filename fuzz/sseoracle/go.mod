module github.com/toolsieve/toolsieve/fuzz/sseoracle

go 1.26.8

replace github.com/toolsieve/toolsieve => ../..

require (
	github.com/tmaxmax/go-sse v0.11.0
	github.com/toolsieve/toolsieve v0.0.0-00010101000000-000000000000
)
