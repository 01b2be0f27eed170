package fsm

import (
	"github.com/toolsieve/toolsieve/lexer"
)

// An XTML value closer that lost its `<|close|>` (Kimi K3:
// `src/rendererargument<|sep|>` for `src/renderer<|close|>argument<|sep|>`):
// in the value of an XTML argument, a lone separator token right after
// the argument element's name ends the value before the name; the closer
// is pending as any closer is (what follows decides). The call carries
// missing_bracket. A separator after other text is the value's content.

// lostXTMLCloser reports where the closer of the XTML value in progress
// starts when token t, at tokStart in m.buf, is a lone separator right
// after the argument element's name.
func (m *Machine) lostXTMLCloser(t *lexer.Token, tokStart int) (int, bool) {
	if m.val.closer != lexer.XArgument || t.Kind != lexer.Special || t.Marker != lexer.Unknown || !equalFold(t.Name, "sep") {
		return 0, false
	}
	name := m.val.closer.String()
	start := tokStart - len(name)
	if start < m.val.start || !equalFold(m.buf[start:tokStart], name) {
		return 0, false
	}
	return start, true
}
