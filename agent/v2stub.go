package agent

// TEMPORARY stubs until v2convert.go lands.

import (
	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/acp/acpv2"
)

type v2Updates struct{ cwd string }

func newV2Updates(cwd string) *v2Updates                               { return &v2Updates{cwd: cwd} }
func (c *v2Updates) convert(u acp.SessionUpdate) []acpv2.SessionUpdate { return nil }
func v2ConfigOptions(o []acp.SessionConfigOption) []acpv2.SessionConfigOption {
	var out []acpv2.SessionConfigOption
	_ = recode(&out, o)
	return out
}
func v1MCPServers(s []acpv2.MCPServer) ([]acp.MCPServer, error) { return []acp.MCPServer{}, nil }
func v2PermissionRequest(req *acp.RequestPermissionRequest, cwd string) *acpv2.RequestPermissionRequest {
	return nil
}
func v1PermissionOutcome(r *acpv2.RequestPermissionResponse) acp.RequestPermissionResponse {
	return acp.RequestPermissionResponse{}
}
func v2SessionInfo(s acp.SessionInfo) acpv2.SessionInfo {
	var o acpv2.SessionInfo
	_ = recode(&o, s)
	return o
}
