package acp

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
