package toolsieve

import "testing"

// TestVocabularyConstants: every repair of the vocabulary has its constant
// here, in the vocabulary's order, so that a library user can test for any
// repair the parser reports without spelling its name.
func TestVocabularyConstants(t *testing.T) {
	repairs := []Repairs{
		RepairMarkerVariant, RepairUnclosedTag, RepairMissingOpener, RepairCorruptedCloser,
		RepairMissingCloser, RepairMixedDialect, RepairMissingArgKey, RepairMissingArgValue,
		RepairTruncatedJSON, RepairJSONRepaired, RepairClosedAtEOF, RepairSchemaMismatch,
		RepairMissingRequired, RepairMisplacedName, RepairMarkerSubstituted, RepairMissingBracket,
		RepairInferredCall, RepairFusedName, RepairInReasoning, RepairRenamedArgs, RepairStrayMarker,
	}
	names := RepairNames()
	if len(repairs) != len(names) {
		t.Fatalf("%d repair constants for %d repairs (%v): add the new ones to vocab.go and here", len(repairs), len(names), names)
	}
	for i, r := range repairs {
		if got := r.Append(nil); len(got) != 1 || got[0] != names[i] {
			t.Errorf("constant %d names %v, want %s", i, got, names[i])
		}
	}
	if ReasonRepetition.String() != "repetition" {
		t.Errorf("ReasonRepetition is %q", ReasonRepetition)
	}
}
