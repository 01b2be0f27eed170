package sse

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ev is a comparable view of an Event for tests. Offset is not in it: the
// coverage check verifies offsets for every event.
type ev struct {
	Raw      string
	Type     string
	HasType  bool
	Data     string
	HasData  bool
	ID       string
	HasID    bool
	Retry    int
	HasRetry bool
	Fields   int
	Comment  bool
	BOM      bool
	Unterm   bool
	ErrSize  int64 // Err.Size, 0 when Err is nil
}

func view(e Event) ev {
	v := ev{
		Raw: string(e.Raw), Type: e.Type, HasType: e.HasType,
		Data: string(e.Data), HasData: e.HasData,
		ID: e.ID, HasID: e.HasID, Retry: e.Retry, HasRetry: e.HasRetry,
		Fields: e.Fields, Comment: e.Comment, BOM: e.BOM, Unterm: e.Unterminated,
	}
	if e.Err != nil {
		v.ErrSize = e.Err.Size
	}
	return v
}

// decodeChunks feeds input split at the given cut points and returns
// clones of all events, checking the invariants that hold for any input.
func decodeChunks(t testing.TB, input []byte, cuts []int, max int) []Event {
	t.Helper()
	d := &Decoder{MaxEventSize: max}
	var out []Event
	prev := 0
	for _, c := range append(cuts, len(input)) {
		evs, err := d.Feed(input[prev:c])
		require.NoError(t, err)
		for _, e := range evs {
			out = append(out, e.Clone())
		}
		prev = c
		require.Equal(t, int64(c), d.Offset())
	}
	evs, err := d.Close()
	require.NoError(t, err)
	for _, e := range evs {
		out = append(out, e.Clone())
	}
	checkCoverage(t, input, out, max)
	_, err = d.Feed([]byte("x"))
	require.ErrorIs(t, err, ErrClosed)
	return out
}

// checkCoverage verifies that the events tile the input: Raw of kept
// events and Err ranges of skipped ones, in order, with no gap.
func checkCoverage(t testing.TB, input []byte, evs []Event, max int) {
	t.Helper()
	if max <= 0 {
		max = DefaultMaxEventSize
	}
	var pos int64
	for k, e := range evs {
		require.Equal(t, pos, e.Offset, "event %d offset", k)
		if e.Err != nil {
			require.Nil(t, e.Raw)
			require.Equal(t, e.Offset, e.Err.Offset)
			require.Greater(t, e.Err.Size, int64(max), "event %d skipped but not over the limit", k)
			pos += e.Err.Size
			continue
		}
		require.NotEmpty(t, e.Raw, "event %d", k)
		require.LessOrEqual(t, len(e.Raw), max)
		require.True(t, int(pos)+len(e.Raw) <= len(input), "event %d past the end", k)
		require.Equal(t, string(input[pos:int(pos)+len(e.Raw)]), string(e.Raw), "event %d raw", k)
		pos += int64(len(e.Raw))
		require.Equal(t, k == len(evs)-1 && e.Unterminated || !e.Unterminated, true,
			"only the last event may be unterminated")
	}
	require.Equal(t, int64(len(input)), pos, "events do not cover the input")
}

func views(evs []Event) []ev {
	var out []ev
	for _, e := range evs {
		out = append(out, view(e))
	}
	return out
}

// checkAllSplits decodes input whole, byte by byte, split in two at every
// position, and in a few random chunkings, and checks that every way gives
// the same events as the whole feed. It returns those.
func checkAllSplits(t *testing.T, input []byte, max int) []ev {
	t.Helper()
	whole := views(decodeChunks(t, input, nil, max))
	ones := make([]int, 0, len(input))
	for i := 1; i < len(input); i++ {
		ones = append(ones, i)
	}
	require.Equal(t, whole, views(decodeChunks(t, input, ones, max)), "1-byte chunks")
	for i := 0; i <= len(input); i++ {
		require.Equal(t, whole, views(decodeChunks(t, input, []int{i}, max)), "split at %d", i)
	}
	r := rand.New(rand.NewPCG(uint64(len(input)), 7))
	for range 20 {
		var cuts []int
		for i := 1; i < len(input); i++ {
			if r.IntN(4) == 0 {
				cuts = append(cuts, i)
			}
		}
		require.Equal(t, whole, views(decodeChunks(t, input, cuts, max)), "cuts %v", cuts)
	}
	return whole
}

