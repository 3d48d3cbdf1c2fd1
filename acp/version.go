package acp

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// LatestProtocolVersion is the newest ACP protocol version this package speaks.
const LatestProtocolVersion = 1

// NegotiateVersion picks the version to answer initialize with, per ACP:
// the requested version when supported; otherwise the highest supported
// version below it. Only when nothing is supported at or below the request
// is the answer -32022 with {requested, supported}.
func NegotiateVersion(requested int, supported []int) (int, error) {
	best := -1
	for _, v := range supported {
		if v == requested {
			return v, nil
		}
		if v < requested && v > best {
			best = v
		}
	}
	if best < 0 {
		return 0, NewUnsupportedProtocolVersion(requested, supported)
	}
	return best, nil
}

// NegotiateVersionV1 is version negotiation as ACP v1 defines it, for a
// request below ProtocolV2 (a v1 client): the requested version when it is
// supported, else the latest v1 version the agent supports (the highest
// below ProtocolV2), which the client reads and decides whether to go on
// with. v1 defines no error for a version the agent does not know: -32022
// is v2's answer (NegotiateVersion). ok is false when the request is not
// a v1 request or the agent supports no v1 version.
func NegotiateVersionV1(requested int, supported []int) (v int, ok bool) {
	if requested >= ProtocolV2 {
		return 0, false
	}
	best := -1
	for _, s := range supported {
		if s == requested {
			return s, true
		}
		if s < ProtocolV2 && s > best {
			best = s
		}
	}
	if best < 0 {
		return 0, false
	}
	return best, true
}

// The protocol versions with generated types: v1 in this package, v2 in
// package acpv2 (acp/acpv2). A connection speaks one of them, chosen by
// NegotiateVersion from the initialize request; docs/acp-v2.md gives the
// rules that differ between them.
const (
	ProtocolV1 = 1
	ProtocolV2 = 2
)

// PeekProtocolVersion reads protocolVersion from raw initialize params
// without decoding the rest, so that a connection can pick the version
// first and then decode the params as acp.InitializeRequest (v1: protocol
// 1) or acpv2.InitializeRequest (v2: protocol 2 or higher), which differ
// (clientCapabilities/clientInfo against capabilities/info). Params that
// are not an object, or a protocolVersion that is not an integer from 0 to
// 65535, are -32602 naming protocolVersion, as the official SDK's router
// answers.
func PeekProtocolVersion(params json.RawMessage) (int, error) {
	bad := NewInvalidParams("protocolVersion", "initialize.protocolVersion must be a valid ACP protocol version")
	var p struct {
		ProtocolVersion json.RawMessage `json:"protocolVersion"`
	}
	if s := bytes.TrimSpace(params); len(s) == 0 || s[0] != '{' || json.Unmarshal(s, &p) != nil {
		return 0, bad
	}
	v, err := strconv.ParseInt(string(bytes.TrimSpace(p.ProtocolVersion)), 10, 64)
	if err != nil || v < 0 || v > 0xFFFF {
		return 0, bad
	}
	return int(v), nil
}

// IsV2RequestID reports whether a request id is one ACP v2 allows: a
// string or an integer. v2 forbids null and fractional ids (v1 allows
// null); a v2 connection answers such a request with -32600 and "id": null.
func IsV2RequestID(id json.RawMessage) bool {
	s := bytes.TrimSpace(id)
	if len(s) == 0 {
		return false
	}
	if s[0] == '"' {
		var str string
		return json.Unmarshal(s, &str) == nil
	}
	_, err := strconv.ParseInt(string(s), 10, 64)
	return err == nil
}
