package jsonspan

// The rewriter's JSON job on its own, done with the span scanner as the
// stream rewriters do it: check the event is JSON, find
// the content fields and their byte spans, unquote the content and splice
// it back quoted into the event. bench/peers/jsontext_test.go does the same
// job with github.com/go-json-experiment/json/jsontext on the same events
// (testdata/sse/jsonjob_events.txt, written by bench/peers/cmd/jsonjob), so
// that the two can be compared (issue 13, item 3):
//
//	go test -run '^$' -bench '^BenchmarkJSONJob$' ./internal/jsonspan
//	cd bench/peers && go test -run '^$' -bench '^BenchmarkJSONJob$' .
//

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// jobAPI is the API of a sample stream.
type jobAPI uint8

const (
	jobOpenAI jobAPI = iota
	jobAnthropic
)

func (a jobAPI) String() string { return [...]string{"openai", "anthropic"}[a] }

// jobStream is one stream of the sample: its events' JSON, in order.
type jobStream struct {
	api    jobAPI
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
			s := jobStream{api: jobOpenAI, name: name}
			if api == "anthropic" {
				s.api = jobAnthropic
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

// spanJob does the job with the span scanner; its buffers are reused.
type spanJob struct {
	valid func([]byte) bool // the check first (nil: none)

	f                 jobFields
	ms, cms, dms, ims []Member
	els               []Span
	edits             []Edit
	in, q, out        []byte
}

func (j *spanJob) reset() {
	j.f.choices = j.f.choices[:0]
	j.f.typ, j.f.indexAt, j.f.innerType, j.f.text, j.f.stopReason = jobNone, jobNone, jobNone, jobNone, jobNone
	j.f.index = 0
	j.edits, j.q = j.edits[:0], j.q[:0]
}

// run does the job on one event: ok is false for an event that is not
// JSON or not an object (the rewriter passes it through).
func (j *spanJob) run(api jobAPI, data []byte) (out []byte, ok bool) {
	j.reset()
	if j.valid != nil && !j.valid(data) {
		return data, false
	}
	if j.ms, ok = Members(data, 0, j.ms[:0]); !ok {
		return data, false
	}
	if api == jobOpenAI {
		j.openai(data)
	} else {
		j.anthropic(data)
	}
	j.out = Splice(j.out[:0], data, j.edits)
	return j.out, true
}

// stringAt is the span of the value of member key when it is a string.
func stringAt(b []byte, ms []Member, key string) jobAt {
	m, has := Lookup(b, ms, key)
	if !has || !IsString(b, m) {
		return jobNone
	}
	return jobAt{m.Start, m.End}
}

func (j *spanJob) openai(data []byte) {
	cm, has := Lookup(data, j.ms, "choices")
	if !has {
		return
	}
	var ok bool
	if j.els, ok = Elems(data, cm.Start, j.els[:0]); !ok {
		return
	}
	for _, el := range j.els {
		if j.cms, ok = Members(data, el.Start, j.cms[:0]); !ok {
			continue
		}
		c := jobChoice{indexAt: jobNone, content: jobNone, reasoning: jobNone, finish: jobNone}
		if m, has := Lookup(data, j.cms, "index"); has {
			c.indexAt = jobAt{m.Start, m.End}
			c.index, _ = Int(data, m)
		}
		if dm, has := Lookup(data, j.cms, "delta"); has {
			if j.dms, ok = Members(data, dm.Start, j.dms[:0]); ok {
				c.content = stringAt(data, j.dms, "content")
				c.reasoning = stringAt(data, j.dms, "reasoning_content")
			}
		}
		c.finish = stringAt(data, j.cms, "finish_reason")
		j.f.choices = append(j.f.choices, c)
		if c.content.s >= 0 {
			j.requote(data, c.content)
		}
	}
}

func (j *spanJob) anthropic(data []byte) {
	j.f.typ = stringAt(data, j.ms, "type")
	if m, has := Lookup(data, j.ms, "index"); has {
		j.f.indexAt = jobAt{m.Start, m.End}
		j.f.index, _ = Int(data, m)
	}
	im, has := Lookup(data, j.ms, "delta")
	if !has {
		im, has = Lookup(data, j.ms, "content_block")
	}
	var ok bool
	if !has {
		return
	}
	if j.ims, ok = Members(data, im.Start, j.ims[:0]); !ok {
		return
	}
	j.f.innerType = stringAt(data, j.ims, "type")
	j.f.text = stringAt(data, j.ims, "text")
	j.f.stopReason = stringAt(data, j.ims, "stop_reason")
	if j.f.text.s >= 0 {
		j.requote(data, j.f.text)
	}
}

// requote unquotes the string at a and adds the edit that writes it back
// quoted, as the rewriter does with the text it releases.
func (j *spanJob) requote(data []byte, a jobAt) {
	j.in = AppendUnquoted(j.in[:0], data[a.s:a.e])
	k := len(j.q)
	j.q = AppendQuoted(j.q, j.in)
	j.edits = append(j.edits, Edit{Start: a.s, End: a.e, Repl: j.q[k:]})
}

// TestJSONJobSpan checks the job against encoding/json on every sample
// event: the fields found, the content unquoted, and an output that decodes
// to the same value as the input.
func TestJSONJobSpan(t *testing.T) {
	streams := loadJobStreams(t)
	if len(streams) < 4 {
		t.Fatalf("%d streams in the sample", len(streams))
	}
	for _, valid := range []func([]byte) bool{Valid, nil} {
		j := &spanJob{valid: valid}
		for _, st := range streams {
			for i, ev := range st.events {
				out, ok := j.run(st.api, ev)
				if !ok {
					t.Fatalf("%s event %d: not done: %s", st.name, i, ev)
				}
				checkJobEvent(t, st.api, ev, out, &j.f, func(lit []byte) []byte { return AppendUnquoted(nil, lit) })
			}
		}
	}
	if _, ok := (&spanJob{valid: Valid}).run(jobOpenAI, []byte(`{"choices":[]}x`)); ok {
		t.Error("trailing bytes after the event accepted")
	}
}

// checkJobEvent compares what the job found in ev, and its output, with
// encoding/json's reading of ev.
func checkJobEvent(t *testing.T, api jobAPI, ev, out []byte, f *jobFields, unquote func([]byte) []byte) {
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
		return string(unquote(ev[a.s:a.e]))
	}
	num := func(a jobAt, n int) any {
		if a.s < 0 {
			return nil
		}
		if string(ev[a.s:a.e]) != json.Number(ev[a.s:a.e]).String() {
			t.Fatalf("index span %q", ev[a.s:a.e])
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
	if api == jobOpenAI {
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

// BenchmarkJSONJob runs the job over every sample event of one API per op;
// the bytes are the events' JSON. span is the rewriter's way (Valid, then
// the span scanner), span-stdvalid its way before (encoding/json's Valid),
// span-novalid leaves the check out.
func BenchmarkJSONJob(b *testing.B) {
	streams := loadJobStreams(b)
	for _, api := range []jobAPI{jobOpenAI, jobAnthropic} {
		var evs [][]byte
		size := 0
		for _, st := range streams {
			if st.api == api {
				evs = append(evs, st.events...)
				for _, ev := range st.events {
					size += len(ev)
				}
			}
		}
		for _, v := range []struct {
			name  string
			valid func([]byte) bool
		}{{"span", Valid}, {"span-stdvalid", json.Valid}, {"span-novalid", nil}} {
			b.Run(api.String()+"/"+v.name, func(b *testing.B) {
				j := &spanJob{valid: v.valid}
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
	}
}
