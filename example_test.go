package toolsieve_test

import (
	"fmt"
	"strings"

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

// Events reads the model's content from any io.Reader, here a Qwen3-Coder
// call in a string, and yields the events as they are known.
func ExampleEvents() {
	content := strings.NewReader("Listing.\n<tool_call>\n<function=ls>\n<parameter=dir>\nsrc\n</parameter>\n</function>\n</tool_call>")
	for e, err := range toolsieve.Events(content, toolsieve.Options{}) {
		if err != nil {
			fmt.Println("read error:", err)
			break
		}
		switch e.Type {
		case toolsieve.Text:
			fmt.Printf("text %q\n", e.Text)
		case toolsieve.ToolCall:
			fmt.Printf("call %s %s (%s)\n", e.Name, e.Arguments, e.Dialect)
		}
	}
	// Output:
	// text "Listing.\n"
	// call ls {"dir":"src"} (qwen3_coder)
}
