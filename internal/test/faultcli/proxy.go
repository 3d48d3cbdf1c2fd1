package faultcli

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

// Proxy mode puts faults between the agent and the real CLI: the fake
// runs the executable named by [EnvProxy] with its own arguments and
// environment, passes stdin and stderr through, and copies the CLI's
// stdout line by line, except the frames [EnvDrop] names, which it drops.
// A test uses it to lose a frame the real CLI writes (a turn's result)
// and check what the agent does without it.
const (
	// EnvProxy is the real CLI to run (an absolute path).
	EnvProxy = "FAULTCLI_PROXY"
	// EnvDrop lists the frames to drop, comma-separated, as TYPE or
	// TYPE/SUBTYPE with an optional :N, the number of such frames to drop
	// (default 1): "result" drops the first result, "result:2" the first
	// two, "system/session_state_changed:3" three state changes.
	EnvDrop = "FAULTCLI_DROP"
	// EnvDuplicate lists frames to write twice, in the same form.
	EnvDuplicate = "FAULTCLI_DUPLICATE"
)

// frameRule matches frames by type (and subtype) a number of times.
type frameRule struct {
	typ, subtype string
	left         int
}

func parseRules(spec string) []*frameRule {
	var rules []*frameRule
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		r := &frameRule{left: 1}
		if name, n, ok := strings.Cut(item, ":"); ok {
			item = name
			if v, err := strconv.Atoi(n); err == nil {
				r.left = v
			}
		}
		r.typ, r.subtype, _ = strings.Cut(item, "/")
		rules = append(rules, r)
	}
	return rules
}

// take reports whether a frame of typ/subtype matches a rule with uses
// left, and uses it.
func take(rules []*frameRule, typ, subtype string) bool {
	for _, r := range rules {
		if r.left > 0 && r.typ == typ && (r.subtype == "" || r.subtype == subtype) {
			r.left--
			return true
		}
	}
	return false
}

// proxy runs the real CLI and filters its stdout; it returns the CLI's
// exit status (128+signal when a signal ended it).
func proxy(exe string) int {
	trace("start", "proxy "+strings.Join(os.Args[1:], " "))
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 1
	}
	// Signals for the fake are for the CLI (the agent signals the group,
	// which includes it anyway).
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	if err := cmd.Start(); err != nil {
		trace("exit", "1 "+err.Error())
		return 1
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	drop, dup := parseRules(os.Getenv(EnvDrop)), parseRules(os.Getenv(EnvDuplicate))
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	br := bufio.NewReaderSize(out, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var env struct {
				Type    string `json:"type"`
				Subtype string `json:"subtype"`
			}
			_ = json.Unmarshal(line, &env)
			switch {
			case take(drop, env.Type, env.Subtype):
				trace("dropped", env.Type+" "+env.Subtype)
			case take(dup, env.Type, env.Subtype):
				trace("duplicated", env.Type+" "+env.Subtype)
				w.Write(line)
				w.Write(line)
			default:
				w.Write(line)
			}
			if br.Buffered() == 0 {
				_ = w.Flush()
			}
		}
		if err != nil {
			break
		}
	}
	_ = w.Flush()
	err = cmd.Wait()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	}
	trace("exit", strconv.Itoa(code))
	return code
}
