package peers

// The rewriter's JSON job done with github.com/go-json-experiment/json/jsontext
// (the token layer of the incoming encoding/json/v2), for issue 13 item 3:
// can it replace the rewriter's hand-written span scanner within 20% of its
// throughput? The job, per SSE event: check the event is JSON, find the
// content fields (OpenAI choices[i].index, .delta.content,
// .delta.reasoning_content, .finish_reason; Anthropic type, index, and the
// type, text and stop_reason of delta or content_block) with their byte
// offsets, unquote the content and splice it back quoted into the event,
// leaving every other byte as it came.
//
// The same job with the span scanner is BenchmarkJSONJob in the root
// package (bench_jsonspan_test.go), on the same events
// (testdata/sse/jsonjob_events.txt, written by cmd/jsonjob); the whole
// rewriter on the same events as SSE streams is BenchmarkJSONJob/*/rewriter
// here. Run both modules' benchmarks alternately (see
// bench/RESULTS-jsontext.md).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
)

// jobStream is one stream of the sample: its events' JSON, in order.
type jobStream struct {
	api    chat.API
	name   string
	events [][]byte
}

// loadJobStreams reads the sample: "# openai NAME" or "# anthropic NAME"
// starts a stream, every other line is one event's JSON.
func loadJobStreams(tb testing.TB) []jobStream {
	f, err := os.Open("../../testdata/sse/jsonjob_events.txt")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []jobStream
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if h, ok := bytes.CutPrefix(line, []byte("# ")); ok {
			api, name, _ := strings.Cut(string(h), " ")
			s := jobStream{api: chat.APIOpenAI, name: name}
			if api == "anthropic" {
				s.api = chat.APIAnthropic
			}
			out = append(out, s)
			continue
		}
		if len(out) == 0 || len(line) == 0 {
			tb.Fatalf("jsonjob_events.txt: an event outside a stream: %q", line)
		}
		s := &out[len(out)-1]
		s.events = append(s.events, bytes.Clone(line))
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// sse returns the stream as the upstream sends it: OpenAI data events and
// [DONE], Anthropic events named by their type.
func (s jobStream) sse() []byte {
	var b []byte
	for _, ev := range s.events {
		if s.api == chat.APIAnthropic {
			var h struct{ Type string }
			if err := json.Unmarshal(ev, &h); err != nil {
				panic(err)
			}
			b = append(b, "event: "+h.Type+"\n"...)
		}
		b = append(append(append(b, "data: "...), ev...), "\n\n"...)
	}
	if s.api == chat.APIOpenAI {
		b = append(b, "data: [DONE]\n\n"...)
	}
	return b
}

// jobAt is the span [s, e) of a value found by the job; s < 0: not found.
type jobAt struct{ s, e int }

var jobNone = jobAt{-1, -1}

// jobChoice is what the job finds in one element of an OpenAI chunk's
// choices.
type jobChoice struct {
	index                      int
	indexAt                    jobAt
	content, reasoning, finish jobAt // string values only
}

// jobFields is what the job finds in one event.
type jobFields struct {
	choices []jobChoice // OpenAI
	// Anthropic: the event's type and index, and the type, text and
	// stop_reason of its delta or content_block object.
	typ, indexAt, innerType, text, stopReason jobAt
	index                                     int
}

// edit replaces data[s:e] with repl.
type edit struct {
	s, e int
	repl []byte
}

// splice appends data with the edits (in order, not overlapping) applied.
func splice(dst, data []byte, edits []edit) []byte {
	at := 0
	for _, ed := range edits {
		dst = append(dst, data[at:ed.s]...)
		dst = append(dst, ed.repl...)
		at = ed.e
	}
	return append(dst, data[at:]...)
}

// Input kinds of the jsontext job.
const (
	// fromBuffer parses the event in place: a Decoder reading a
	// bytes.Buffer parses its bytes without copying them.
	fromBuffer = iota
	// fromReader reads the event through a bytes.Reader into the
	// Decoder's own buffer.
	fromReader
)

// The rewriter's json.Valid accepts duplicate names and invalid UTF-8
// (which a provider that splits a character across deltas sends); these
// options make jsontext check the same grammar. strictOpts is jsontext's
// default (RFC 8259 names and UTF-8 checked).
var (
	lenientOpts = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
	strictOpts  = []jsontext.Options(nil)
)

// jtJob does the job with a jsontext.Decoder in one pass that both checks
// the grammar and finds the fields; its decoder and buffers are reused.
type jtJob struct {
	input int
	opts  []jsontext.Options

	dec        *jsontext.Decoder
	bb         bytes.Buffer
	br         bytes.Reader
	f          jobFields
	edits      []edit
	in, q, out []byte
}

func newJTJob(input int, opts []jsontext.Options) *jtJob {
	return &jtJob{input: input, opts: opts, dec: jsontext.NewDecoder(bytes.NewReader(nil))}
}

// run does the job on one event: ok is false for an event that is not
// JSON or not an object (the rewriter passes it through).
func (j *jtJob) run(api chat.API, data []byte) (out []byte, ok bool) {
	j.f.choices = j.f.choices[:0]
	j.f.typ, j.f.indexAt, j.f.innerType, j.f.text, j.f.stopReason = jobNone, jobNone, jobNone, jobNone, jobNone
	j.f.index = 0
	j.edits, j.q = j.edits[:0], j.q[:0]
	if j.input == fromBuffer {
		j.bb = *bytes.NewBuffer(data)
		j.dec.Reset(&j.bb, j.opts...)
	} else {
		j.br.Reset(data)
		j.dec.Reset(&j.br, j.opts...)
	}
	if api == chat.APIOpenAI {
		ok = j.object(j.topOpenAI)
	} else {
		ok = j.object(j.topAnthropic)
		if ok && j.f.text.s >= 0 {
			ok = j.requote(data, j.f.text)
		}
	}
	if !ok {
		return data, false
	}
	// Nothing but whitespace after the object.
	if _, err := j.dec.ReadToken(); err != io.EOF {
		return data, false
	}
	if api == chat.APIOpenAI {
		for _, c := range j.f.choices {
			if c.content.s >= 0 && !j.requote(data, c.content) {
				return data, false
			}
		}
	}
	j.out = splice(j.out[:0], data, j.edits)
	return j.out, true
}

// object reads the object that comes next, calling member after reading
// each name (still quoted); member reads the value. ok is false on a
// syntax error.
func (j *jtJob) object(member func(name []byte) bool) bool {
	d := j.dec
	if d.PeekKind() != '{' {
		return false
	}
	if _, err := d.ReadToken(); err != nil {
		return false
	}
	for {
		switch d.PeekKind() {
		case '}':
			_, err := d.ReadToken()
			return err == nil
		case jsontext.KindInvalid:
			return false
		}
		name, err := d.ReadValue()
		if err != nil || !member(name) {
			return false
		}
	}
}

// skip reads a value the job does not need.
func (j *jtJob) skip() bool { return j.dec.SkipValue() == nil }

// value reads the next value and returns it with its span.
func (j *jtJob) value() (jsontext.Value, jobAt, bool) {
	v, err := j.dec.ReadValue()
	if err != nil {
		return nil, jobNone, false
	}
	e := int(j.dec.InputOffset())
	return v, jobAt{e - len(v), e}, true
}

// str reads the next value into *at when it is a string.
func (j *jtJob) str(at *jobAt) bool {
	v, a, ok := j.value()
	if ok && v.Kind() == '"' {
		*at = a
	}
	return ok
}

// integer reads the next value: its span, and the integer if it is one.
func (j *jtJob) integer(at *jobAt, n *int) bool {
	v, a, ok := j.value()
	if ok && v.Kind() == '0' {
		*at = a
		*n, _ = strconv.Atoi(string(v))
	}
	return ok
}

func (j *jtJob) topOpenAI(name []byte) bool {
	d := j.dec
	if string(name) != `"choices"` || d.PeekKind() != '[' {
		return j.skip()
	}
	if _, err := d.ReadToken(); err != nil {
		return false
	}
	for {
		switch d.PeekKind() {
		case ']':
			_, err := d.ReadToken()
			return err == nil
		case '{':
			j.f.choices = append(j.f.choices, jobChoice{indexAt: jobNone, content: jobNone, reasoning: jobNone, finish: jobNone})
			if !j.object(j.choice) {
				return false
			}
		case jsontext.KindInvalid:
			return false
		default:
			if !j.skip() {
				return false
			}
		}
	}
}

func (j *jtJob) choice(name []byte) bool {
	c := &j.f.choices[len(j.f.choices)-1]
	switch string(name) {
	case `"index"`:
		return j.integer(&c.indexAt, &c.index)
	case `"delta"`:
		if j.dec.PeekKind() == '{' {
			return j.object(j.delta)
		}
	case `"finish_reason"`:
		return j.str(&c.finish)
	}
	return j.skip()
}

func (j *jtJob) delta(name []byte) bool {
	c := &j.f.choices[len(j.f.choices)-1]
	switch string(name) {
	case `"content"`:
		return j.str(&c.content)
	case `"reasoning_content"`:
		return j.str(&c.reasoning)
	}
	return j.skip()
}

func (j *jtJob) topAnthropic(name []byte) bool {
	switch string(name) {
	case `"type"`:
		return j.str(&j.f.typ)
	case `"index"`:
		return j.integer(&j.f.indexAt, &j.f.index)
	case `"delta"`, `"content_block"`:
		if j.dec.PeekKind() == '{' {
			return j.object(j.inner)
		}
	}
	return j.skip()
}

func (j *jtJob) inner(name []byte) bool {
	switch string(name) {
	case `"type"`:
		return j.str(&j.f.innerType)
	case `"text"`:
		return j.str(&j.f.text)
	case `"stop_reason"`:
		return j.str(&j.f.stopReason)
	}
	return j.skip()
}

// requote unquotes the string at a and adds the edit that writes it back
// quoted, as the rewriter does with the text it releases.
func (j *jtJob) requote(data []byte, a jobAt) bool {
	var err error
	if j.in, err = jsontext.AppendUnquote(j.in[:0], data[a.s:a.e]); err != nil {
		return false
	}
	k := len(j.q)
	if j.q, err = jsontext.AppendQuote(j.q, j.in); err != nil {
		return false
	}
	j.edits = append(j.edits, edit{a.s, a.e, j.q[k:]})
	return true
}

var jobVariants = []struct {
	name  string
	input int
	opts  []jsontext.Options
}{
	{"jsontext-buffer", fromBuffer, lenientOpts},
	{"jsontext-reader", fromReader, lenientOpts},
	{"jsontext-buffer-strict", fromBuffer, strictOpts},
}

// TestJSONJobJSONText checks the job against encoding/json on every sample
// event, and that it refuses what is not one JSON object.
func TestJSONJobJSONText(t *testing.T) {
	streams := loadJobStreams(t)
	if len(streams) < 4 {
		t.Fatalf("%d streams in the sample", len(streams))
	}
	for _, v := range jobVariants {
		j := newJTJob(v.input, v.opts)
		for _, st := range streams {
			for i, ev := range st.events {
				out, ok := j.run(st.api, ev)
				if !ok {
					t.Fatalf("%s: %s event %d: not done: %s", v.name, st.name, i, ev)
				}
				checkJobEvent(t, st.api, ev, out, &j.f)
			}
		}
		for _, bad := range []string{`{"choices":[]}x`, `{"choices":[{"delta":{"content":"a}]}`, `{"a":1,}`, `[1]`, ``} {
			if _, ok := j.run(chat.APIOpenAI, []byte(bad)); ok {
				t.Errorf("%s: %q accepted", v.name, bad)
			}
		}
	}
}

// checkJobEvent compares what the job found in ev, and its output, with
// encoding/json's reading of ev.
func checkJobEvent(t *testing.T, api chat.API, ev, out []byte, f *jobFields) {
	t.Helper()
	var in, got any
	if err := json.Unmarshal(ev, &in); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if !reflect.DeepEqual(in, got) {
		t.Fatalf("output differs:\n in %s\nout %s", ev, out)
	}
	str := func(a jobAt) any {
		if a.s < 0 {
			return nil
		}
		var s string
		if err := json.Unmarshal(ev[a.s:a.e], &s); err != nil {
			t.Fatalf("span %q: %v", ev[a.s:a.e], err)
		}
		return s
	}
	num := func(a jobAt, n int) any {
		if a.s < 0 {
			return nil
		}
		if string(ev[a.s:a.e]) != strconv.Itoa(n) {
			t.Fatalf("index span %q, read %d", ev[a.s:a.e], n)
		}
		return float64(n)
	}
	strOnly := func(v any) any {
		if s, ok := v.(string); ok {
			return s
		}
		return nil
	}
	obj, _ := in.(map[string]any)
	type pair struct {
		name      string
		got, want any
	}
	var checks []pair
	if api == chat.APIOpenAI {
		cs, _ := obj["choices"].([]any)
		if len(cs) != len(f.choices) {
			t.Fatalf("%d choices found, %d in %s", len(f.choices), len(cs), ev)
		}
		for i, c := range f.choices {
			cm, _ := cs[i].(map[string]any)
			dm, _ := cm["delta"].(map[string]any)
			checks = append(checks,
				pair{"index", num(c.indexAt, c.index), cm["index"]},
				pair{"content", str(c.content), strOnly(dm["content"])},
				pair{"reasoning_content", str(c.reasoning), strOnly(dm["reasoning_content"])},
				pair{"finish_reason", str(c.finish), strOnly(cm["finish_reason"])})
		}
	} else {
		im, _ := obj["delta"].(map[string]any)
		if im == nil {
			im, _ = obj["content_block"].(map[string]any)
		}
		checks = append(checks,
			pair{"type", str(f.typ), strOnly(obj["type"])},
			pair{"index", num(f.indexAt, f.index), obj["index"]},
			pair{"inner type", str(f.innerType), strOnly(im["type"])},
			pair{"text", str(f.text), strOnly(im["text"])},
			pair{"stop_reason", str(f.stopReason), strOnly(im["stop_reason"])})
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Fatalf("%s: found %#v, want %#v in %s", c.name, c.got, c.want, ev)
		}
	}
}

