package fsm

// SetShortPaths turns the short paths on or off (shortpaths.go) and returns
// the former setting, for the external tests that compare both ways. No
// test that parses may run in parallel with the one that calls it.
func SetShortPaths(on bool) (was bool) {
	was, shortPaths = shortPaths, on
	return was
}
