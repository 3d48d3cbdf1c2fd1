//go:build windows

package claude

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows there are no process groups to signal. Each CLI runs in its
// own job object instead, created with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE:
// every process the CLI starts (MCP servers, tool shells) is in the job
// too, terminating the job stops them all, and because only this process
// holds the job's handle, the whole tree also dies when the agent itself
// dies, however it dies.
//
// The CLI is created suspended and resumed only once it is in the job, so
// that not even its first child can start outside it.

// jobs maps the pid of each running CLI to its job. An entry lives from
// startProcess until the first SIGKILL (which waitLoop always sends once
// the CLI has exited), so a pid is never looked up after it could have
// been reused.
var jobs = struct {
	sync.Mutex
	m map[int]windows.Handle
}{m: map[int]windows.Handle{}}

// setProcessGroup prepares cmd for startProcess: an npm `.cmd` shim is
// replaced by what it runs (see resolveShim), and the process is created
// suspended, with its own console process group and no console window.
func setProcessGroup(cmd *exec.Cmd) {
	resolveShim(cmd)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED |
		windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW
}

// startProcess starts cmd (prepared by setProcessGroup), puts it into a new
// kill-on-close job and lets it run. Where no job can be had (an old
// Windows that does not nest jobs, inside a job that forbids it) the CLI
// runs without one, and stopping it stops only the CLI itself. If it cannot
// be resumed, the process, which has not run a single instruction, is
// killed and reaped.
func startProcess(cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	pid := cmd.Process.Pid
	if job, err := newJob(pid); err == nil {
		jobs.Lock()
		jobs.m[pid] = job
		jobs.Unlock()
	}
	if err := resumeProcess(pid); err != nil {
		signalGroup(pid, syscall.SIGKILL)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return err
	}
	return nil
}

// runProcess is startProcess followed by cmd.Wait.
func runProcess(cmd *exec.Cmd) error {
	if err := startProcess(cmd); err != nil {
		return err
	}
	return cmd.Wait()
}

// newJob creates a kill-on-close job object and puts the process pid in it.
func newJob(pid int) (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("claude: creating a job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("claude: configuring the job object: %w", err)
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("claude: opening the CLI process: %w", err)
	}
	err = windows.AssignProcessToJobObject(job, h)
	windows.CloseHandle(h)
	if err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("claude: adding the CLI to its job object: %w", err)
	}
	return job, nil
}

// resumeProcess resumes the threads of a process created suspended (just
// its main thread). The thread handle os.StartProcess had is closed by now,
// so the thread is found through a snapshot.
func resumeProcess(pid int) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("claude: listing threads: %w", err)
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != uint32(pid) {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("claude: opening the CLI's thread: %w", err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("claude: resuming the CLI: %w", err)
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("claude: the CLI process %d has no thread to resume", pid)
	}
	return nil
}

// signalGroup stops the job of pid: SIGTERM and SIGKILL both terminate
// every process in it (Windows has no catchable termination request for a
// console process without a shared console; closing stdin, which Close
// does first, is the graceful way). SIGKILL also closes and forgets the
// job. A pid without a job (one that was never attached) is terminated
// alone.
func signalGroup(pid int, sig syscall.Signal) {
	jobs.Lock()
	job, ok := jobs.m[pid]
	if ok && sig == syscall.SIGKILL {
		delete(jobs.m, pid)
	}
	jobs.Unlock()
	if !ok {
		if h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid)); err == nil {
			_ = windows.TerminateProcess(h, exitCodeFor(sig))
			windows.CloseHandle(h)
		}
		return
	}
	_ = windows.TerminateJobObject(job, exitCodeFor(sig))
	if sig == syscall.SIGKILL {
		windows.CloseHandle(job)
	}
}

// exitCodeFor is the exit status a terminated process gets: 128 plus the
// signal number, what a shell reports for a process killed by it.
func exitCodeFor(sig syscall.Signal) uint32 { return 128 + uint32(sig) }

// resolveShim makes cmd run a batch file's target instead of the batch
// file (see batch.go), or run it through cmd.exe with escaped arguments.
func resolveShim(cmd *exec.Cmd) {
	if filepath.Ext(cmd.Path) == "" {
		// exec.Cmd adds the extension only when it starts: find it now
		// (npm's node_modules\.bin\claude has claude.cmd beside it).
		if lp, err := exec.LookPath(cmd.Path); err == nil {
			cmd.Path = lp
		}
	}
	if !isBatch(cmd.Path) {
		return
	}
	comspec := os.Getenv("ComSpec")
	if comspec == "" {
		comspec = `C:\Windows\System32\cmd.exe`
	}
	argv, line := batchCommand(cmd.Path, cmd.Args[1:], comspec, func() (string, error) {
		return exec.LookPath("node")
	})
	if line != "" {
		cmd.Path = comspec
		cmd.Args = []string{comspec}
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		cmd.SysProcAttr.CmdLine = line
		return
	}
	cmd.Path, cmd.Args = argv[0], argv
}
