package main

import (
	"fmt"
	"io"
	"os"

	"github.com/toolsieve/toolsieve"
	"github.com/toolsieve/toolsieve/chat"
)

const rewriteUsage = `Usage: toolsieve rewrite [--api openai|anthropic|responses|auto] [--tools FILE] [FILE]

Reads a chat response (an SSE stream, or a whole JSON response) from FILE or
standard input and writes it back with the tool calls the model wrote as
markup turned into native tool calls of the same API, the markup taken out
of the text, and the finish reason set to tool_calls (tool_use). Events
that need no change are copied byte for byte. Output is written as it is
produced, so a live stream can be piped through.

Flags:
  --api API     openai, anthropic, responses or auto (default auto: from the
                first event)
  --tools FILE  JSON file with declared tools (an OpenAI or Anthropic "tools"
                array, or a whole request body holding one)

Problems in the input (malformed frames, runaways) are reported on standard
error; they do not change the exit status. Exit status: 0 when the input
was read, 1 for I/O errors, 2 for bad usage.
`

func runRewrite(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "rewrite"
	fs := newFlagSet(name)
	apiName := fs.String("api", "auto", "")
	toolsFile := fs.String("tools", "", "")
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
	in := stdin
	if len(pos) == 1 && pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			fmt.Fprintf(stderr, "toolsieve rewrite: %v\n", err)
			return exitIO
		}
		defer f.Close()
		in = f
	}
	rw := chat.NewRewriter(io.NopCloser(in), api, opt)
	rw.Notify = func(e *toolsieve.Event) {
		switch e.Type {
		case toolsieve.Error:
			fmt.Fprintf(stderr, "toolsieve rewrite: warning: %s\n", e.Message)
		case toolsieve.Runaway:
			fmt.Fprintf(stderr, "toolsieve rewrite: warning: runaway (%s): stream ended\n", e.Reason)
		}
	}
	// Copy without io.Copy's ReaderFrom/WriterTo paths: each rewritten
	// piece is written as soon as it is ready.
	buf := make([]byte, 32<<10)
	for {
		n, rerr := rw.Read(buf)
		if n > 0 {
			if _, err := stdout.Write(buf[:n]); err != nil {
				fmt.Fprintf(stderr, "toolsieve rewrite: writing output: %v\n", err)
				return exitIO
			}
		}
		if rerr == io.EOF {
			return exitOK
		}
		if rerr != nil {
			fmt.Fprintf(stderr, "toolsieve rewrite: reading input: %v\n", rerr)
			return exitIO
		}
	}
}