func data(raw, d string) ev { return ev{Raw: raw, Data: d, HasData: true, Fields: 1} }

func TestDecoderRules(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		max   int
		want  []ev
		notes string
	}{
		{name: "empty input", in: "", want: nil},
		{name: "LF", in: "data: a\n\n", want: []ev{data("data: a\n\n", "a")}},
		{name: "CR", in: "data: a\r\r", want: []ev{data("data: a\r\r", "a")}},
		{name: "CRLF", in: "data: a\r\n\r\n", want: []ev{data("data: a\r\n\r\n", "a")}},
		{
			name: "mixed line ends",
			in:   "data: a\r\ndata: b\rdata: c\n\r\ndata: d\n\r",
			want: []ev{
				{Raw: "data: a\r\ndata: b\rdata: c\n\r\n", Data: "a\nb\nc", HasData: true, Fields: 3},
				data("data: d\n\r", "d"),
			},
		},
		{
			name: "LF CR is two line ends",
			in:   "data: a\n\rdata: b\n\n",
			want: []ev{data("data: a\n\r", "a"), data("data: b\n\n", "b")},
		},
		{
			name: "CR at end of input is a line end",
			in:   "data: a\r",
			want: []ev{{Raw: "data: a\r", Data: "a", HasData: true, Fields: 1, Unterm: true}},
		},
		{
			name: "blank CR at end of input ends the event",
			in:   "data: a\n\r",
			want: []ev{data("data: a\n\r", "a")},
		},
		{
			name: "BOM at stream start",
			in:   "\xEF\xBB\xBFdata: a\n\ndata: b\n\n",
			want: []ev{
				{Raw: "\xEF\xBB\xBFdata: a\n\n", Data: "a", HasData: true, Fields: 1, BOM: true},
				data("data: b\n\n", "b"),
			},
		},
		{
			name: "BOM only at stream start",
			in:   "\n\xEF\xBB\xBFdata: a\n\n",
			want: []ev{{Raw: "\n"}, {Raw: "\xEF\xBB\xBFdata: a\n\n", Fields: 1}},
		},
		{
			name: "second BOM is not skipped",
			in:   "\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\n",
			want: []ev{{Raw: "\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\n", Fields: 1, BOM: true}},
		},
		{
			name: "partial BOM is part of the first line",
			in:   "\xEF\xBBdata: a\n\n\xEF",
			want: []ev{{Raw: "\xEF\xBBdata: a\n\n", Fields: 1}, {Raw: "\xEF", Fields: 1, Unterm: true}},
		},
		{
			name: "partial BOM then colon",
			in:   "\xEF:x\n\n",
			want: []ev{{Raw: "\xEF:x\n\n", Fields: 1}},
		},
		{
			name: "BOM alone",
			in:   "\xEF\xBB\xBF",
			want: []ev{{Raw: "\xEF\xBB\xBF", BOM: true, Unterm: true}},
		},
		{name: "data with space", in: "data: a\n\n", want: []ev{data("data: a\n\n", "a")}},
		{name: "data without space", in: "data:a\n\n", want: []ev{data("data:a\n\n", "a")}},
		{name: "only one space stripped", in: "data:  a \n\n", want: []ev{data("data:  a \n\n", " a ")}},
		{name: "tab is not stripped", in: "data:\ta\n\n", want: []ev{data("data:\ta\n\n", "\ta")}},
		{name: "data without colon", in: "data\n\n", want: []ev{data("data\n\n", "")}},
		{name: "data colon only", in: "data:\n\n", want: []ev{data("data:\n\n", "")}},
		{name: "data colon space only", in: "data: \n\n", want: []ev{data("data: \n\n", "")}},
		{name: "colon in value", in: "data: a: b:c\n\n", want: []ev{data("data: a: b:c\n\n", "a: b:c")}},
		{
			name: "multi-line data",
			in:   "data: a\ndata:\ndata:  c\ndata\n\n",
			want: []ev{{Raw: "data: a\ndata:\ndata:  c\ndata\n\n", Data: "a\n\n c\n", HasData: true, Fields: 4}},
		},
		{
			name: "data lines around other fields",
			in:   "data: {\"a\":\nevent: x\n: c\ndata: 1}\n\n",
			want: []ev{{Raw: "data: {\"a\":\nevent: x\n: c\ndata: 1}\n\n", Data: "{\"a\":\n1}", HasData: true,
				Type: "x", HasType: true, Fields: 3}},
		},
		{
			name: "comments",
			in:   ": hello\n:\n\n: mixed\ndata: x\n\n",
			want: []ev{
				{Raw: ": hello\n:\n\n", Comment: true},
				{Raw: ": mixed\ndata: x\n\n", Data: "x", HasData: true, Fields: 1},
			},
		},
		{
			name: "event type last wins",
			in:   "event: a\nevent: b\ndata: x\n\n",
			want: []ev{{Raw: "event: a\nevent: b\ndata: x\n\n", Type: "b", HasType: true, Data: "x", HasData: true, Fields: 3}},
		},
		{
			name: "event without data",
			in:   "event: a\n\n",
			want: []ev{{Raw: "event: a\n\n", Type: "a", HasType: true, Fields: 1}},
		},
		{
			name: "empty event type",
			in:   "event\ndata\n\n",
			want: []ev{{Raw: "event\ndata\n\n", HasType: true, HasData: true, Fields: 2}},
		},
		{
			name: "id",
			in:   "id: 42\ndata: x\n\nid\n\n",
			want: []ev{
				{Raw: "id: 42\ndata: x\n\n", ID: "42", HasID: true, Data: "x", HasData: true, Fields: 2},
				{Raw: "id\n\n", HasID: true, Fields: 1},
			},
		},
		{
			name: "id with NUL is ignored",
			in:   "id: 1\nid: a\x00b\ndata: x\n\nid: \x00\n\n",
			want: []ev{
				{Raw: "id: 1\nid: a\x00b\ndata: x\n\n", ID: "1", HasID: true, Data: "x", HasData: true, Fields: 3},
				{Raw: "id: \x00\n\n", Fields: 1},
			},
		},
		{
			name: "retry valid",
			in:   "retry: 3000\n\nretry:0\n\n",
			want: []ev{
				{Raw: "retry: 3000\n\n", Retry: 3000, HasRetry: true, Fields: 1},
				{Raw: "retry:0\n\n", Retry: 0, HasRetry: true, Fields: 1},
			},
		},
		{
			name: "retry invalid",
			in:   "retry: 10s\n\nretry: -1\n\nretry: 1 \n\nretry:\n\nretry\n\nretry:  5\n\n",
			want: []ev{
				{Raw: "retry: 10s\n\n", Fields: 1},
				{Raw: "retry: -1\n\n", Fields: 1},
				{Raw: "retry: 1 \n\n", Fields: 1},
				{Raw: "retry:\n\n", Fields: 1},
				{Raw: "retry\n\n", Fields: 1},
				{Raw: "retry:  5\n\n", Fields: 1},
			},
		},
		{
			name: "invalid retry keeps the previous one",
			in:   "retry: 5\nretry: x\n\n",
			want: []ev{{Raw: "retry: 5\nretry: x\n\n", Retry: 5, HasRetry: true, Fields: 2}},
		},
		{
			name: "retry saturates",
			in:   "retry: 99999999999999999999999999\n\n",
			want: []ev{{Raw: "retry: 99999999999999999999999999\n\n", Retry: math.MaxInt, HasRetry: true, Fields: 1}},
		},
		{
			name: "unknown fields",
			in:   "foo: bar\nDATA: x\ndata : y\ndatum: z\nevents: e\n\n",
			want: []ev{{Raw: "foo: bar\nDATA: x\ndata : y\ndatum: z\nevents: e\n\n", Fields: 5}},
		},
		{
			name: "field name prefix of known name",
			in:   "dat: x\nda\nretryx: 1\n\n",
			want: []ev{{Raw: "dat: x\nda\nretryx: 1\n\n", Fields: 3}},
		},
		{
			name: "event without blank line at close",
			in:   "data: a\n\nevent: e\ndata: b\n",
			want: []ev{
				data("data: a\n\n", "a"),
				{Raw: "event: e\ndata: b\n", Type: "e", HasType: true, Data: "b", HasData: true, Fields: 2, Unterm: true},
			},
		},
		{
			name: "last line without line end at close",
			in:   "data: a\n\ndata: {\"x\":1",
			want: []ev{
				data("data: a\n\n", "a"),
				{Raw: "data: {\"x\":1", Data: "{\"x\":1", HasData: true, Fields: 1, Unterm: true},
			},
		},
		{
			name: "name only at close",
			in:   "data",
			want: []ev{{Raw: "data", HasData: true, Fields: 1, Unterm: true}},
		},
		{
			name: "colon at close",
			in:   "event:",
			want: []ev{{Raw: "event:", HasType: true, Fields: 1, Unterm: true}},
		},
		{
			name: "comment at close",
			in:   ": bye",
			want: []ev{{Raw: ": bye", Comment: true, Unterm: true}},
		},
		{
			name: "multi-line data at close",
			in:   "data: a\ndata: b",
			want: []ev{{Raw: "data: a\ndata: b", Data: "a\nb", HasData: true, Fields: 2, Unterm: true}},
		},
		{
			name: "empty lines between events",
			in:   "\n\ndata: a\n\n\r\n\rdata: b\r\n\r\n\n",
			want: []ev{
				{Raw: "\n"}, {Raw: "\n"},
				data("data: a\n\n", "a"),
				{Raw: "\r\n"}, {Raw: "\r"},
				data("data: b\r\n\r\n", "b"),
				{Raw: "\n"},
			},
		},
		{
			name: "huge event over the limit then a good one",
			in:   "data: " + strings.Repeat("x", 40) + "\n\ndata: ok\n\n",
			max:  32,
			want: []ev{{ErrSize: 48}, data("data: ok\n\n", "ok")},
		},
		{
			name: "oversized event with many lines and CRLF",
			in:   "data: 1\r\n: c\r\ndata: 2\r\nevent: e\r\ndata: 3\r\n\r\nevent: k\r\ndata: ok\r\n\r\n",
			max:  32,
			want: []ev{
				{ErrSize: 44},
				{Raw: "event: k\r\ndata: ok\r\n\r\n", Type: "k", HasType: true, Data: "ok", HasData: true, Fields: 2},
			},
		},
		{
			name: "oversized event cut at close",
			in:   "data: ok\n\ndata: " + strings.Repeat("x", 40),
			max:  32,
			want: []ev{data("data: ok\n\n", "ok"), {ErrSize: 46, Unterm: true}},
		},
		{
			name: "event of exactly the limit is kept",
			in:   "data: " + strings.Repeat("x", 24) + "\r\n\r\n",
			max:  34,
			want: []ev{data("data: "+strings.Repeat("x", 24)+"\r\n\r\n", strings.Repeat("x", 24))},
		},
		{
			name: "one byte over the limit by the final LF",
			in:   "data: " + strings.Repeat("x", 24) + "\r\n\r\n",
			max:  33,
			want: []ev{{ErrSize: 34}},
		},
		{
			name: "tiny limit with BOM",
			in:   "\xEF\xBB\xBF\n\xEF\xBB\n\ndata: a\n\n",
			max:  2,
			want: []ev{{ErrSize: 4}, {ErrSize: 4}, {ErrSize: 9}},
		},
		{
			name: "NUL and invalid UTF-8 in data are kept",
			in:   "data: \x00\xff\xfe\n\n",
			want: []ev{data("data: \x00\xff\xfe\n\n", "\x00\xff\xfe")},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := checkAllSplits(t, []byte(tc.in), tc.max)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestDecoderEventFlags(t *testing.T) {
	evs := decodeChunks(t, []byte(": c\n\n\ndata: x\n\nevent: e\n\n"), nil, 0)
	require.Len(t, evs, 4)
	assert.True(t, evs[0].Comment)
	assert.False(t, evs[0].IsBlank())
	assert.False(t, evs[0].IsMessage())
	assert.True(t, evs[1].IsBlank())
	assert.True(t, evs[2].IsMessage())
	assert.False(t, evs[3].IsMessage())
	assert.False(t, evs[3].IsBlank())

	evs = decodeChunks(t, []byte("data: "+strings.Repeat("x", 64)+"\n\n"), nil, 16)
	require.Len(t, evs, 1)
	require.NotNil(t, evs[0].Err)
	assert.False(t, evs[0].IsMessage())
	assert.False(t, evs[0].IsBlank())
	assert.Equal(t, int64(0), evs[0].Err.Offset)
	assert.Equal(t, 16, evs[0].Err.Limit)
	assert.Contains(t, evs[0].Err.Error(), "offset 0")
}

func TestDecoderCloseTwiceAndReset(t *testing.T) {
	d := &Decoder{MaxEventSize: 100}
	evs, err := d.Feed([]byte("data: a\n\ndata: b"))
	require.NoError(t, err)
	require.Len(t, evs, 1)
	evs, err = d.Close()
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.True(t, evs[0].Unterminated)
	evs, err = d.Close()
	require.NoError(t, err)
	assert.Empty(t, evs)

	d.Reset()
	assert.Equal(t, 100, d.MaxEventSize)
	assert.Equal(t, int64(0), d.Offset())
	evs, err = d.Feed([]byte("\xEF\xBB\xBFdata: c\n\n"))
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.True(t, evs[0].BOM)
	assert.Equal(t, "c", string(evs[0].Data))
	assert.Equal(t, int64(0), evs[0].Offset)
}

// TestDecoderOversizedStream checks that many oversized events in one
// chunk and in many small chunks are all reported, with bounded memory.
func TestDecoderOversizedStream(t *testing.T) {
	var in bytes.Buffer
	for i := range 50 {
		fmt.Fprintf(&in, "event: big\ndata: %s\n\n", strings.Repeat("y", 1000+i))
		fmt.Fprintf(&in, "data: small %d\n\n", i)
	}
	for _, chunk := range []int{1, 7, 64, 4096, in.Len()} {
		d := &Decoder{MaxEventSize: 512}
		var big, small int
		b := in.Bytes()
		for len(b) > 0 {
			n := min(chunk, len(b))
			evs, err := d.Feed(b[:n])
			require.NoError(t, err)
			b = b[n:]
			for _, e := range evs {
				if e.Err != nil {
					big++
				} else {
					assert.Equal(t, fmt.Sprintf("small %d", small), string(e.Data))
					small++
				}
			}
			// Memory held between calls stays bounded by the limit.
			assert.LessOrEqual(t, len(d.raw)-d.evStart, 512)
		}
		evs, err := d.Close()
		require.NoError(t, err)
		assert.Empty(t, evs)
		assert.Equal(t, 50, big, "chunk %d", chunk)
		assert.Equal(t, 50, small, "chunk %d", chunk)
	}
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "sse", name))
	require.NoError(t, err)
	return b
}

