package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// Machine describes where a report was measured, without any path, host
// name or user name.
type Machine struct {
	CPU       string
	Cores     int
	MemoryGiB float64
	Kernel    string
	Go        string
	Node      string
	CLI       string
	Reference string
}

func describeMachine(cfg Config) Machine {
	m := Machine{Cores: runtime.NumCPU(), Go: runtime.Version(), CPU: "unknown", Kernel: runtime.GOOS}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		m.MemoryGiB = float64(statusKB(data, "MemTotal:")) / (1 << 30)
	}
	if data, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(data))
	}
	m.CLI = firstLine(cfg.CLI, "--version")
	if len(cfg.Reference) > 0 {
		m.Node = firstLine("node", "--version")
		m.Reference = packageVersion(cfg.Reference[len(cfg.Reference)-1])
	}
	return m
}

// firstLine runs a version command and keeps the first line of its output.
func firstLine(name string, args ...string) string {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return "unknown"
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

// packageVersion finds the package.json above an npm bin script (through
// its symlink) and returns "name version".
func packageVersion(script string) string {
	path, err := filepath.EvalSymlinks(script)
	if err != nil {
		return "unknown"
	}
	for dir := filepath.Dir(path); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		data, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err != nil {
			continue
		}
		var pkg struct{ Name, Version string }
		if json.Unmarshal(data, &pkg) == nil && pkg.Version != "" {
			return pkg.Name + " " + pkg.Version
		}
	}
	return "unknown"
}

// String is the machine line of the report.
func (m Machine) String() string {
	var b bytes.Buffer
	b.WriteString(m.CPU)
	b.WriteString(", " + strconv.Itoa(m.Cores) + " cores, ")
	b.WriteString(strconv.FormatFloat(m.MemoryGiB, 'f', 0, 64) + " GiB RAM, " + m.Kernel)
	return b.String()
}
