// Package fakeapi is a scripted, loopback-only fake of the Anthropic Messages API,
// used to run the real Claude Code CLI hermetically in tests and benchmarks.
//
// A test starts a [Server], points the CLI at it with ANTHROPIC_BASE_URL, and scripts the
// answers as a FIFO queue of [Step] values. Every request is recorded, so a test can assert
// on what the CLI sent (model, tools, the last user text, tool results, headers).
//
//	api := fakeapi.New(t)
//	api.Script(fakeapi.ToolUse("toolu_1", "Bash", map[string]any{"command": "echo hi"}),
//		fakeapi.Text("done"))
//	// ... run the CLI with ANTHROPIC_BASE_URL=api.URL() ...
//	reqs := api.MainRequests()
//
// # Endpoints
//
//   - POST /v1/messages (the CLI adds ?beta=true): pops the next step whose [Match] accepts
//     the request and answers it, as SSE when the request has "stream":true and as one JSON
//     message otherwise. With no matching step it answers the text "Hello from the fake API."
//     Every answer carries a request-id header.
//   - POST /v1/messages/count_tokens: {"input_tokens":N}, N being about a quarter of the body size.
//   - POST /__script (replace the queue with a JSON list of steps), POST /__append,
//     POST /__reset (empty the queue and the log), GET /__log (the recorded requests),
//     GET /__queue (the pending steps and how many uses each has left).
//   - Any other path or method: 200 {}. HEAD is answered with an empty 200.
//
// # Steps
//
// A step is a JSON object (or a [Step] value) with a "kind":
//
//   - "text": {"kind":"text","text":"…","stop_reason"?:"end_turn"}. The text streams as one
//     text_delta per word, like the real API. "chunks":N streams it as exactly N text_delta
//     events of nearly equal size instead (when the text has fewer than N characters it is
//     first repeated until it has enough, so the streamed text changes); "chunk_size":N
//     streams deltas of N characters. Both options also apply to the text blocks of
//     "blocks" and to the partial text of "refusal". They exist for throughput benchmarks
//     ("20,000 deltas").
//   - "blocks": {"kind":"blocks","blocks":[…]} where a block is {"type":"text","text"},
//     {"type":"thinking","thinking","signature"} or {"type":"tool_use","id","name","input"}.
//     A tool_use block's input JSON is streamed as several input_json_delta events.
//     stop_reason defaults to "tool_use" when a tool_use block is present, else "end_turn".
//   - "refusal": {"kind":"refusal","text"?:partial,"category"?:"cyber"|"bio","explanation"?}.
//     Streams the partial text, then a message_delta with stop_reason "refusal" and
//     stop_details {type:"refusal",category,explanation} (empty strings become null).
//   - "error": {"kind":"error","status":429,"type"?:"rate_limit_error","message"?,"headers"?}.
//     Answers the HTTP status with {"type":"error","error":{type,message},"request_id"}.
//     type defaults from the status and message to "fake <type>".
//   - "sse_error": a stream request gets HTTP 200, message_start, then an SSE error event
//     (type/message default to overloaded_error/"Overloaded"). A non-stream request (the CLI's
//     fallback after failed streams) gets HTTP "nonstream_status" (default 529); 200 answers
//     a normal message holding "text". Use "repeat" so that the retries meet the step too.
//   - "hang": message_start, a text block start and one delta ("text", default "…"), then
//     a ping every 0.5 s for "hang_s" seconds (0 means until the client goes away), then the
//     message is finished normally. It ends at once when the client disconnects or the
//     server closes. Meant for interrupt tests.
//
// Fields common to every kind: "repeat" (how many requests the step answers; 0 and 1 mean
// once, -1 forever), "delay_ms" (wait before answering), "chunk_delay_ms" (wait between SSE
// events; it also makes every event flush on its own, whereas by default runs of deltas
// share the response buffer and reach the client in batches), "usage" (merged into the reported usage, e.g. {"input_tokens":100000} to trip a
// budget), "model" (the model echoed back instead of the requested one), "headers" (extra
// response headers, e.g. retry-after or anthropic-ratelimit-unified-*), and "match".
//
// # Match
//
// A step with "match" is only used by requests that satisfy every given condition; other
// requests skip it (and get a later step or the default reply). Conditions: "has_tools"
// (true for the main loop and subagents, false for the set_model probe), "model_contains",
// "tools_include" and "tools_exclude" (a name or a list of names; the main loop has
// AskUserQuestion, subagents do not), "system_contains", "last_user_contains" (see
// [Request.LastUserText]) and "stream".
package fakeapi
