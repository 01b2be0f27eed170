package field

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"
)

// RecordFile names, below the corpus root, the samples that passed when the
// record was last raised: the ratchet. A change may add to it, never lose
// one.
const RecordFile = "PASSING"

// Tally counts passes of a group of samples.
type Tally struct{ Passed, Total int }

func (t *Tally) add(ok bool) {
	t.Total++
	if ok {
		t.Passed++
	}
}

func (t Tally) String() string { return fmt.Sprintf("%d/%d", t.Passed, t.Total) }

// Report is the score of a corpus run.
type Report struct {
	Results []Result
	ByClass map[string]*Tally // kind/class
	ByKind  map[string]*Tally
	All     Tally
	Sources int
}

// Run scores every sample.
func Run(samples []*Sample) *Report {
	r := &Report{ByClass: map[string]*Tally{}, ByKind: map[string]*Tally{Real: {}, Negative: {}, Loop: {}}}
	for _, s := range samples {
		res := Score(s)
		r.Results = append(r.Results, res)
		key := s.Kind + "/" + s.Class
		if r.ByClass[key] == nil {
			r.ByClass[key] = &Tally{}
		}
		r.ByClass[key].add(res.Passed())
		r.ByKind[s.Kind].add(res.Passed())
		r.All.add(res.Passed())
	}
	r.Sources = len(Sources(samples))
	return r
}

// Summary is the report's last line.
func (r *Report) Summary() string {
	return fmt.Sprintf("field: %d/%d passed from %d sources (real %s, negative %s, loop %s)",
		r.All.Passed, r.All.Total, r.Sources, r.ByKind[Real], r.ByKind[Negative], r.ByKind[Loop])
}

// Lines is the report: a line per class, then the summary.
func (r *Report) Lines() []string {
	keys := make([]string, 0, len(r.ByClass))
	for k := range r.ByClass {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		out = append(out, fmt.Sprintf("%-44s %7s", k, r.ByClass[k]))
	}
	return append(out, r.Summary())
}

// Passing returns the IDs of the samples that passed.
func (r *Report) Passing() map[string]bool {
	ids := map[string]bool{}
	for _, res := range r.Results {
		if res.Passed() {
			ids[res.Sample.ID] = true
		}
	}
	return ids
}

// ReadRecord reads the record file: one sample ID a line, '#' comments.
func ReadRecord(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ids := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			ids[line] = true
		}
	}
	return ids, sc.Err()
}

// WriteRecord writes ids as the record file.
func WriteRecord(path string, ids map[string]bool) error {
	list := make([]string, 0, len(ids))
	for id := range ids {
		list = append(list, id)
	}
	sort.Strings(list)
	var b strings.Builder
	b.WriteString("# The field corpus ratchet: samples that passed when the record was last\n")
	b.WriteString("# raised (make field raises it). TestFieldRatchet fails when one of them fails.\n")
	for _, id := range list {
		b.WriteString(id)
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// Lost lists the recorded samples that no longer pass.
func Lost(record, passing map[string]bool) []string {
	var lost []string
	for id := range record {
		if !passing[id] {
			lost = append(lost, id)
		}
	}
	sort.Strings(lost)
	return lost
}
