package field

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const corpus = "../../testdata/field"

// needCorpus skips a test when the tree has no field corpus (its samples
// come on a branch of their own).
func needCorpus(t *testing.T) {
	if _, err := os.Stat(corpus); os.IsNotExist(err) {
		t.Skip("no field corpus")
	}
}

// TestCorpusWellFormed loads the corpus: every sample is complete and no
// source gives more than MaxPerSource samples.
func TestCorpusWellFormed(t *testing.T) {
	needCorpus(t)
	samples, err := Load(corpus)
	require.NoError(t, err)
	if len(samples) == 0 {
		t.Skip("no field corpus")
	}
}

// TestCorpusSize holds the corpus to what the project measures itself on:
// at least 300 samples from 150 sources, 60 negatives and 30 loops.
func TestCorpusSize(t *testing.T) {
	samples, err := Load(corpus)
	require.NoError(t, err)
	if len(samples) == 0 {
		t.Skip("no field corpus")
	}
	kinds := map[string]int{}
	for _, s := range samples {
		kinds[s.Kind]++
	}
	assert.GreaterOrEqual(t, len(samples), 300, "samples")
	assert.GreaterOrEqual(t, len(Sources(samples)), 150, "sources")
	assert.GreaterOrEqual(t, kinds[Negative], 60, "negatives")
	assert.GreaterOrEqual(t, kinds[Loop], 30, "loops")
}

// TestFieldRatchet fails when a sample the record says passed fails now.
func TestFieldRatchet(t *testing.T) {
	needCorpus(t)
	samples, err := Load(corpus)
	require.NoError(t, err)
	record, err := ReadRecord(filepath.Join(corpus, RecordFile))
	if os.IsNotExist(err) {
		t.Skip("no record yet")
	}
	require.NoError(t, err)
	r := Run(samples)
	why := map[string]string{}
	for _, res := range r.Results {
		why[res.Sample.ID] = res.Why
	}
	for _, id := range Lost(record, r.Passing()) {
		reason, ok := why[id]
		if !ok {
			reason = "the sample is gone"
		}
		t.Errorf("%s passed when the record was raised, now: %s", id, reason)
	}
	t.Log(r.Summary())
}

func TestSameValue(t *testing.T) {
	for _, tc := range []struct {
		name      string
		want, got string
		same      bool
	}{
		{"equal strings", `"a"`, `"a"`, true},
		{"surrounding whitespace", `"a b"`, `" a b\n"`, true},
		{"inner whitespace counts", `"a b"`, `"a  b"`, false},
		{"number as string", `5`, `"5"`, true},
		{"number forms", `1.0`, `1`, true},
		{"different numbers", `1`, `2`, false},
		{"boolean as string", `true`, `"true"`, true},
		{"boolean and number", `true`, `1`, false},
		{"object", `{"a":1,"b":[true]}`, `{"b":[true],"a":"1"}`, true},
		{"object with an extra key", `{"a":1}`, `{"a":1,"b":2}`, false},
		{"object as JSON text", `{"a":1}`, `"{\"a\": 1}"`, true},
		{"array length", `[1]`, `[1,1]`, false},
		{"string against object", `"x"`, `{"x":1}`, false},
		{"null", `null`, `null`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.same, sameValue(json.RawMessage(tc.want), json.RawMessage(tc.got)))
		})
	}
}

// TestJudge scores small samples: each clause of the pass rule fails a
// sample on its own.
func TestJudge(t *testing.T) {
	call := `<tool_call>
{"name": "read_file", "arguments": {"path": "a.go"}}
</tool_call>`
	base := func() *Sample {
		return &Sample{Source: "x/y#1", Model: "m", Client: "c", Kind: Real, Class: "leaked", Failure: "f",
			Input: "Reading.\n" + call, Calls: []Call{{Name: "read_file", Arguments: map[string]json.RawMessage{"path": json.RawMessage(`"a.go"`)}}},
			Keep: []string{"Reading."}, Drop: []string{"<tool_call>"}}
	}
	for _, tc := range []struct {
		name   string
		change func(s *Sample)
		pass   bool
	}{
		{"as read", func(*Sample) {}, true},
		{"wrong name", func(s *Sample) { s.Calls[0].Name = "write_file" }, false},
		{"wrong value", func(s *Sample) { s.Calls[0].Arguments["path"] = json.RawMessage(`"b.go"`) }, false},
		{"missing argument", func(s *Sample) { s.Calls[0].Arguments["mode"] = json.RawMessage(`"r"`) }, false},
		{"no call expected", func(s *Sample) { s.Calls = nil }, false},
		{"runaway expected", func(s *Sample) { s.Kind, s.Runaway = Loop, true }, false},
		{"text to keep lost", func(s *Sample) { s.Keep = []string{"Writing."} }, false},
		{"markup left", func(s *Sample) { s.Drop = []string{"Reading"} }, false},
		{"negative: text must be the input", func(s *Sample) { s.Kind, s.Calls, s.Keep = Negative, nil, nil }, false},
		{"negative prose", func(s *Sample) { s.Kind, s.Calls, s.Keep, s.Input = Negative, nil, nil, "Wrap it in <b>bold</b> tags." }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := base()
			tc.change(s)
			require.NoError(t, s.check())
			assert.Equal(t, tc.pass, Score(s).Passed(), Score(s).Why)
		})
	}
}

func TestExtendAndTools(t *testing.T) {
	s := &Sample{Input: "ab<x>", Extend: &Extend{Unit: "<x>", Times: 2}, Tools: json.RawMessage(`["read_file"]`)}
	assert.Equal(t, "ab<x><x><x>", string(s.Bytes()))
	tools, err := s.ToolsJSON()
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"function","function":{"name":"read_file"}}]`, string(tools))
	assert.Equal(t, "owner/repo#12", normSource("https://github.com/Owner/Repo/issues/12#issuecomment-1"))
}
