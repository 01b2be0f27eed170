package fsm

// The vocabulary of the events: repairs made to a call, and the reasons of
// discards and runaways. Each is a typed constant defined here once; its
// name is the string the events carry.

// Repairs is the set of fixes made to recover one call.
type Repairs uint32

// Repairs, in the order they are reported.
const (
	RMarkerVariant   Repairs = 1 << iota // a marker in a variant spelling (bars, spaces, quotes, namespace, case, alias)
	RUnclosedTag                         // a tag without its '>'
	RMissingOpener                       // the wrapper was absent or mangled (bare <invoke>, a stray word line)
	RCorruptedCloser                     // a closer was misspelt (</parameter1>, invfunction_calls>, </content>)
	RMissingCloser                       // an element was closed implicitly (next sibling, parent closer, end of input)
	RMixedDialect                        // DSML-prefixed and plain markers in one call
	RMissingArgKey                       // a key/value dialect's value without its key element
	RMissingArgValue                     // a key/value dialect's value without its value element
	RTruncatedJSON                       // JSON arguments cut off and completed
	RJSONRepaired                        // JSON arguments syntactically repaired
	RClosedAtEOF                         // the stream ended inside the call: a caller may refuse to run it
	RSchemaMismatch                      // a value did not fit its declared type and was kept as a string
	RMissingRequired                     // a parameter the declared tool requires is absent
	// RMisplacedName: the tool name stood in another slot than its own (the
	// first <parameter=NAME>, a harness label line [Tool Use: NAME], prose
	// before a bare arguments object).
	RMisplacedName
	// RMarkerSubstituted: a marker of the call's dialect stood where another
	// of its markers belongs (glm's <tool_call> for <arg_key>, </function>
	// for </parameter>); what followed it showed which one was meant.
	RMarkerSubstituted
	// RMissingBracket: tags written without their '<' (`invoke name="x">`,
	// `/invoke>`), or DSML markers as lines that lost both brackets
	// (`DSML | invoke name="x"`, markline.go).
	RMissingBracket
	// RInferredCall: no dialect's markup made the call; it was inferred
	// from a declared tool's name in a call-like position followed by an
	// arguments object that fits that tool (anchor.go).
	RInferredCall
	// RFusedName: the tool name ran into the part after it (glm's first
	// key, its opener lost: `NAMEKEY</arg_key>`); the longest declared
	// name it starts with was split off.
	RFusedName
	// RInReasoning: the call was written inside the <think> reasoning and
	// taken as meant because the reasoning (or the output) ended right after
	// it; it went out then, not when its markup ended (thinkcall.go).
	RInReasoning
	// RRenamedArgs: a call object held its arguments under a member no
	// envelope names them with (`"properties": {..}` beside the name), the
	// one member beside the name (argmember.go).
	RRenamedArgs
	// RStrayMarker: a marker left next to the call was taken out of the
	// text: a wrapper of no dialect on its own line right before it (a
	// code fence, <use_kimi>, [TOOL_REQUEST]), now in its raw bytes, whose
	// closer after it is discarded (leftover.go).
	RStrayMarker
	numRepairs = iota
)

// repairNames are the names of the repairs vocabulary, by bit position.
var repairNames = [numRepairs]string{
	"marker_variant", "unclosed_tag", "missing_opener", "corrupted_closer", "missing_closer",
	"mixed_dialect", "missing_arg_key", "missing_arg_value", "truncated_json", "json_repaired",
	"closed_at_eof", "schema_mismatch", "missing_required", "misplaced_name", "marker_substituted",
	"missing_bracket", "inferred_call", "fused_name", "in_reasoning", "renamed_args", "stray_marker",
}

// Append appends the names of the repairs in r to dst.
func (r Repairs) Append(dst []string) []string {
	for i := 0; i < numRepairs; i++ {
		if r&(1<<i) != 0 {
			dst = append(dst, repairNames[i])
		}
	}
	return dst
}