func TestDecoderOpenAIFixture(t *testing.T) {
	in := readFixture(t, "openai_chat.sse")
	evs := checkAllSplits(t, in, 0)
	require.Len(t, evs, 9)
	var msgs []string
	for _, e := range evs {
		assert.False(t, e.Unterm)
		assert.False(t, e.HasType)
		if e.Comment {
			assert.Equal(t, ": keep-alive\n\n", e.Raw)
			continue
		}
		require.True(t, e.HasData)
		msgs = append(msgs, e.Data)
	}
	require.Len(t, msgs, 8)
	assert.Equal(t, "[DONE]", msgs[7])
	assert.Contains(t, msgs[3], `<tool_call>\n{\"name\": \"get_weather\", `)
	for _, m := range msgs[:7] {
		assert.True(t, strings.HasPrefix(m, `{"id":"chatcmpl-9xTq2aLkP0","object":"chat.completion.chunk"`), m)
	}
}

func TestDecoderAnthropicFixture(t *testing.T) {
	in := readFixture(t, "anthropic_messages.sse")
	evs := checkAllSplits(t, in, 0)
	var types []string
	for _, e := range evs {
		require.True(t, e.HasType)
		require.True(t, e.HasData)
		require.Equal(t, 2, e.Fields)
		assert.Contains(t, strings.ReplaceAll(e.Data, " ", ""), `"type":"`+e.Type+`"`)
		types = append(types, e.Type)
	}
	assert.Equal(t, []string{
		"message_start", "content_block_start", "ping",
		"content_block_delta", "content_block_delta", "content_block_delta",
		"content_block_stop", "message_delta", "message_stop",
	}, types)
}

