package acp

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
)

// ID is a JSON-RPC request id: a string, an integer or null. It keeps the
// peer's exact bytes, so a large integer is echoed back digit for digit.
// The zero ID means "no id" (a notification).
type ID struct {
	raw string // compact JSON text of the id; "" when absent
}

// IntID returns an integer id.
func IntID(n int64) ID { return ID{raw: strconv.FormatInt(n, 10)} }

// StringID returns a string id.
func StringID(s string) ID {
	b, _ := json.Marshal(s)
	return ID{raw: string(b)}
}

// nullID is the id of replies to messages whose id could not be read.
var nullID = ID{raw: "null"}

// IsZero reports whether the id is absent.
func (id ID) IsZero() bool { return id.raw == "" }

// String returns the id as JSON text ("7", "\"abc\"", "null").
func (id ID) String() string { return id.raw }

// MarshalJSON writes the id's original bytes; an absent id is null.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.raw == "" {
		return []byte("null"), nil
	}
	return []byte(id.raw), nil
}

// UnmarshalJSON accepts a string, an integer or null.
func (id *ID) UnmarshalJSON(b []byte) error {
	parsed, ok := parseID(b)
	if !ok {
		return &json.UnsupportedValueError{Str: "request id must be a string, an integer or null"}
	}
	*id = parsed
	return nil
}

// parseID validates raw id bytes as the JSON-RPC envelope requires: a
// string, an integer (no fraction or exponent) or null.
func parseID(b []byte) (ID, bool) {
	s := strings.TrimSpace(string(b))
	switch {
	case s == "null":
		return nullID, true
	case strings.HasPrefix(s, `"`):
		var str string
		if json.Unmarshal([]byte(s), &str) != nil {
			return ID{}, false
		}
		return ID{raw: s}, true
	case isJSONInteger(s):
		return ID{raw: s}, true
	}
	return ID{}, false
}

func isJSONInteger(s string) bool {
	if strings.HasPrefix(s, "-") {
		s = s[1:]
	}
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// key is the canonical form used to match ids: strings by their decoded
// value, numbers by their integer value (so a cancel naming 151.0 finds
// request 151).
func (id ID) key() string {
	return idKey([]byte(id.raw))
}

func idKey(raw []byte) string {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return "null"
	}
	if s[0] == '"' {
		var str string
		if json.Unmarshal([]byte(s), &str) == nil {
			return "s" + str
		}
		return "?" + s
	}
	if isJSONInteger(s) {
		if s == "-0" {
			s = "0"
		}
		return "n" + s
	}
	if f, ok := new(big.Float).SetPrec(256).SetString(s); ok && f.IsInt() {
		i, _ := f.Int(nil)
		return "n" + i.String()
	}
	return "?" + s
}
