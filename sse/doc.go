// Package sse decodes and encodes Server-Sent Events (text/event-stream)
// in push mode, keeping the exact bytes of every event so that a stream
// rewriter can pass untouched events through byte for byte.
//
// # Decoding
//
// A Decoder is fed chunks of any size (down to a single byte, split
// anywhere, including between the CR and the LF of a CRLF) with Feed, and
// told about the end of input with Close. Its state is plain data: no
// goroutines, no io.Reader, constant work per input byte, and no buffered
// byte is ever scanned twice.
//
// The decoder splits the stream into blocks: each block is the run of lines
// up to and including a blank line. Every block is returned as an Event,
// whether or not the WHATWG processing model would dispatch it, so that the
// concatenation of Event.Raw over all returned events (plus the byte ranges
// of oversized blocks, which are reported with Event.Err and not kept) is
// exactly the input. Blocks that the standard would not dispatch are
// recognisable by their flags: Event.IsMessage reports whether a browser
// would fire a message event for the block.
//
// Parsing follows the event-stream interpretation rules of the WHATWG HTML
// standard (section 9.2.6):
//
//   - lines end with CR, LF or CRLF; a CR at the end of a chunk waits for
//     the next chunk to see whether an LF follows, and at end of input it
//     is a line end;
//   - a UTF-8 byte order mark at the very start of the stream is skipped by
//     the parser (it stays in the first event's Raw, and Event.BOM is set);
//   - "name:value" lines, with one optional space after the colon removed;
//     a line without a colon is a field with an empty value; a line
//     starting with a colon is a comment;
//   - the fields are event, data (data lines joined with "\n"), id (ignored
//     if the value contains NUL) and retry (ignored unless it is all ASCII
//     digits); other field names are ignored;
//   - a blank line ends the block.
//
// Deliberate differences from the standard:
//
//   - No UTF-8 decoding is done: field values are the raw bytes of the
//     input (the standard decodes with replacement characters). This keeps
//     Raw and Data consistent and lets callers decide.
//   - At end of input (Close) the standard discards an event that was not
//     terminated by a blank line. The decoder instead returns it, with
//     Event.Unterminated set, including a last line that has no line end:
//     providers do cut streams short, and the last event must not be lost.
//   - Blocks without data (comment-only, id-only, retry-only, empty) are
//     returned like any other block rather than silently dropped.
//
// # Limits
//
// A block whose raw size exceeds Decoder.MaxEventSize (default
// DefaultMaxEventSize) is not kept: its bytes are skipped up to and
// including the next blank line and it is returned as an Event whose Err
// is set (with the stream offset and size of the skipped bytes) and whose
// Raw is nil. Memory held between calls is bounded by MaxEventSize; within
// one call it is bounded by MaxEventSize plus the size of the chunk.
//
// # Encoding
//
// AppendEvent and AppendComment append well-formed blocks to a byte slice.
package sse
