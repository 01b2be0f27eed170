package main

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/toolsieve/toolsieve"
)

const dialectsUsage = `Usage: toolsieve dialects

Prints one line per dialect the parser knows, from the parser's own table:
its name (as accepted by --dialects and reported in tool_call events), its
family (dialects of one family share their opening markers; the content
decides which one a call is), "tools" when it is only read for declared
tools, and its canonical example as a quoted string.
`

func runDialects(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "dialects"
	fs := newFlagSet(name)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(err, name, dialectsUsage, stdout, stderr)
	}
	if len(pos) > 0 {
		return usageError(stderr, name, dialectsUsage, fmt.Sprintf("unexpected arguments: %q", pos))
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	for _, d := range toolsieve.DescribeDialects() {
		needs := "-"
		if d.NeedsTools {
			needs = "tools"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", d.Name, d.Family, needs, strconv.Quote(d.Example))
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(stderr, "toolsieve dialects: %v\n", err)
		return exitIO
	}
	return exitOK
}
