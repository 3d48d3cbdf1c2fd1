package agent

import (
	"context"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/acp/acpv2"
)

// logout is v1's logout (declared as agentCapabilities.auth.logout, as the
// reference adapter does): what v2's auth/logout does (v2.go), the CLI's
// own `claude auth logout` in the sessions' environment, its failure a
// -32603 with the CLI's first line, scrubbed. Running CLIs notice the
// logout by themselves.
func (a *connection) logout(ctx context.Context, _ *acp.LogoutRequest) (*acp.LogoutResponse, error) {
	if _, err := a.authLogoutV2(ctx, &acpv2.LogoutAuthRequest{}); err != nil {
		return nil, err
	}
	return &acp.LogoutResponse{}, nil
}
