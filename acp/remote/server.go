package remote

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Path is the endpoint the RFD names; Server answers ACP only there.
const Path = "/acp"

// HealthPath answers GET with 200 "ok" and nothing else, without a token:
// for load balancers and scripts that wait for the server to be up.
const HealthPath = "/healthz"

// The transport's headers.
const (
	HeaderConnectionID = "Acp-Connection-Id"
	HeaderSessionID    = "Acp-Session-Id"
)

// Defaults of the limits, the TypeScript SDK's where it has one.
const (
	DefaultMaxBufferedBytes          = 64 << 20
	DefaultMaxOutputStall            = 60 * time.Second
	DefaultMaxBufferedSessionStreams = 1024
	DefaultMaxIDLength               = 1024
	DefaultMaxMessageBytes           = 64 << 20 // acp.DefaultMaxFrameSize
	DefaultMaxConnections            = 256
	DefaultIdleTimeout               = 5 * time.Minute
	DefaultBodyTimeout               = 30 * time.Second
	DefaultPingInterval              = 30 * time.Second
	keepAliveInterval                = 15 * time.Second
)

// A ServeFunc runs one ACP connection: it reads the client's messages from
// r, one JSON text per line, and writes its own to w, whole lines per
// Write, until r ends (the client went away: a normal end) or ctx does
// (the server is stopping: end everything now). The agent's
// (*agent.Agent).Serve is one.
type ServeFunc func(ctx context.Context, r io.Reader, w io.Writer) error

// Options configure a Server.
type Options struct {
	// Serve runs each connection. Required.
	Serve ServeFunc
	// Token is the bearer token every request but the health check must
	// carry (Authorization: Bearer …). Required: a server without one
	// would let anything that reaches the port drive the agent.
	Token string
	// AllowedOrigins are the browser origins (scheme://host[:port]) whose
	// requests are served; a request with any other Origin header is
	// refused (cross-site requests, DNS rebinding). Requests without an
	// Origin (editors, SDK clients, curl) are not browsers' and pass.
	AllowedOrigins []string
	// AllowedHosts, if set, are the host names the Host header may carry
	// (any port): a server on loopback allows only loopback names, so a
	// page whose name was rebound to 127.0.0.1 is refused.
	AllowedHosts []string
	// Logger receives one line per connection opened and closed and per
	// refused request; never a token or a message's content. Nil
	// discards.
	Logger *slog.Logger

	// MaxBufferedBytes bounds the agent output a connection holds for a
	// client that has not read it; past it the agent's writes wait, and so
	// do the client's requests (the SDK's maxBufferedBytes).
	MaxBufferedBytes int
	// MaxOutputStall is how long a connection at MaxBufferedBytes (or a
	// WebSocket write) waits for the client to read anything before the
	// connection is closed (the SDK's maxOutputStallMs).
	MaxOutputStall time.Duration
	// MaxBufferedSessionStreams bounds the session streams of one
	// Streamable HTTP connection that hold messages no client receives.
	MaxBufferedSessionStreams int
	// MaxIDLength bounds the session and request ids a connection tracks.
	MaxIDLength int
	// MaxMessageBytes bounds one client message (a POST body, a WebSocket
	// message): larger ones get 413, or close the socket (1009).
	MaxMessageBytes int
	// MaxConnections bounds the connections open at once; past it a new
	// one gets 503.
	MaxConnections int
	// IdleTimeout closes a Streamable HTTP connection that has had no open
	// stream and no request for that long: a client that initialized and
	// went away without DELETE.
	IdleTimeout time.Duration
	// BodyTimeout bounds the time a client takes to send a POST body.
	BodyTimeout time.Duration
	// PingInterval is how often a WebSocket is pinged; a peer that does not
	// answer within it is gone, and its connection closes.
	PingInterval time.Duration
}

func (o *Options) defaults() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	defDur := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MaxBufferedBytes, DefaultMaxBufferedBytes)
	def(&o.MaxBufferedSessionStreams, DefaultMaxBufferedSessionStreams)
	def(&o.MaxIDLength, DefaultMaxIDLength)
	def(&o.MaxMessageBytes, DefaultMaxMessageBytes)
	def(&o.MaxConnections, DefaultMaxConnections)
	defDur(&o.MaxOutputStall, DefaultMaxOutputStall)
	defDur(&o.IdleTimeout, DefaultIdleTimeout)
	defDur(&o.BodyTimeout, DefaultBodyTimeout)
	defDur(&o.PingInterval, DefaultPingInterval)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// A Server serves ACP over the RFD's Streamable HTTP and WebSocket
// transport at [Path]. It is an http.Handler; each connection a client
// opens (an initialize POST, or a WebSocket upgrade) runs
// [Options.Serve] once.
type Server struct {
	opts    Options
	log     *slog.Logger
	token   [sha256.Size]byte
	origins map[string]bool
	hosts   map[string]bool

	ctx    context.Context // ends every connection's Serve (Close)
	cancel context.CancelFunc

	mu     sync.Mutex
	conns  map[string]*conn // Streamable HTTP connections by id
	open   int              // connections of both kinds, for MaxConnections
	closed bool
	wg     sync.WaitGroup // one per connection's Serve
}

