package toolsieve

import "github.com/toolsieve/toolsieve/fsm"

// Repairs is a set of fixes made to recover a call; Event.Repairs holds
// their names. RepairNames lists the vocabulary.
type Repairs = fsm.Repairs

// Reason says why markup was discarded, why a runaway stopped the stream,
// or why a call was kept as text.
type Reason = fsm.Reason

// The repairs vocabulary (docs/contract.md).
const (
	RepairMarkerVariant     = fsm.RMarkerVariant
	RepairUnclosedTag       = fsm.RUnclosedTag
	RepairMissingOpener     = fsm.RMissingOpener
	RepairCorruptedCloser   = fsm.RCorruptedCloser
	RepairMissingCloser     = fsm.RMissingCloser
	RepairMixedDialect      = fsm.RMixedDialect
	RepairMissingArgKey     = fsm.RMissingArgKey
	RepairMissingArgValue   = fsm.RMissingArgValue
	RepairTruncatedJSON     = fsm.RTruncatedJSON
	RepairJSONRepaired      = fsm.RJSONRepaired
	RepairClosedAtEOF       = fsm.RClosedAtEOF
	RepairSchemaMismatch    = fsm.RSchemaMismatch
	RepairMissingRequired   = fsm.RMissingRequired
	RepairMisplacedName     = fsm.RMisplacedName
	RepairMarkerSubstituted = fsm.RMarkerSubstituted
	RepairMissingBracket    = fsm.RMissingBracket
	RepairInferredCall      = fsm.RInferredCall
	RepairFusedName         = fsm.RFusedName
	RepairInReasoning       = fsm.RInReasoning
	RepairRenamedArgs       = fsm.RRenamedArgs
	RepairStrayMarker       = fsm.RStrayMarker
)

// The reasons that events carry (docs/contract.md).
const (
	ReasonOrphanCloser    = fsm.DiscardOrphanCloser
	ReasonStrayToken      = fsm.DiscardStrayToken
	ReasonEmptyBlock      = fsm.DiscardEmptyBlock
	ReasonBlockMarkup     = fsm.DiscardBlockMarkup
	ReasonDuplicateValue  = fsm.DiscardDuplicateValue
	ReasonHarmonyHeader   = fsm.DiscardHarmonyHeader
	ReasonHarmonyEnd      = fsm.DiscardHarmonyEnd
	ReasonAfterRunaway    = fsm.DiscardAfterRunaway
	ReasonParallelCall    = fsm.DiscardParallelCall
	ReasonCallTooLarge    = fsm.RunawayCallTooLarge
	ReasonUnclosedOpeners = fsm.RunawayUnclosedOpeners
	ReasonNestedBlocks    = fsm.RunawayNestedBlocks
	ReasonRepeatedCall    = fsm.RunawayRepeatedCall
	ReasonStrayClosers    = fsm.RunawayStrayClosers
	ReasonRepetition      = fsm.RunawayRepetition
	ReasonUndeclaredTool  = fsm.ErrorUndeclaredTool
	ReasonRefused         = fsm.ErrorRefused
	ReasonTruncated       = fsm.ErrorTruncated
	ReasonCutAtEOF        = fsm.ErrorCutAtEOF
)

// RepairNames returns the names of the repairs vocabulary.
func RepairNames() []string { return fsm.RepairNames() }

// ParseRepair returns the repair named name.
func ParseRepair(name string) (Repairs, bool) { return fsm.ParseRepair(name) }
