package fuzz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/toolsieve/toolsieve/fsm/jsonscan"
)

const (
	jsonTestdataDir   = "../testdata/json"
	jsonCorpusDir     = "../../shared/go-fuzz-corpus/json/corpus"
	jsonCorpusMaxSeed = 300
	jsonCorpusMaxSize = 4096
)

// jsonScanResult is what one run of the scanner reports.
type jsonScanResult struct {
	n                          int
	done, failed, started      bool
	out                        []byte
	isNil, truncated, repaired bool
	// unstable says where bytes Stable reported were changed later.
	unstable string
}

// runJSONScan feeds data to s in pieces of at most chunk bytes (0: whole),
// or split in two at split when split > 0, stopping at the first chunk that
// is not fully consumed, then finishes.
func runJSONScan(s *jsonscan.Scanner, data []byte, chunk, split int) jsonScanResult {
	s.Reset()
	var pieces [][]byte
	switch {
	case split > 0:
		pieces = [][]byte{data[:split], data[split:]}
	case chunk > 0:
		for i := 0; i < len(data); i += chunk {
			pieces = append(pieces, data[i:min(i+chunk, len(data))])
		}
	default:
		pieces = [][]byte{data}
	}
	var r jsonScanResult
	var stable []byte // the copy as far as Stable said, which nothing may change
	keep := func(out []byte, step string) {
		if r.unstable == "" && !bytes.HasPrefix(out, stable) {
			r.unstable = fmt.Sprintf("%s: %q was stable, the copy is now %q", step, stable, out)
		}
	}
	for i, p := range pieces {
		n, _ := s.Write(p)
		r.n += n
		keep(s.Bytes(), fmt.Sprintf("write %d", i))
		if k := s.Stable(); k > len(stable) {
			stable = append(stable, s.Bytes()[len(stable):k]...)
		}
		if n < len(p) {
			break
		}
	}
	r.done, r.failed, r.started = s.Done(), s.Failed(), s.Started()
	out, tr, rep := s.Finish()
	keep(out, "finish")
	r.out = append([]byte(nil), out...)
	r.isNil, r.truncated, r.repaired = out == nil, tr, rep
	return r
}

func decodeJSONNumber(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func addJSONSeeds(f *testing.F, dir string, max int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	added := 0
	for _, n := range names {
		if max > 0 && added >= max {
			break
		}
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil || len(b) > jsonCorpusMaxSize {
			continue
		}
		f.Add(b)
		added++
	}
}

func FuzzJSONScan(f *testing.F) {
	addJSONSeeds(f, jsonTestdataDir, 0)
	addJSONSeeds(f, jsonCorpusDir, jsonCorpusMaxSeed)
	for _, s := range []string{
		`{'a': True, b: None, "c": [1 2,], "d": "x` + "\n" + `y\q"}`,
		`{"a":[1,2}`,
		`{"a":"\ud83d\ude00\u12`,
		`{"a":1}{"a":1}`,
		`[1.e5, -, 1e+]`,
		`{"a":1</tool_call>`,
		`"\ud83d`,
		`-`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s jsonscan.Scanner
		whole := runJSONScan(&s, data, 0, 0)
		if one := runJSONScan(&s, data, 1, 0); one.unstable != "" {
			t.Fatalf("1-byte chunks of %q: %s", data, one.unstable)
		}
		if whole.n > len(data) {
			t.Fatalf("consumed %d of %d bytes", whole.n, len(data))
		}
		if whole.started {
			if !json.Valid(whole.out) {
				t.Fatalf("Finish output is not valid JSON: %q -> %q", data, whole.out)
			}
		} else if !whole.isNil {
			t.Fatalf("nothing started but Finish returned %q", whole.out)
		}
		if one := runJSONScan(&s, data, 1, 0); !reflect.DeepEqual(whole, one) {
			t.Fatalf("1-byte chunks differ for %q:\nwhole %+v\n1-byte %+v", data, whole, one)
		}
		if len(data) >= 2 {
			if half := runJSONScan(&s, data, 0, len(data)/2); !reflect.DeepEqual(whole, half) {
				t.Fatalf("split at %d differs for %q:\nwhole %+v\nsplit %+v", len(data)/2, data, whole, half)
			}
		}
		if !json.Valid(data) {
			return
		}
		// A valid document is consumed up to its end (only whitespace
		// may follow), reaches done (a top-level number at Finish, without
		// completion), and comes back unchanged.
		if len(bytes.Trim(data[whole.n:], " \t\r\n")) != 0 {
			t.Fatalf("valid input %q: stopped at %d", data, whole.n)
		}
		if whole.failed || whole.truncated || whole.repaired {
			t.Fatalf("valid input %q: failed=%v truncated=%v repaired=%v", data, whole.failed, whole.truncated, whole.repaired)
		}
		if !whole.done {
			first := bytes.TrimLeft(data, " \t\r\n")[0]
			if first != '-' && (first < '0' || first > '9') {
				t.Fatalf("valid input %q: Write did not reach done", data)
			}
		}
		if trimmed := bytes.Trim(data, " \t\r\n"); !bytes.Equal(trimmed, whole.out) {
			t.Fatalf("valid input %q copied as %q", data, whole.out)
		}
		want, err1 := decodeJSONNumber(data)
		got, err2 := decodeJSONNumber(whole.out)
		if err1 != nil || err2 != nil || !reflect.DeepEqual(want, got) {
			t.Fatalf("valid input %q decodes differently: %v %v / %v %v", data, want, err1, got, err2)
		}
	})
}