// New returns a Server. It fails without Serve or Token.
func New(opts Options) (*Server, error) {
	if opts.Serve == nil {
		return nil, errors.New("remote: Options.Serve is required")
	}
	if opts.Token == "" {
		return nil, errors.New("remote: a bearer token is required")
	}
	opts.defaults()
	s := &Server{
		opts:    opts,
		log:     opts.Logger,
		token:   sha256.Sum256([]byte(opts.Token)),
		origins: map[string]bool{},
		conns:   map[string]*conn{},
	}
	for _, o := range opts.AllowedOrigins {
		s.origins[strings.ToLower(strings.TrimRight(o, "/"))] = true
	}
	if len(opts.AllowedHosts) > 0 {
		s.hosts = map[string]bool{}
		for _, h := range opts.AllowedHosts {
			s.hosts[strings.ToLower(strings.Trim(h, "[]"))] = true
		}
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s, nil
}

// ServeHTTP checks the request (host, origin, token) and routes it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == HealthPath && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "ok\n")
		return
	}
	if !s.hostAllowed(r.Host) {
		s.refuse(w, r, http.StatusForbidden, "Host not allowed")
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		if !s.origins[strings.ToLower(origin)] {
			s.refuse(w, r, http.StatusForbidden, "Origin not allowed")
			return
		}
		if s.cors(w, r, origin) {
			return // a preflight, answered
		}
	}
	if !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="acp"`)
		s.refuse(w, r, http.StatusUnauthorized, "Unauthorized")
		return
	}
	if r.URL.Path != Path {
		http.NotFound(w, r)
		return
	}
	switch r.Method {
	case http.MethodPost:
		s.handlePost(w, r)
	case http.MethodGet:
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			s.handleWebSocket(w, r)
			return
		}
		s.handleGet(w, r)
	case http.MethodDelete:
		s.handleDelete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		textError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
	}
}

// cors lets a page of an allowed origin use the server from a browser:
// its requests may carry the token and the transport's headers, and read
// Acp-Connection-Id. A preflight (OPTIONS, which carries no credentials)
// is answered here, and says nothing but that; it reports true for one.
func (s *Server) cors(w http.ResponseWriter, r *http.Request, origin string) bool {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Expose-Headers", HeaderConnectionID)
	if r.Method != http.MethodOptions {
		return false
	}
	h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, "+HeaderConnectionID+", "+HeaderSessionID)
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true
}

// authorized compares the request's bearer token with the server's in
// constant time (of their hashes, so the length does not show either).
func (s *Server) authorized(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	const prefix = "bearer "
	if len(h) <= len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(h[len(prefix):])))
	return subtle.ConstantTimeCompare(got[:], s.token[:]) == 1
}

func (s *Server) hostAllowed(host string) bool {
	if s.hosts == nil {
		return true
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return s.hosts[strings.ToLower(strings.Trim(host, "[]"))]
}

// refuse answers a request that failed a check, and logs it without
// anything the client sent but its address and method.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	s.log.Warn("remote: request refused", "status", status, "reason", msg, "remote", r.RemoteAddr, "method", r.Method)
	textError(w, status, msg)
}

// Close stops serving: every connection's Serve is told to stop (its
// context ends) and Close waits for all of them to return.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	conns := make([]*conn, 0, len(s.conns))
	for _, c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	s.cancel()
	for _, c := range conns {
		c.close(errServerClosed)
	}
	s.wg.Wait()
	return nil
}

var (
	errServerClosed = errors.New("server closed")
	errTooMany      = errors.New("too many connections")
)

// admit counts a new connection against MaxConnections.
func (s *Server) admit() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errServerClosed
	}
	if s.open >= s.opts.MaxConnections {
		return errTooMany
	}
	s.open++
	s.wg.Add(1)
	return nil
}

// release is admit's undo, once a connection's Serve has returned.
func (s *Server) release(c *conn) {
	s.mu.Lock()
	s.open--
	if c != nil && s.conns[c.id] == c {
		delete(s.conns, c.id)
	}
	s.mu.Unlock()
	s.wg.Done()
}

// lookup returns the Streamable HTTP connection with id, nil when none.
func (s *Server) lookup(id string) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.conns[id]
	if c == nil || c.isClosed() {
		return nil
	}
	return c
}

// Connections reports the connections open now, of both kinds.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open
}

func newConnectionID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func textError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(status)
	io.WriteString(w, msg)
}

// NewHTTPServer returns an http.Server for h with the timeouts a server
// facing the network needs: slow request headers are cut off, idle
// keep-alive connections closed, headers bounded. There is no write
// timeout: event streams and WebSockets are long-lived, and the transport
// bounds each write itself. It speaks HTTP/1.1 and HTTP/2 (over TLS, and
// in clear with prior knowledge, as the RFD asks of Streamable HTTP).
func NewHTTPServer(h http.Handler) *http.Server {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          nil,
	}
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetHTTP2(true)
	p.SetUnencryptedHTTP2(true)
	srv.Protocols = &p
	return srv
}
