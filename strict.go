package toolsieve

import (
	"strconv"
	"strings"

	"github.com/toolsieve/toolsieve/emitter"
	"github.com/toolsieve/toolsieve/fsm"
)

// Strict configures strict mode (Options.Strict): a call is emitted only
// when every repair it needed is in Allow. A call that lacks a parameter
// its declared tool requires carries RepairMissingRequired, so strict mode
// refuses it unless that repair is allowed. RepairSchemaMismatch (a value
// kept as a string) is never a reason to refuse.
type Strict struct {
	Allow Repairs
}

// strictSink sits between the machine and the event builder in strict
// mode: a refused call's markup goes on as text, followed by an error event.
type strictSink struct {
	*emitter.Builder
	allow Repairs
	tools *Tools // the declared tools, for their required parameters
	// refused: the last call was refused, so the markup of its block that
	// follows (closer, whitespace) stays text as well.
	refused bool
}

func (s *strictSink) Text(b []byte) {
	s.refused = false
	s.Builder.Text(b)
}

func (s *strictSink) Call(c *fsm.Call) {
	if t, ok := s.tools.Lookup(string(c.Name)); ok && emitter.MissingRequired(t, c) {
		c.Repairs |= fsm.RMissingRequired // the builder needs not look again
	}
	bad := c.Repairs &^ s.allow
	if bad == 0 {
		s.refused = false
		s.Builder.Call(c)
		return
	}
	s.refused = true
	s.Builder.Text(c.Raw)
	names := bad.Append(nil)
	s.Builder.ReasonedError(fsm.ErrorRefused, "call to "+strconv.Quote(string(c.Name))+" ("+c.Dialect+") refused by strict mode (repairs: "+
		strings.Join(names, ", ")+"); kept as text", c.Offset)
	// The event names the call and the repairs refused, as data.
	evs := s.Builder.Events()
	evs[len(evs)-1].Name, evs[len(evs)-1].Repairs = string(c.Name), names
}

func (s *strictSink) Discard(raw []byte, reason fsm.Reason) {
	if s.refused && reason == fsm.DiscardBlockMarkup {
		s.Builder.Text(raw)
		return
	}
	s.Builder.Discard(raw, reason)
}
