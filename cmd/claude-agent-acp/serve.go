package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp/remote"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
)

// defaultListen is where `serve` listens unless told otherwise: loopback
// only, so that nothing off this machine reaches it (an SSH port forward
// does; docs/remote.md).
const defaultListen = "127.0.0.1:8719"

const serveUsage = `Usage: claude-agent-acp serve [flags]

Serves ACP to any number of clients over Streamable HTTP and WebSocket at
/acp (the ACP transport RFD), with the bearer token every request must carry.

Flags:
  --listen HOST:PORT   address to listen on (default ` + defaultListen + `, loopback only)
  --allow-origin URL   a browser origin allowed to connect, e.g. https://app.example
                       (repeatable; requests with any other Origin are refused)
  --tls-cert FILE      serve HTTPS/WSS with this certificate (with --tls-key)
  --tls-key FILE       the certificate's private key
  --token-file FILE    where to write the generated token (default: in the user's
                       config directory, readable only by the user)

Environment:
  CLAUDE_AGENT_ACP_TOKEN   the bearer token to require (otherwise one is generated
                           at each start and written to the token file)
`

// serve runs `claude-agent-acp serve`: the agent on the network, secure by
// default (docs/remote.md). It returns the exit code.
func serve(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, serveUsage) }
	listen := fs.String("listen", defaultListen, "")
	certFile := fs.String("tls-cert", "", "")
	keyFile := fs.String("tls-key", "", "")
	tokenFile := fs.String("token-file", "", "")
	var origins stringList
	fs.Var(&origins, "allow-origin", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "claude-agent-acp serve: unexpected argument %q\n\n%s", fs.Arg(0), serveUsage)
		return 2
	}
	if (*certFile == "") != (*keyFile == "") {
		fmt.Fprintln(stderr, "claude-agent-acp serve: --tls-cert and --tls-key go together")
		return 2
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "claude-agent-acp serve: "+format+"\n", a...)
		return 1
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: logLevel()}))
	token, where, err := serveToken(*tokenFile)
	if err != nil {
		return fail("%v", err)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fail("cannot listen on %s: %v", *listen, err)
	}
	host, _, _ := net.SplitHostPort(*listen)
	loopback := isLoopback(host)
	var hosts []string
	if loopback {
		// Only loopback names reach a loopback server honestly: a page whose
		// name was rebound to 127.0.0.1 carries its own (DNS rebinding).
		hosts = []string{"localhost", "127.0.0.1", "::1"}
	}
	log.Debug("serving ACP over the network", "batch", batchScheduling(log)) // main.go: as on stdio
	maxLive, idle := hibernation(log)
	// One agent for every connection, sharing the live sessions: a session
	// outlives a connection that drops, and the client's next connection
	// takes it over with session/load or session/resume.
	a := agent.New(agent.Config{Logger: log, Version: agentVersion(), MaxLiveSessions: maxLive, IdleTimeout: idle, SharedSessions: true, EditorFS: editorFS()})
	srv, err := remote.New(remote.Options{
		Serve:          a.Serve,
		Token:          token,
		AllowedOrigins: origins,
		AllowedHosts:   hosts,
		Logger:         log,
	})
	if err != nil {
		return fail("%v", err)
	}
	hs := remote.NewHTTPServer(srv)
	scheme := "http"
	if *certFile != "" {
		scheme = "https"
	}
	addr := ln.Addr().String()
	fmt.Fprintf(stderr, "claude-agent-acp: serving ACP on %s://%s%s (WebSocket on the same URL)\n", scheme, addr, remote.Path)
	if !loopback && *certFile == "" {
		fmt.Fprintf(stderr, "claude-agent-acp: WARNING: %s is reachable from other machines and is served without TLS: "+
			"the token and everything the agent shows travel in clear. Use --tls-cert/--tls-key, or listen on 127.0.0.1 and forward the port over SSH.\n", addr)
	}
	fmt.Fprintf(stderr, "claude-agent-acp: bearer token %s\n", where)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	served := make(chan error, 1)
	go func() {
		if *certFile != "" {
			served <- hs.ServeTLS(ln, *certFile, *keyFile)
		} else {
			served <- hs.Serve(ln)
		}
	}()
	code := 0
	select {
	case err := <-served:
		code = fail("%v", err)
	case <-ctx.Done():
	}
	// Stopped: every connection's agent terminates its CLIs at once, as the
	// stdio agent does; should anything still hold us, exit anyway (each
	// CLI's reaper kills its process group the moment we are gone).
	go func() {
		time.Sleep(exitDeadline)
		log.Warn("shutdown took too long; exiting")
		os.Exit(code)
	}()
	hs.Close()
	srv.Close()
	a.Close()
	return code
}

// serveToken returns the token to require and a line saying where it is:
// CLAUDE_AGENT_ACP_TOKEN's, or a new one written to a file only the user
// can read. The token itself is never printed.
func serveToken(file string) (token, where string, err error) {
	if t := os.Getenv("CLAUDE_AGENT_ACP_TOKEN"); t != "" {
		if len(t) < 16 {
			return "", "", errors.New("CLAUDE_AGENT_ACP_TOKEN is too short to guard anything (16 characters at least)")
		}
		return t, "from CLAUDE_AGENT_ACP_TOKEN", nil
	}
	if file == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return "", "", fmt.Errorf("no place for the token file (set --token-file or CLAUDE_AGENT_ACP_TOKEN): %v", err)
		}
		file = filepath.Join(dir, "claude-agent-acp", "serve-token")
	}
	var b [32]byte
	rand.Read(b[:])
	token = base64.RawURLEncoding.EncodeToString(b[:])
	if err := writePrivate(file, token+"\n"); err != nil {
		return "", "", fmt.Errorf("writing the token file: %v", err)
	}
	return token, "in " + file + " (readable only by you; new at each start)", nil
}

// writePrivate writes a file only its owner can read, atomically, in a
// directory only its owner can enter when it has to make one.
func writePrivate(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".serve-token-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// stringList is a repeatable flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

var _ http.Handler = (*remote.Server)(nil)
