package dist

// A Platform is one release target and its names in each of the systems
// that name it: Go, the ACP Registry and npm.
type Platform struct {
	GOOS, GOARCH string
	Registry     string // distribution.binary key of agent.json
	NpmOS        string // package.json "os" (process.platform)
	NpmCPU       string // package.json "cpu" (process.arch)
}

// Platforms are the six release targets, in the order they are built.
var Platforms = []Platform{
	{"linux", "amd64", "linux-x86_64", "linux", "x64"},
	{"linux", "arm64", "linux-aarch64", "linux", "arm64"},
	{"darwin", "amd64", "darwin-x86_64", "darwin", "x64"},
	{"darwin", "arm64", "darwin-aarch64", "darwin", "arm64"},
	{"windows", "amd64", "windows-x86_64", "win32", "x64"},
	{"windows", "arm64", "windows-aarch64", "win32", "arm64"},
}

// Exe is the binary's file name on p.
func (p Platform) Exe() string {
	if p.GOOS == "windows" {
		return BinaryName + ".exe"
	}
	return BinaryName
}

// Archive is the release archive's file name for version.
func (p Platform) Archive(version string) string {
	ext := ".tar.gz"
	if p.GOOS == "windows" {
		ext = ".zip"
	}
	return BinaryName + "-" + version + "-" + p.GOOS + "-" + p.GOARCH + ext
}

// NpmPackage is the name of p's npm package, which holds only its binary.
func (p Platform) NpmPackage() string { return NpmName + "-" + p.NpmOS + "-" + p.NpmCPU }
