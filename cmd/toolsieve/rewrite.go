package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
	"github.com/toolsieve/toolsieve/sievehttp"
)

const rewriteUsage = `Usage: toolsieve rewrite [--api openai|anthropic|responses|auto] [--tools FILE] [--policy FILE [--model M]] [--quiet] [FILE]

Reads a chat response (an SSE stream, or a whole JSON response) from FILE or
standard input and writes it back with the tool calls the model wrote as
markup turned into native tool calls of the same API, the markup taken out
of the text, and the finish reason set to tool_calls (tool_use). Events
that need no change are copied byte for byte. Output is written as it is
produced, so a live stream can be piped through. HTTP response headers at
the start of a capture (curl -i) are skipped: the body is rewritten. Then
prints a summary line on standard error: calls made native, repairs,
runaways (and errors), bytes read and written.

Flags:
  --api API      openai, anthropic, responses or auto (default auto: from the
                 first event)
  --tools FILE   JSON file with declared tools (an OpenAI or Anthropic "tools"
                 array, or a whole request body holding one)
  --policy FILE  replay the capture as the proxy would answer it under this
                 policy (see docs/policy.md), for the model the capture names
                 (the "model" of its first chunk, message_start or document;
                 the policy's default when it names none). What shapes the
                 parsing applies: mode (strict refuses calls, which stay
                 text), allow_repairs, dialects, code_guard, max_call_bytes
                 and the runaway thresholds. Retries, hold_text and
                 clean_history do not: there is no upstream to ask again,
                 no client waiting and no request.
  --model MODEL  with --policy: the model the request named (its rule and
                 upstream decide), instead of the capture's; for a capture
                 of the proxy (--capture), the "model" of ID.meta.json
  --quiet        print neither the summary nor the notes (warnings are
                 still printed)

Problems in the input (malformed frames, runaways, a stream that ends before
its finish marker) are reported on standard error; they do not change the
exit status. A call that the answer's end cut before the model finished it
(no finish marker, or a finish reason such as length, max_tokens or an
incomplete response) is not made native: its markup stays text. Exit status: 0 when the input
was read, 1 for I/O errors, 2 for bad usage (including a --policy file that
cannot be read or is not a valid policy).
`

func runRewrite(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "rewrite"
	fs := newFlagSet(name)
	apiName := fs.String("api", "auto", "")
	toolsFile := fs.String("tools", "", "")
	policyFile := fs.String("policy", "", "")
	model := fs.String("model", "", "")
	quiet := fs.Bool("quiet", false, "")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagError(err, name, rewriteUsage, stdout, stderr)
	}
	api, ok := chat.ParseAPI(*apiName)
	if !ok {
		return usageError(stderr, name, rewriteUsage, fmt.Sprintf("bad --api value %q (want openai, anthropic, responses or auto)", *apiName))
	}
	if len(pos) > 1 {
		return usageError(stderr, name, rewriteUsage, fmt.Sprintf("too many arguments: %q (want at most one FILE)", pos))
	}
	var opt toolsieve.Options
	if *toolsFile != "" {
		tools, err := loadTools(*toolsFile)
		if err != nil {
			return usageError(stderr, name, rewriteUsage, "--tools: "+err.Error())
		}
		opt.Tools = tools
	}
	var pol *sievehttp.Policy
	if *policyFile != "" {
		if pol, err = sievehttp.LoadPolicy(*policyFile); err != nil {
			return usageError(stderr, name, rewriteUsage, "--policy: "+err.Error())
		}
	}
	var in io.Reader = stdin
	if len(pos) == 1 && pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			fmt.Fprintf(stderr, "toolsieve rewrite: %v\n", err)
			return exitIO
		}
		defer f.Close()
		in = f
	}
	note := func(format string, a ...any) {
		if !*quiet {
			fmt.Fprintf(stderr, "toolsieve rewrite: "+format+"\n", a...)
		}
	}

	counted := &countingReader{r: in}
	h := newHead(counted)
	if hh := skipHTTPHeaders(h); hh.n > 0 {
		note("skipped %s of HTTP response headers: the body is rewritten", plural(hh.n, "byte"))
	}
	var tl tally
	notify := func(e *toolsieve.Event) {
		tl.add(e)
		switch e.Type {
		case toolsieve.Error:
			fmt.Fprintf(stderr, "toolsieve rewrite: warning: %s\n", e.Message)
		case toolsieve.Runaway:
			fmt.Fprintf(stderr, "toolsieve rewrite: warning: runaway (%s): stream ended\n", e.Reason)
		}
	}
	var out io.Reader
	var refused func() int
	if pol != nil {
		c, err := sniffCapture(h, api)
		if err != nil {
			fmt.Fprintf(stderr, "toolsieve rewrite: reading input: %v\n", err)
			return exitIO
		}
		if *model != "" {
			c.model = *model
		}
		set, _ := pol.Resolve(c.model, nil) // no headers: cannot fail
		note("%s", describeReplay(c, &set))
		resp, err := replay(h.rest(), c, opt, pol, notify)
		if err != nil {
			fmt.Fprintf(stderr, "toolsieve rewrite: reading input: %v\n", err)
			return exitIO
		}
		defer resp.Body.Close()
		out, refused = resp.Body, func() int { return refusedCount(resp) }
	} else {
		rw := chat.NewRewriter(io.NopCloser(h.rest()), api, opt)
		rw.Notify = notify
		out, refused = rw, func() int { return rw.Stats().Refused }
	}

	// Copy without io.Copy's ReaderFrom/WriterTo paths: each rewritten
	// piece is written as soon as it is ready.
	buf := make([]byte, 32<<10)
	written := 0
	for {
		n, rerr := out.Read(buf)
		if n > 0 {
			if _, err := stdout.Write(buf[:n]); err != nil {
				fmt.Fprintf(stderr, "toolsieve rewrite: writing output: %v\n", err)
				return exitIO
			}
			written += n
		}
		if rerr == io.EOF {
			break
		}
		if errors.Is(rerr, chat.ErrTruncated) || errors.Is(rerr, chat.ErrStreamedCall) {
			// The capture was cut: a problem of the input, said as the
			// proxy ends such a stream, not an I/O error.
			fmt.Fprintf(stderr, "toolsieve rewrite: warning: %v\n", rerr)
			break
		}
		if rerr != nil {
			fmt.Fprintf(stderr, "toolsieve rewrite: reading input: %v\n", rerr)
			return exitIO
		}
	}
	line := tl.String("call made native")
	if n := refused(); n > 0 {
		line += fmt.Sprintf(", %d refused by strict mode", n)
	}
	note("%s; %s read, %s written", line, plural(int(counted.n), "byte"), plural(written, "byte"))
	return exitOK
}
