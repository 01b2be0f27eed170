package fsm

// shortPaths turns on the short paths (docs/architecture.md, "Short
// paths"), which take the common bytes without tokens and must give what
// the long way gives: prose (WritePlain), more of a value (writeValue),
// more of a JSON string (writeJSONString), one whole text token (write) and
// the lexer's short scan (lexer.PlainRun, reached only through the value's
// and the JSON string's). Each reads it at its entry. A sixth, the lexer's
// prefilter (lexer/prefilter.go), reads it when a Machine is made. Only
// tests turn it off (export_test.go), to compare the events of both ways.
var shortPaths = true
