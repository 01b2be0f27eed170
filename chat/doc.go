// Package chat speaks the chat wire formats of OpenAI chat completions,
// Anthropic Messages and the OpenAI Responses API, on top of the toolsieve
// parser.
//
// A Rewriter turns a chat response (an SSE stream or a whole JSON document)
// into the same response with the tool calls that the model wrote as text
// markup turned into native tool calls of the same API, editing only the
// fields that change. A ContentReader (and Events) reads the model's content
// out of a streamed response, ReadDocument out of a whole response or request;
// CleanHistory rewrites leaked markup in the assistant
// messages of a request; ReadRequest reads what rewriting needs from a
// request (model, token cap, declared tools).
//
// Everything the package knows of one API is in that API's file; see
// api.go for the API switch. Package sievehttp puts these to HTTP use.
package chat
