package jsonscan

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	testdataDir = "../../testdata/json"
	// The go-fuzz corpus lives beside the repository when it is available.
	corpusDir = "../../../shared/go-fuzz-corpus/json/corpus"

	corpusMaxFiles   = 2000 // files read from the corpus
	corpusMaxAll     = 1024 // files up to this size are cut at every byte
	corpusCutsPerDoc = 256  // larger files are cut at this many spread positions
)

func readDocs(t *testing.T, dir string, max int) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if max > 0 && len(names) > max {
		names = names[:max]
	}
	docs := make(map[string][]byte, len(names))
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		require.NoError(t, err)
		docs[n] = b
	}
	return docs
}

// cutPoints returns the prefix lengths to try for a document of length n.
func cutPoints(n int) []int {
	if n <= corpusMaxAll {
		cuts := make([]int, n+1)
		for i := range cuts {
			cuts[i] = i
		}
		return cuts
	}
	cuts := make([]int, 0, corpusCutsPerDoc+2)
	for i := 0; i < corpusCutsPerDoc; i++ {
		cuts = append(cuts, i*n/corpusCutsPerDoc)
	}
	return append(cuts, n-1, n)
}

// checkPrefixes feeds every prefix of doc, finishes it and checks that the
// result is valid JSON, and that the whole document, when valid, comes back
// byte for byte and decodes to the same value.
func checkPrefixes(t *testing.T, s *Scanner, doc []byte, cuts []int, oneByte bool) {
	t.Helper()
	for _, i := range cuts {
		prefix := doc[:i]
		s.Reset()
		n, _ := s.Write(prefix)
		out, _, _ := s.Finish()
		if !s.Started() {
			require.Nil(t, out, "prefix %d of %q", i, doc)
			continue
		}
		require.True(t, json.Valid(out), "prefix %d of %q gave %q", i, prefix, out)
		if oneByte {
			got := append([]byte(nil), out...)
			s.Reset()
			for j := range prefix {
				if m, _ := s.Write(prefix[j : j+1]); m == 0 {
					break
				}
			}
			require.Equal(t, n, s.Len(), "prefix %d consumed", i)
			out2, _, _ := s.Finish()
			require.Equal(t, string(got), string(out2), "prefix %d, 1-byte chunks", i)
		}
	}
	if !json.Valid(doc) {
		return
	}
	s.Reset()
	n, _ := s.Write(doc)
	rest := doc[n:]
	require.Empty(t, bytes.Trim(rest, " \t\r\n"), "valid document not consumed: %q", doc)
	out, tr, rep := s.Finish()
	require.False(t, tr, "valid document truncated: %q", doc)
	require.False(t, rep, "valid document repaired: %q", doc)
	require.Equal(t, string(trimJSONSpace(doc)), string(out))
	assertSameValue(t, doc, out)
}

func TestCompleterTestdata(t *testing.T) {
	docs := readDocs(t, testdataDir, 0)
	require.NotEmpty(t, docs, "no documents in %s", testdataDir)
	var s Scanner
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			require.True(t, json.Valid(doc), "testdata must be valid JSON")
			checkPrefixes(t, &s, doc, cutPoints(len(doc)), true)
		})
	}
}

func TestCompleterCorpus(t *testing.T) {
	docs := readDocs(t, corpusDir, corpusMaxFiles)
	if docs == nil {
		t.Skipf("%s not present", corpusDir)
	}
	var s Scanner
	for name, doc := range docs {
		checkPrefixes(t, &s, doc, cutPoints(len(doc)), false)
		if t.Failed() {
			t.Fatalf("corpus file %s", name)
		}
	}
}

// bigObject builds a JSON object of about size bytes with a mix of strings,
// escapes, numbers, literals and nesting.
func bigObject(size int) []byte {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(",\n  ")
		}
		b.WriteString(`"key`)
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(`": {"text": "The quick brown fox \"jumps\" over the lazy dog \u00e9\n杭州 </tool_call>", `)
		b.WriteString(`"nums": [1, -2.5, 3e10, 0.000123, 42], "flags": [true, false, null], "empty": {}}`)
	}
	b.WriteString("}")
	return []byte(b.String())
}

func TestBigObject(t *testing.T) {
	doc := bigObject(64 << 10)
	require.True(t, json.Valid(doc))
	var s Scanner
	for i := 0; i < len(doc); i += 4 {
		s.Write(doc[i:min(i+4, len(doc))])
	}
	assert.True(t, s.Done())
	out, tr, rep := s.Finish()
	assert.False(t, tr)
	assert.False(t, rep)
	assert.Equal(t, string(doc), string(out))
}

func BenchmarkScanner(b *testing.B) {
	doc := bigObject(1 << 20)
	var s Scanner
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s.Reset()
		for i := 0; i < len(doc); i += 4 {
			s.Write(doc[i:min(i+4, len(doc))])
		}
		if out, _, _ := s.Finish(); len(out) != len(doc) {
			b.Fatalf("output length %d, want %d", len(out), len(doc))
		}
	}
}

func BenchmarkScannerWhole(b *testing.B) {
	doc := bigObject(1 << 20)
	var s Scanner
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		s.Reset()
		s.Write(doc)
		if out, _, _ := s.Finish(); len(out) != len(doc) {
			b.Fatalf("output length %d, want %d", len(out), len(doc))
		}
	}
}