// TestDecoderFixturesOtherLineEnds runs the fixtures with CRLF and CR line ends.
func TestDecoderFixturesOtherLineEnds(t *testing.T) {
	for _, name := range []string{"openai_chat.sse", "anthropic_messages.sse"} {
		lf := readFixture(t, name)
		want := views(decodeChunks(t, lf, nil, 0))
		for _, eol := range []string{"\r\n", "\r"} {
			in := bytes.ReplaceAll(lf, []byte("\n"), []byte(eol))
			got := views(decodeChunks(t, in, nil, 0))
			require.Len(t, got, len(want))
			for k := range got {
				assert.Equal(t, strings.ReplaceAll(want[k].Raw, "\n", eol), got[k].Raw)
				got[k].Raw = want[k].Raw
			}
			assert.Equal(t, want, got, "%s with %q", name, eol)
		}
	}
}

func TestDecoderSliceReuse(t *testing.T) {
	// Events returned by one call stay intact until the next call, even
	// when the pending event is moved to the front of the buffers.
	d := &Decoder{}
	evs, err := d.Feed([]byte("data: one\ndata: 1\n\ndata: two\ndata: 2\n\ndata: thr"))
	require.NoError(t, err)
	require.Len(t, evs, 2)
	assert.Equal(t, "one\n1", string(evs[0].Data))
	assert.Equal(t, "two\n2", string(evs[1].Data))
	assert.Equal(t, "data: two\ndata: 2\n\n", string(evs[1].Raw))
	evs, err = d.Feed([]byte("ee\ndata: 3\n\ndata: fo"))
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.Equal(t, "three\n3", string(evs[0].Data))
	assert.Equal(t, "data: three\ndata: 3\n\n", string(evs[0].Raw))
	// Appending to a returned slice must not clobber the decoder's buffer,
	// where the pending "data: fo" follows the event's bytes.
	raw := append(evs[0].Raw, "zzzzzzzzzzzz"...)
	data := append(evs[0].Data, "zzzzzzzzzzzz"...)
	assert.Equal(t, "data: three\ndata: 3\n\nzzzzzzzzzzzz", string(raw))
	assert.Equal(t, "three\n3zzzzzzzzzzzz", string(data))
	evs, err = d.Feed([]byte("ur\n\n"))
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.Equal(t, "four", string(evs[0].Data))
	assert.Equal(t, "data: four\n\n", string(evs[0].Raw))
}