// BenchmarkJSONJob runs the job over every sample event of one API per op
// (the bytes are the events' JSON), and the whole rewriter over the same
// events as SSE streams (the bytes are the streams'; ns/event is
// comparable across all).
func BenchmarkJSONJob(b *testing.B) {
	streams := loadJobStreams(b)
	for _, api := range []chat.API{chat.APIOpenAI, chat.APIAnthropic} {
		var evs, sses [][]byte
		size, sseSize := 0, 0
		for _, st := range streams {
			if st.api != api {
				continue
			}
			evs = append(evs, st.events...)
			for _, ev := range st.events {
				size += len(ev)
			}
			s := st.sse()
			sses = append(sses, s)
			sseSize += len(s)
		}
		for _, v := range jobVariants {
			b.Run(fmt.Sprintf("%s/%s", api, v.name), func(b *testing.B) {
				j := newJTJob(v.input, v.opts)
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					for _, ev := range evs {
						if _, ok := j.run(api, ev); !ok {
							b.Fatal("job failed")
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
			})
		}
		b.Run(fmt.Sprintf("%s/rewriter", api), func(b *testing.B) {
			var r bytes.Reader
			b.SetBytes(int64(sseSize))
			b.ReportAllocs()
			for b.Loop() {
				for _, s := range sses {
					r.Reset(s)
					rw := chat.NewRewriter(io.NopCloser(&r), api, toolsieve.Options{})
					if _, err := io.Copy(io.Discard, rw); err != nil {
						b.Fatal(err)
					}
					rw.Close()
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
		})
	}
}
