package acp

// The typed v1 schema (types_gen.go) is generated from the pinned copy of
// the official ACP schema in internal/acptest/testdata, so that generation
// and schema validation in tests use the same bytes. The generator's tests
// fail when types_gen.go is stale.
//go:generate go run ../internal/acpgen -schema ../internal/acptest/testdata/schema.json -unstable ../internal/acptest/testdata/schema.unstable.json -o types_gen.go
