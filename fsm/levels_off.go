//go:build !invariants

package fsm

// checkLevels is set by the invariants build tag: then every step of the
// machine checks its state against its level (levels_check.go). Without
// it the check compiles to nothing.
const checkLevels = false

// levelTrace is empty without the invariants build tag.
type levelTrace struct{}

func (m *Machine) checkLevel() {}