func TestDecoderNoAllocs(t *testing.T) {
	in := readFixture(t, "anthropic_messages.sse")
	in = append(in, readFixture(t, "openai_chat.sse")...)
	d := &Decoder{}
	feed := func() {
		for b := in; len(b) > 0; {
			n := min(64, len(b))
			if _, err := d.Feed(b[:n]); err != nil {
				t.Fatal(err)
			}
			b = b[n:]
		}
	}
	feed() // warm up buffers and the type cache
	allocs := testing.AllocsPerRun(20, feed)
	assert.Zero(t, allocs)
}

func TestAppendEvent(t *testing.T) {
	tests := []struct {
		name string
		typ  string
		data string
		want string
	}{
		{"plain", "", "hello", "data: hello\n\n"},
		{"typed", "message_stop", `{"type":"message_stop"}`, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"},
		{"empty data", "", "", "data: \n\n"},
		{"multi-line", "x", "a\nb\r\nc\rd", "event: x\ndata: a\ndata: b\ndata: c\ndata: d\n\n"},
		{"trailing newline", "", "a\n", "data: a\ndata: \n\n"},
		{"leading space kept", "", " a", "data:  a\n\n"},
		{"line ends in type dropped", "a\r\nb", "x", "event: ab\ndata: x\n\n"},
		{"trailing CR", "", "a\r", "data: a\ndata: \n\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := AppendEvent([]byte("prev"), tc.typ, []byte(tc.data))
			require.Equal(t, "prev"+tc.want, string(got))
			evs := decodeChunks(t, got[4:], nil, 0)
			require.Len(t, evs, 1)
			assert.Equal(t, tc.typ != "", evs[0].HasType)
			assert.Equal(t, strings.NewReplacer("\r\n", "", "\r", "", "\n", "").Replace(tc.typ), evs[0].Type)
			assert.Equal(t, strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(tc.data), string(evs[0].Data))
		})
	}
}

