package bench

// round13Account is the thirteenth round of profileAccount (see there).
const round13Account = "\n" +
	"### Thirteenth round: tool results that look like source code\n" +
	"\n" +
	"The realistic transcript's 13 KB Bash and Read results are plain words: not one byte of them is escaped in the JSON line. Real ones are source files and test logs, full of tabs, newlines and quotes: in this repository's own `agent/*.go`, 8.7% of the bytes come out escaped. Escapes are what a JSON string decoder and encoder are slow on, so the realistic replay flattered the agent. `transcriptgen` now writes, on request (`Code`), Go source (gofmt's tabs, quoted strings, a backslash path, now and then a non-ASCII character), `go test -v` logs and Read results numbered as the CLI numbers them, written as the CLI writes them (`<`, `>` and `&` unescaped): 9.4% of the tool outputs' bytes escaped (`TestCodeIsEscapeDense`). The harness replays that transcript too (section 6, \"the same with source code for text\"), and the agent's in-process benchmark has it as `Replay/realistic-code`. The issue's targets stay on the transcript they were set on; the new rows say what real files cost beside them.\n" +
	"\n" +
	"**Where the time went.** In process, the same 2,800 messages cost about 1.6 times as much CPU with source code as with words (GOMAXPROCS=1, alternating: 17.9–23.3 against 10.0–14.3 µs per message on this VM, which was noisy all session). The profile of `Replay/realistic-code`: the validating string scan 25% (strings decoded, and the structured results skipped: a Read's file content, an Edit's original file), `jsonfast.Unescape` 14%, the acp encoder's escaping 7%. Unescape searched for the next backslash (`bytes.IndexByte`), checked the run before it for UTF-8 and copied it: three calls for a run of ten bytes or so, more than the run itself.\n" +
	"\n" +
	"**Change.** `jsonfast.Unescape` is one pass: it stores eight bytes at a time into the output (which has room for the rest of the input, since no escape is longer decoded than written) and stops only at a backslash or a byte from 0x80; a two-byte escape is one table look-up. It decodes exactly what encoding/json decodes (`TestUnescapeAgreesWithEncodingJSON`, every escape and odd byte at every offset from a word boundary; `FuzzUnescape`, in `make fuzz-short`, which also hands it strings a lax walk did not validate).\n" +
	"\n" +
	"| Measure | before | after |\n" +
	"|---|--:|--:|\n" +
	"| `BenchmarkUnescape` (an 11 KB Read result of Go source, an escape every 8 bytes) | 20–30 µs | 11.7–12.5 µs, 0 allocations |\n" +
	"| its share of `Replay/realistic-code`'s CPU profile | 13.7% | 6.7% |\n" +
	"| in process, `Replay/realistic-code`, per message (GOMAXPROCS=1, 5 alternating pairs) | 15.8–19.1 µs | 14.1–16.0 µs |\n" +
	"| in process, `Replay/realistic` (words), per message | unchanged | unchanged |\n" +
	"\n" +
	"Tried and dropped: taking two-byte escapes inside the validating scan's eight-byte loop instead of leaving it (no change in `BenchmarkSkipCode`, 12 µs for the same 11 KB: an escape every eight bytes makes the loop's exit a coin toss for the branch predictor, whichever way the loop is written). What is left for escape-dense text is that scan (about 1 ns a byte against 0.3 for plain text) and the re-escaping on the way out; copying an escaped string through to the editor without decoding it would save both, but Bash and Read outputs go out rewritten, in fences with a language.\n"
