package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startServeCmd runs `claude-agent-acp serve args…` and returns the
// stderr lines up to the one saying where it listens, and that URL.
func startServeCmd(t *testing.T, env []string, args ...string) (url string, lines []string, cmd *exec.Cmd) {
	t.Helper()
	cmd = exec.Command(agentBin, append([]string{"serve"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	sc := bufio.NewScanner(stderr)
	re := regexp.MustCompile(`serving ACP on (\S+)`)
	deadline := time.AfterFunc(20*time.Second, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
		}
		if strings.Contains(sc.Text(), "bearer token") {
			break
		}
	}
	if url == "" {
		t.Fatalf("serve said: %q", lines)
	}
	go io.Copy(io.Discard, stderr)
	return url, lines, cmd
}

// TestServeGeneratesAPrivateToken: plain `serve` on loopback generates a
// token, writes it to a file only the user can read, prints the file's
// path and never the token, and refuses requests without it.
func TestServeGeneratesAPrivateToken(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "sub", "token")
	url, lines, _ := startServeCmd(t, []string{"CLAUDE_AGENT_ACP_TOKEN="}, "--listen", "127.0.0.1:0", "--token-file", file)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/acp") {
		t.Fatalf("listening on %s", url)
	}
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v, want 0600", info.Mode().Perm())
	}
	b, _ := os.ReadFile(file)
	token := strings.TrimSpace(string(b))
	if len(token) < 40 {
		t.Fatalf("token of %d characters", len(token))
	}
	all := strings.Join(lines, "\n")
	if strings.Contains(all, token) || !strings.Contains(all, file) {
		t.Fatalf("stderr must name the file and not show the token:\n%s", all)
	}
	for _, auth := range []string{"", "Bearer " + token} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`))
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := http.StatusOK
		if auth == "" {
			want = http.StatusUnauthorized
		}
		if resp.StatusCode != want {
			t.Fatalf("initialize (with the token: %v): %d, want %d", auth != "", resp.StatusCode, want)
		}
	}
}

// TestServeWarnsWithoutTLS: an address other machines reach, served
// without TLS, gets a warning; the environment's token is used and not
// shown; a short one is refused.
func TestServeWarnsWithoutTLS(t *testing.T) {
	t.Parallel()
	token := "env-token-0123456789abcdef"
	_, lines, _ := startServeCmd(t, []string{"CLAUDE_AGENT_ACP_TOKEN=" + token}, "--listen", "0.0.0.0:0")
	all := strings.Join(lines, "\n")
	if !strings.Contains(all, "WARNING") || !strings.Contains(all, "without TLS") || strings.Contains(all, token) {
		t.Fatalf("stderr:\n%s", all)
	}
	cmd := exec.Command(agentBin, "serve", "--listen", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "CLAUDE_AGENT_ACP_TOKEN=short")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "too short") {
		t.Fatalf("a short token: %v %s", err, out)
	}
}

// TestServeTLS: with --tls-cert and --tls-key, serve speaks HTTPS (and
// says so), and a client that trusts the certificate is served.
func TestServeTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	pool := writeSelfSigned(t, certFile, keyFile)
	token := "tls-token-0123456789abcdef"
	url, lines, _ := startServeCmd(t, []string{"CLAUDE_AGENT_ACP_TOKEN=" + token}, "--listen", "127.0.0.1:0", "--tls-cert", certFile, "--tls-key", keyFile)
	if !strings.HasPrefix(url, "https://127.0.0.1:") || strings.Contains(strings.Join(lines, "\n"), "WARNING") {
		t.Fatalf("serve said %q", lines)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Acp-Connection-Id") == "" {
		t.Fatalf("initialize over TLS: %d", resp.StatusCode)
	}
}

// writeSelfSigned writes a certificate for 127.0.0.1 and its key, and
// returns a pool that trusts it.
func writeSelfSigned(t *testing.T, certFile, keyFile string) *x509.CertPool {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return pool
}