func TestAppendComment(t *testing.T) {
	assert.Equal(t, ":\n\n", string(AppendComment(nil, "")))
	assert.Equal(t, ": ping\n\n", string(AppendComment(nil, "ping")))
	got := AppendComment(nil, "a\nb")
	assert.Equal(t, ": a\n: b\n\n", string(got))
	evs := decodeChunks(t, got, nil, 0)
	require.Len(t, evs, 1)
	assert.True(t, evs[0].Comment)
}

func TestAppendNoAllocs(t *testing.T) {
	buf := make([]byte, 0, 1024)
	d := []byte("a\nb")
	allocs := testing.AllocsPerRun(100, func() {
		buf = AppendEvent(buf[:0], "t", d)
		buf = AppendComment(buf, "keep-alive")
	})
	assert.Zero(t, allocs)
}

func BenchmarkDecoder(b *testing.B) {
	one := readFixture(b, "openai_chat.sse")
	var in []byte
	for len(in) < 1<<20 {
		in = append(in, one...)
	}
	d := &Decoder{}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	b.ResetTimer()
	var n int
	for b.Loop() {
		d.Reset()
		for p := in; len(p) > 0; {
			k := min(64, len(p))
			evs, _ := d.Feed(p[:k])
			n += len(evs)
			p = p[k:]
		}
		evs, _ := d.Close()
		n += len(evs)
	}
	if n == 0 {
		b.Fatal("no events")
	}
}

