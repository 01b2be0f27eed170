// Command fieldscore runs the parser over the field corpus and prints the
// score: a line per class, then `field: P/N passed from S sources (...)`.
// With -v it names each failing sample and why; with -write it raises the
// record (testdata/field/PASSING) when no recorded sample was lost.
// `make field` runs it.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolsieve/toolsieve/internal/field"
)

func main() {
	dir := flag.String("dir", "testdata/field", "the corpus root")
	verbose := flag.Bool("v", false, "name every failing sample and why")
	write := flag.Bool("write", false, "raise the record when the score rose and nothing was lost")
	flag.Parse()
	samples, err := field.Load(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fieldscore:", err)
		os.Exit(1)
	}
	r := field.Run(samples)
	if *verbose {
		for _, res := range r.Results {
			if !res.Passed() {
				fmt.Printf("FAIL %s: %s\n", res.Sample.ID, res.Why)
			}
		}
	}
	for _, line := range r.Lines() {
		fmt.Println(line)
	}
	recPath := filepath.Join(*dir, field.RecordFile)
	record, err := field.ReadRecord(recPath)
	if err != nil && !os.IsNotExist(err) {
		fmt.Fprintln(os.Stderr, "fieldscore:", err)
		os.Exit(1)
	}
	passing := r.Passing()
	if lost := field.Lost(record, passing); len(lost) > 0 {
		fmt.Fprintf(os.Stderr, "fieldscore: %d recorded samples no longer pass: %v\n", len(lost), lost)
		os.Exit(1)
	}
	if len(passing) > len(record) {
		if *write {
			if err := field.WriteRecord(recPath, passing); err != nil {
				fmt.Fprintln(os.Stderr, "fieldscore:", err)
				os.Exit(1)
			}
			fmt.Printf("record raised from %d to %d\n", len(record), len(passing))
		} else {
			fmt.Printf("record %d, now %d: run with -write to raise it\n", len(record), len(passing))
		}
	}
}
