package claude

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"

	"github.com/claude-agent-acp/claude-agent-acp/internal/batchsched"
)

// setParentDeathSignal makes the kernel SIGKILL the CLI when the thread
// that started it ends. Go threads end only when a locked goroutine exits,
// so the start happens on a thread that is locked and never ends
// (startOnLockedThread).
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

// spawnRequests feeds the one goroutine locked to its own thread that
// starts every directly run CLI; its thread lives as long as the process.
var (
	spawnRequests = make(chan func())
	spawnerOnce   sync.Once
)

func startSpawner() {
	go func() {
		runtime.LockOSThread() // never unlocked: this thread never ends
		for fn := range spawnRequests {
			fn()
		}
	}()
}

// startOnLockedThread runs cmd.Start on the spawner's thread when the CLI
// carries a parent-death signal, so that the signal means the agent died.
// Either way the child gets the default scheduling policy, not the
// agent's (internal/batchsched).
func startOnLockedThread(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil || cmd.SysProcAttr.Pdeathsig == 0 {
		return batchsched.Start(cmd.Start)
	}
	spawnerOnce.Do(startSpawner)
	done := make(chan error, 1)
	spawnRequests <- func() { done <- batchsched.Start(cmd.Start) }
	return <-done
}
