//go:build unix && !linux

package claude

import "errors"

// waitExited is only implemented on Linux. Elsewhere the process group is
// killed after the leader has been reaped, which leaves a small window in
// which the group id could in theory be reused.
func waitExited(pid int) error {
	return errors.ErrUnsupported
}
