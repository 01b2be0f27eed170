// Command toolsieve recovers the tool calls that language models write as
// text markup in their output.
//
// Usage:
//
//	toolsieve parse [--input auto|text|sse|json] [--chunk N] [--tools FILE] [--dialects LIST] [--quiet] [FILE]
//	toolsieve rewrite [--api openai|anthropic|auto] [--tools FILE] [--policy FILE] [--quiet] [FILE]
//	toolsieve proxy --upstream URL [flags]
//	toolsieve dialects
//	toolsieve demo [--json] [--chunk N] [SAMPLE...]
//	toolsieve help [COMMAND]
//	toolsieve --version
//
// Exit status: 0 on success (malformed markup in the input is data, not an
// error), 1 for I/O errors (an input FILE that cannot be opened or read, a
// failed write), 2 for bad usage: an unknown command or flag, a bad flag
// value, or a --tools file that cannot be read or is not valid JSON tool
// declarations.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
)

// Exit statuses.
const (
	exitOK    = 0
	exitIO    = 1
	exitUsage = 2
)

// version is set at build time with -ldflags "-X main.version=v1.2.3";
// otherwise it comes from the module's build information.
var version = ""

const usageText = `toolsieve recovers tool calls that language models write as text markup.

Usage:
  toolsieve <command> [flags] [arguments]

Commands:
  parse    read a model's output and print its events as JSON lines
  dialects list the dialects the parser knows, one per line
  rewrite  rewrite a chat response so that tool calls in its text become native calls
  proxy    serve a proxy to an OpenAI or Anthropic API that rewrites its chat responses
  demo     run the parser on bundled sample streams and show what it recovered
  help     show help for a command

Flags:
  --version  print the version and exit
  -h, --help show this help

Run "toolsieve help <command>" for a command's flags.
Exit status: 0 success, 1 I/O error, 2 bad usage.
`

// commands maps subcommand names to their entry points and help texts.
var commands = map[string]struct {
	run   func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
	usage func() string
}{
	"parse":    {runParse, func() string { return parseUsage }},
	"rewrite":  {runRewrite, func() string { return rewriteUsage }},
	"proxy":    {runProxy, func() string { return proxyUsage }},
	"demo":     {runDemo, demoUsageText},
	"dialects": {runDialects, func() string { return dialectsUsage }},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole command: it parses args, does the work and returns the
// exit status. Tests call it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText)
		return exitUsage
	}
	switch name := args[0]; name {
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, usageText)
		return exitOK
	case "-version", "--version":
		fmt.Fprintf(stdout, "toolsieve %s (%s)\n", versionString(), runtime.Version())
		return exitOK
	case "help":
		return runHelp(args[1:], stdout, stderr)
	default:
		cmd, ok := commands[name]
		if !ok {
			if strings.HasPrefix(name, "-") {
				fmt.Fprintf(stderr, "toolsieve: unknown flag %s\n%s", name, topHint)
			} else {
				fmt.Fprintf(stderr, "toolsieve: unknown command %q\n%s", name, topHint)
			}
			return exitUsage
		}
		return cmd.run(args[1:], stdin, stdout, stderr)
	}
}

func runHelp(args []string, stdout, stderr io.Writer) int {
	switch len(args) {
	case 0:
		fmt.Fprint(stdout, usageText)
		return exitOK
	case 1:
		if cmd, ok := commands[args[0]]; ok {
			fmt.Fprint(stdout, cmd.usage())
			return exitOK
		}
		fmt.Fprintf(stderr, "toolsieve help: unknown command %q\n%s", args[0], topHint)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "toolsieve help: too many arguments\nUsage: toolsieve help [COMMAND]\n")
		return exitUsage
	}
}

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// newFlagSet returns a flag set for a subcommand that reports errors
// instead of exiting, and prints nothing itself.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args allowing flags after positional arguments
// ("parse FILE --chunk 1"); everything after "--" is positional.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagError reports a flag parsing error for subcommand name: help
// requested with -h goes to stdout with status 0, anything else is a usage
// error.
func flagError(err error, name, usage string, stdout, stderr io.Writer) int {
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	return usageError(stderr, name, usage, err.Error())
}

// usageError prints msg and a hint on stderr and returns 2. The hint is
// the first line of the command's usage (its synopsis) and where to find
// the rest, not the whole help.
func usageError(stderr io.Writer, name, usage, msg string) int {
	synopsis, _, _ := strings.Cut(usage, "\n")
	fmt.Fprintf(stderr, "toolsieve %s: %s\n%s (more: toolsieve help %s)\n", name, msg, synopsis, name)
	return exitUsage
}

// topHint follows an error about the command line as a whole.
const topHint = "Run \"toolsieve help\" for the commands.\n"
