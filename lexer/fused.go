package lexer

import "strings"

// Models run the words of a marker's name together: `<toolcalls>` for
// `<tool_calls>`, `<｜toolcallbegin｜>` for `<｜tool▁call▁begin｜>`. Every
// name of the marker tables that holds a separator also stands, written
// without its separators, for the same marker as an alias (a
// marker_variant). A fused spelling that already names a marker keeps it:
// `toolcall` is nemotron's own <TOOLCALL>, not a spelling of tool_call.
// Spellings that fuse a misplaced letter are listed as aliases in the
// tables themselves (`tools_call`, fused `toolscall`).

func init() {
	for _, table := range []map[string]markerEntry{tagNames, specialNames, halfBarNames, xtmlNames, sentinelNames} {
		addFused(table)
		addShapes(table) // markers.go
	}
}

// addFused adds to table the fused spelling of each name with a separator.
func addFused(table map[string]markerEntry) {
	fused := map[string]markerEntry{}
	for name, e := range table {
		f := strings.ReplaceAll(name, "_", "")
		if f == name || f == "" {
			continue
		}
		if _, ok := table[f]; ok {
			continue
		}
		e.alias = true
		if prev, ok := fused[f]; ok && prev.m != e.m {
			panic("lexer: fused marker name " + f + " stands for two markers")
		}
		fused[f] = e
	}
	for f, e := range fused {
		table[f] = e
	}
}