// RepairNames returns the names of the repairs vocabulary, in the order
// they are reported.
func RepairNames() []string { return repairNames[:] }

// ParseRepair returns the repair named name.
func ParseRepair(name string) (Repairs, bool) {
	for i, n := range repairNames {
		if n == name {
			return 1 << i, true
		}
	}
	return 0, false
}

// Reason says why markup was discarded, or why the machine stopped at a
// runaway. Its String is the reason of the discard or runaway event.
type Reason uint8

// Discard reasons.
const (
	DiscardOrphanCloser   Reason = iota // a closer with no element open
	DiscardStrayToken                   // a special token with no unit open
	DiscardEmptyBlock                   // a wrapper that held no call
	DiscardBlockMarkup                  // a wrapper's own markup around its calls
	DiscardDuplicateValue               // a JSON call object repeated back to back in one block
	DiscardHarmonyHeader                // a harmony message header that names no recipient
	DiscardHarmonyEnd                   // the end token of a harmony reasoning message
	DiscardAfterRunaway                 // input after a runaway
	DiscardParallelCall                 // a call past Options.MaxCalls (parallel calls turned off), not passed on

	// Runaway reasons.
	RunawayCallTooLarge    // one call outgrew Options.MaxCall
	RunawayUnclosedOpeners // more call openers without a closer than allowed (a stray opener word line counts)
	RunawayNestedBlocks    // more block openers inside a block than allowed
	RunawayRepeatedCall    // the same call, or the same call markup without a name, more times in a row than allowed
	RunawayStrayClosers    // more stray closers in a row than allowed
	RunawayRepetition      // the output repeats one unit (markup, lines or a phrase) more times in a row than allowed

	// Error reasons.
	ErrorUndeclaredTool // a call to a tool the request did not declare, kept as text
	ErrorRefused        // a call refused by strict mode, kept as text
	// ErrorTruncated: a call the answer's cut (a broken connection, no
	// finish marker, the token limit) left unfinished, kept as text or not
	// completed. The chat layer reports it; the parser only marks such a
	// call closed_at_eof.
	ErrorTruncated
	// ErrorCutAtEOF: a call the end of the input cut right after its name
	// or inside an argument value, kept as text (eofcut.go). Whether the
	// model ended its answer there or the answer was cut is the chat
	// layer's to tell: it reports the call as truncated when the answer
	// was cut.
	ErrorCutAtEOF
	numReasons
)

var reasonNames = [numReasons]string{
	DiscardOrphanCloser: "orphan_closer", DiscardStrayToken: "stray_token",
	DiscardEmptyBlock: "empty_block", DiscardBlockMarkup: "block_markup",
	DiscardDuplicateValue: "duplicate_value", DiscardHarmonyHeader: "harmony_header",
	DiscardHarmonyEnd: "harmony_end", DiscardAfterRunaway: "after_runaway",
	DiscardParallelCall: "parallel_call",
	RunawayCallTooLarge: "call_too_large", RunawayUnclosedOpeners: "unclosed_openers",
	RunawayNestedBlocks: "nested_block_openers", RunawayRepeatedCall: "repeated_call",
	RunawayStrayClosers: "repeated_stray_closers", RunawayRepetition: "repetition",
	ErrorUndeclaredTool: "undeclared_tool", ErrorRefused: "refused", ErrorTruncated: "truncated",
	ErrorCutAtEOF: "cut_at_eof",
}

func (r Reason) String() string {
	if r < numReasons {
		return reasonNames[r]
	}
	return "reason?"
}

// IsRunaway reports whether r is a runaway reason.
func (r Reason) IsRunaway() bool { return r >= RunawayCallTooLarge && r <= RunawayRepetition }

// IsError reports whether r is the reason of an error event.
func (r Reason) IsError() bool { return r >= ErrorUndeclaredTool && r < numReasons }

// MarshalText encodes r as its name.
func (r Reason) MarshalText() ([]byte, error) { return []byte(r.String()), nil }
