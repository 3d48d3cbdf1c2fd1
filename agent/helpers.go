package agent

import "encoding/json"

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// mustJSON encodes what always encodes (maps and structs of plain values).
func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
