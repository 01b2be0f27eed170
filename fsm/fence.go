package fsm

import "github.com/toolsieve/toolsieve/lexer"

// A JSON body inside markup may sit in a code fence: `<tool_call>\n` +
// "```json\n{...}\n```" + `</tool_call>`, or a call's name on its line and
// then its fenced arguments (deepseek_v3 writes them so; models carry the
// habit into other wrappers). The fence's backticks are markup, and so is
// its info string (`json`): it is not a call's name nor loose text that
// would end the unit. The fence is remembered by where it ends in m.buf:
// once anything but its info string follows it there, it is forgotten.

// maxFenceInfo bounds the info string taken as markup.
const maxFenceInfo = 16

// fenceIn notes a run of backticks inside markup (its bytes end m.buf):
// an opening fence where a JSON body may still start.
func (m *Machine) fenceIn(t *lexer.Token) {
	m.call.fence = 0
	if t.Count < 3 {
		return
	}
	c := &m.call
	switch {
	case m.lv == lvBlock:
		m.blk.fenced = m.blk.fenced || m.blk.calls == 0
	case m.lv == lvCall && c.spec.json && !c.done && c.args == nil && len(c.params) == 0 && !c.kv.has:
	default:
		return
	}
	m.call.fence = len(m.buf)
}

// fenceInfo takes the info string right after an opening fence (`json`)
// as markup and returns how many bytes of b it took: 0 once the info
// string has ended, or when something else came after the fence.
func (m *Machine) fenceInfo(b []byte) int {
	f := m.call.fence
	if f == 0 || f > len(m.buf) || len(m.buf)-f > maxFenceInfo || !isInfo(m.buf[f:]) {
		m.call.fence = 0
		return 0
	}
	i := 0
	for i < len(b) && i+len(m.buf)-f < maxFenceInfo && isInfoByte(b[i]) {
		i++
	}
	if i == 0 {
		m.call.fence = 0
		return 0
	}
	m.add(b[:i])
	return i
}

func isInfoByte(c byte) bool { return !isSpace(c) && c != '{' && c != '[' && c != '<' }

func isInfo(b []byte) bool {
	for _, c := range b {
		if !isInfoByte(c) {
			return false
		}
	}
	return true
}
