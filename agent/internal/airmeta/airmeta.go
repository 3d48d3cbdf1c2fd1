// Package airmeta reads and writes the JetBrains AIR envelope of ACP
// `_meta` objects: `_meta.jetbrains.air`, where AIR clients declare the
// extensions they take ({"version": 1, "capabilities": [...]}) and read
// the payloads of those extensions (sessionFailure, goal, ...). One codec,
// so that "is this an AIR client" and "did it ask for X" follow one rule.
package airmeta

import (
	"encoding/json"
	"math"
	"strconv"
)

// Envelope is what a client declared under _meta.jetbrains.air.
type Envelope struct {
	// Present: _meta.jetbrains.air is an object. Such a client reads
	// extension payloads there.
	Present bool
	// Version is the declared version when it is a finite integer ≥ 1
	// (math.MaxInt for one beyond an int, such as 1e300), else 0 (a
	// string, a fraction, zero, a negative number, absent).
	Version int
	// Capabilities are the string entries of capabilities.
	Capabilities []string
}

// Parse reads the envelope of a client's _meta. Anything malformed reads
// as declaring nothing, so a broken declaration keeps legacy behaviour.
func Parse(meta map[string]json.RawMessage) Envelope {
	var jb struct {
		Air json.RawMessage `json:"air"`
	}
	if meta == nil || json.Unmarshal(meta["jetbrains"], &jb) != nil || !isObject(jb.Air) {
		return Envelope{}
	}
	env := Envelope{Present: true}
	var air struct {
		Version      json.RawMessage   `json:"version"`
		Capabilities []json.RawMessage `json:"capabilities"`
	}
	if json.Unmarshal(jb.Air, &air) != nil {
		return env
	}
	if v := air.Version; len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
		// Every float64 from 2^53 on is an integer, and the contract asks
		// for "a finite integer greater than or equal to 1": 1e16 counts.
		f, err := strconv.ParseFloat(string(v), 64)
		switch {
		case err != nil || math.IsInf(f, 0) || math.IsNaN(f) || f != math.Trunc(f) || f < 1:
		case f >= math.MaxInt64:
			env.Version = math.MaxInt
		default:
			env.Version = int(f)
		}
	}
	for _, c := range air.Capabilities {
		var s string
		if json.Unmarshal(c, &s) == nil {
			env.Capabilities = append(env.Capabilities, s)
		}
	}
	return env
}

// Has reports whether the client opted in to the extension name: a valid
// version and the exact name among the capabilities.
func (e Envelope) Has(name string) bool {
	if e.Version < 1 {
		return false
	}
	for _, c := range e.Capabilities {
		if c == name {
			return true
		}
	}
	return false
}

// Set returns a copy of meta with v under jetbrains.air.key (and
// jetbrains.air.version 1), keeping every other member, AIR or not.
func Set(meta map[string]json.RawMessage, key string, v json.RawMessage) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(meta)+1)
	for k, x := range meta {
		out[k] = x
	}
	jb := map[string]json.RawMessage{}
	_ = json.Unmarshal(out["jetbrains"], &jb)
	air := map[string]json.RawMessage{}
	_ = json.Unmarshal(jb["air"], &air)
	air["version"] = json.RawMessage("1")
	air[key] = v
	jb["air"] = marshal(air)
	out["jetbrains"] = marshal(jb)
	return out
}

func isObject(raw json.RawMessage) bool {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return true
		}
		return false
	}
	return false
}

func marshal(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
