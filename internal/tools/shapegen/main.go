// Command shapegen writes shapes_gen.go for the jsonfast fast paths of one
// package: for each line
//
//	//jsonfast:shape streamEvent type subtype session_id ...
//
// in the package's Go files (a member written json_name=GoName names its
// constant itself, where two names would give the same one), a constant per member (streamEventType,
// streamEventSubtype, streamEventSessionID, ...: its index), the
// jsonfast.Shape streamEventShape, and a walker, streamEventFields, whose
// Next looks the member names up in a switch. The hand-written decoder then
// reads
//
//	var f streamEventFields
//	for f.Next(d) {
//		switch f.I {
//		case streamEventType:
//		...
//
// and keeps only what is particular to each member; the name list, the
// index bookkeeping and the checks encoding/json's equivalence needs
// (escaped, case-folded and duplicate names) are generated or shared. Run
// it through go generate in the package's directory:
//
//	//go:generate go run <path to>/internal/tools/shapegen
package main

import (
	"fmt"
	"os"
)

func main() {
	src, err := generate(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "shapegen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(outputName, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "shapegen:", err)
		os.Exit(1)
	}
}
