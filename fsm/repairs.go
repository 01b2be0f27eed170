package fsm

// Repairs is the set of fixes made to recover one call.
type Repairs uint32

// Repairs, in the order they are reported.
const (
	RMarkerVariant Repairs = 1 << iota
	RUnclosedTag
	RMissingOpener
	RCorruptedCloser
	RMissingCloser
	RMixedDialect
	RMissingArgKey
	RMissingArgValue
	RTruncatedJSON
	RJSONRepaired
	RClosedAtEOF
	numRepairs = iota
)

// RepairNames are the names of the repairs vocabulary, by bit position.
var RepairNames = [numRepairs]string{
	"marker_variant", "unclosed_tag", "missing_opener", "corrupted_closer", "missing_closer",
	"mixed_dialect", "missing_arg_key", "missing_arg_value", "truncated_json", "json_repaired",
	"closed_at_eof",
}

// Append appends the names of the repairs in r to dst.
func (r Repairs) Append(dst []string) []string {
	for i := 0; i < numRepairs; i++ {
		if r&(1<<i) != 0 {
			dst = append(dst, RepairNames[i])
		}
	}
	return dst
}
