// Package field reads the field corpus (testdata/field: real model outputs
// quoted in public threads, each with the calls a human reads out of it)
// and scores the parser on it. docs/field.md says how a sample is written.
package field

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Kinds of sample.
const (
	Real     = "real"     // model output; calls are what the model meant
	Negative = "negative" // looks like markup, must stay text
	Loop     = "loop"     // a runaway loop: must end in a runaway
)

// MaxPerSource caps the samples one thread or file may give.
const MaxPerSource = 5

// Sample is one field sample: a model's output as quoted in a public
// source, and what a careful human reads out of it.
type Sample struct {
	// ID is the file's path below the corpus root, without ".json".
	ID string `json:"-"`
	// Source names where the bytes are quoted: owner/repo#N, or a URL
	// (owner/repo:path for a file of a repository).
	Source string `json:"source"`
	URL    string `json:"url,omitempty"`
	Model  string `json:"model"`
	Client string `json:"client"`
	// Kind is real, negative or loop; Class groups samples for the score
	// (a short slug, see docs/field.md); Failure says in a few words what
	// went wrong in the thread.
	Kind    string `json:"kind"`
	Class   string `json:"class"`
	Failure string `json:"failure"`
	// Tools the client declared: an OpenAI or Anthropic tools array, or an
	// array of bare names (declared without schemas).
	Tools json.RawMessage `json:"tools,omitempty"`
	// Input is the model's content, exactly as quoted.
	Input string `json:"input"`
	// Extend repeats the end of a quoted loop as the thread reports it
	// went on: Unit (which Input must end with) Times more times.
	Extend *Extend `json:"extend,omitempty"`
	// Calls a human reads out of Input, written before the parser ran on
	// it, in order. Empty where none was meant or none can be recovered
	// without guessing.
	Calls []Call `json:"calls"`
	// Runaway: the output is a loop that must be stopped.
	Runaway bool `json:"runaway"`
	// Keep: pieces of text that must reach the user as text. Drop: pieces
	// of markup that must not. A negative without Keep must come out as
	// text byte for byte.
	Keep []string `json:"keep,omitempty"`
	Drop []string `json:"drop,omitempty"`
	Note string   `json:"note,omitempty"`
}

// Extend describes how a quoted loop went on.
type Extend struct {
	Unit  string `json:"unit"`
	Times int    `json:"times"`
}

// Call is an expected call: its name, and the arguments a human reads
// (each must be present with an equal value; others may be present too).
type Call struct {
	Name      string                     `json:"name"`
	Arguments map[string]json.RawMessage `json:"arguments"`
}

// Bytes returns the content fed to the parser: Input, extended.
func (s *Sample) Bytes() []byte {
	b := []byte(s.Input)
	if s.Extend != nil {
		b = append(b, bytes.Repeat([]byte(s.Extend.Unit), s.Extend.Times)...)
	}
	return b
}

// ToolsJSON returns the declared tools as a tools array the parser reads
// (bare names become function declarations without a schema), or nil.
func (s *Sample) ToolsJSON() ([]byte, error) {
	raw := bytes.TrimSpace(s.Tools)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var names []string
	if json.Unmarshal(raw, &names) != nil {
		return raw, nil
	}
	type fn struct {
		Name string `json:"name"`
	}
	type tool struct {
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	tools := make([]tool, len(names))
	for i, n := range names {
		tools[i] = tool{"function", fn{n}}
	}
	return json.Marshal(tools)
}

var classRE = regexp.MustCompile(`^[a-z0-9]+(_[a-z0-9]+)*$`)

// check reports what makes a sample unusable.
func (s *Sample) check() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if strings.TrimSpace(s.Source) == "" {
		bad("no source")
	}
	if s.Model == "" || s.Client == "" {
		bad("model and client must be given (\"unknown\" when the thread does not say)")
	}
	if !classRE.MatchString(s.Class) {
		bad("class %q is not a slug", s.Class)
	}
	if s.Failure == "" {
		bad("no failure description")
	}
	if s.Input == "" {
		bad("no input")
	}
	switch s.Kind {
	case Real:
		if s.Runaway {
			bad("a real sample with a runaway is a loop")
		}
		if len(s.Calls) > 0 && len(s.Drop) == 0 {
			bad("a real sample with calls names the markup that must go (drop)")
		}
	case Negative:
		if len(s.Calls) > 0 || s.Runaway {
			bad("a negative expects no call and no runaway")
		}
	case Loop:
		if !s.Runaway {
			bad("a loop expects a runaway")
		}
	default:
		bad("kind %q is not real, negative or loop", s.Kind)
	}
	for i, c := range s.Calls {
		if c.Name == "" {
			bad("call %d has no name", i)
		}
	}
	if e := s.Extend; e != nil && (e.Unit == "" || e.Times <= 0 || !strings.HasSuffix(s.Input, e.Unit)) {
		bad("extend: the input must end with a non-empty unit, repeated a positive number of times")
	}
	if t, err := s.ToolsJSON(); err != nil || (t != nil && !json.Valid(t)) {
		bad("tools are not a JSON array")
	}
	return errors.Join(errs...)
}

// Load reads every sample below dir (one JSON object a file) and checks
// each, and the per-source cap.
func Load(dir string) ([]*Sample, error) {
	var out []*Sample
	var errs []error
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".json" {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		s := &Sample{ID: filepath.ToSlash(strings.TrimSuffix(rel, ".json"))}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(s); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.ID, err))
			return nil
		}
		if err := s.check(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.ID, err))
		}
		out = append(out, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	for src, n := range Sources(out) {
		if n > MaxPerSource {
			errs = append(errs, fmt.Errorf("source %s gives %d samples (at most %d)", src, n, MaxPerSource))
		}
	}
	return out, errors.Join(errs...)
}

// Sources counts the samples of each source.
func Sources(samples []*Sample) map[string]int {
	n := map[string]int{}
	for _, s := range samples {
		n[normSource(s.Source)]++
	}
	return n
}

// normSource folds the spellings of one thread: a GitHub issue or pull
// request URL and owner/repo#N name the same source.
var ghURL = regexp.MustCompile(`^https?://github\.com/([^/]+/[^/]+)/(?:issues|pull|discussions)/(\d+)`)

func normSource(s string) string {
	s = strings.TrimSpace(s)
	if m := ghURL.FindStringSubmatch(s); m != nil {
		s = m[1] + "#" + m[2]
	}
	return strings.ToLower(s)
}