// TestDecoderCRLinesLinear guards against searching the same bytes again
// on every line of a CR-terminated stream fed as one big chunk (quadratic
// time: this test would then take minutes).
func TestDecoderCRLinesLinear(t *testing.T) {
	in := bytes.Repeat([]byte("data: x\r\r"), 1<<18) // 2.25 MiB, 256Ki events
	d := &Decoder{}
	evs, err := d.Feed(in)
	require.NoError(t, err)
	require.Len(t, evs, 1<<18-1)
	evs, err = d.Close()
	require.NoError(t, err)
	require.Len(t, evs, 1)
}

func BenchmarkDecoderCRLF(b *testing.B) {
	one := bytes.ReplaceAll(readFixture(b, "anthropic_messages.sse"), []byte("\n"), []byte("\r\n"))
	var in []byte
	for len(in) < 1<<20 {
		in = append(in, one...)
	}
	d := &Decoder{}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		d.Reset()
		for p := in; len(p) > 0; {
			k := min(64, len(p))
			_, _ = d.Feed(p[:k])
			p = p[k:]
		}
		_, _ = d.Close()
	}
}

// TestDecoderFootprint: the decoder's buffers grow with a large event
// (Pending says how much of it came), and shrink back once it is
// returned and small events follow, so that one large event does not keep
// its memory for the rest of the stream.
func TestDecoderFootprint(t *testing.T) {
	var d Decoder
	small := []byte("data: {\"a\":1}\n\n")
	for range 10 {
		d.Feed(small)
	}
	base := d.Footprint()
	require.Less(t, base, 64<<10)
	big := append(append([]byte("data: "), bytes.Repeat([]byte("x"), 4<<20)...), "\n\n"...)
	for i := 0; i < len(big)-2; i += 32 << 10 {
		evs, _ := d.Feed(big[i:min(i+32<<10, len(big)-2)])
		require.Empty(t, evs)
		require.Equal(t, min(i+32<<10, len(big)-2), d.Pending())
	}
	evs, _ := d.Feed(big[len(big)-2:])
	require.Len(t, evs, 1)
	require.Greater(t, d.Footprint(), 4<<20)
	require.Zero(t, d.Pending())
	for range 3 {
		d.Feed(small)
	}
	require.Less(t, d.Footprint(), 256<<10, "the large event's buffer was not given back")
}

// TestAppendLinesSplits: data of every length up to 40 with CR, LF and
// CRLF at random places is split where a byte by byte walk splits it.
func TestAppendLinesSplits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	want := func(s []byte) []byte { // one "data: " line per line, CR LF and CRLF ending lines
		var out []byte
		start := 0
		for i := 0; i < len(s); i++ {
			if s[i] == '\n' || s[i] == '\r' {
				out = append(append(append(out, "data: "...), s[start:i]...), '\n')
				if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
					i++
				}
				start = i + 1
			}
		}
		return append(append(append(out, "data: "...), s[start:]...), '\n')
	}
	for range 20000 {
		s := make([]byte, rng.IntN(41))
		for i := range s {
			s[i] = "ab\r\n\x0b\x0c\x8a\x8d"[rng.IntN(8)]
		}
		if got := appendLines(nil, "data: ", s); string(got) != string(want(s)) {
			t.Fatalf("appendLines(%q) = %q, want %q", s, got, want(s))
		}
		if got := appendLines(nil, "data: ", string(s)); string(got) != string(want(s)) {
			t.Fatalf("appendLines(string %q) = %q, want %q", s, got, want(s))
		}
	}
}
