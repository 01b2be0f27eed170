package toolsieve_test

import (
	"fmt"

	"github.com/toolsieve/toolsieve"
)

// A model writes a call as DeepSeek DSML markup; the stream arrives in small
// pieces. Text is passed on as soon as it cannot be markup, and the call is
// reported the moment its markup closes.
func Example() {
	stream := []string{
		"Let me check.\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_",
		"weather\">\n<｜DSML｜parameter name=\"city\" string=\"true\">杭",
		"州</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>\nDone.",
	}
	p := toolsieve.NewParser(toolsieve.Options{})
	show := func(events []toolsieve.Event) {
		for _, e := range events {
			switch e.Type {
			case toolsieve.Text:
				fmt.Printf("text %q\n", e.Text)
			case toolsieve.ToolCall:
				fmt.Printf("call %s %s (%s)\n", e.Name, e.Arguments, e.Dialect)
			}
		}
	}
	for _, chunk := range stream {
		show(p.Feed([]byte(chunk)))
	}
	show(p.Close())
	// Output:
	// text "Let me check.\n"
	// call get_weather {"city":"杭州"} (dsml)
	// text "\nDone."
}
