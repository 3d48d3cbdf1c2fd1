package fakeapi

import (
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Server is a running fake Messages API on 127.0.0.1. It is safe for concurrent use.
type Server struct {
	ln        net.Listener
	srv       *http.Server
	url       string
	done      chan struct{} // closed by Close, to end hanging and delayed answers
	serveDone chan struct{}

	mu       sync.Mutex
	closed   bool
	inflight sync.WaitGroup // handlers in progress; Add only under mu while !closed
	active   atomic.Int32   // the same count, readable by tests
	queue    []*queued
	log      []Request
	closeErr error
}

// queued is a step in the queue with the number of uses it has left (-1: forever).
type queued struct {
	Step Step `json:"step"`
	Left int  `json:"left"`
}

// Start listens on a free loopback port and serves until Close.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{
		ln:        ln,
		url:       "http://" + ln.Addr().String(),
		done:      make(chan struct{}),
		serveDone: make(chan struct{}),
	}
	s.srv = &http.Server{
		Handler:           http.HandlerFunc(s.serveHTTP),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	go func() {
		defer close(s.serveDone)
		_ = s.srv.Serve(ln) // always ErrServerClosed or a listener error after Close
	}()
	return s, nil
}

// New starts a server for a test and closes it when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s, err := Start()
	if err != nil {
		t.Fatalf("fakeapi: start: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// URL is the base URL to put in ANTHROPIC_BASE_URL.
func (s *Server) URL() string { return s.url }

// Script replaces the queue of steps.
func (s *Server) Script(steps ...Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = s.queue[:0]
	s.appendLocked(steps)
}

// Append adds steps to the end of the queue.
func (s *Server) Append(steps ...Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.appendLocked(steps)
}

func (s *Server) appendLocked(steps []Step) {
	for _, st := range steps {
		left := st.Repeat
		if left == 0 {
			left = 1
		}
		s.queue = append(s.queue, &queued{Step: st, Left: left})
	}
}

// Reset empties the queue and the request log.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue, s.log = nil, nil
}

// Requests returns a copy of the log of every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// MainRequests returns the logged Messages requests that carried tools: the calls of the
// CLI's main loop and subagents, without the set_model probe and other side requests.
func (s *Server) MainRequests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	for i := range s.log {
		if s.log[i].IsMain() {
			out = append(out, s.log[i])
		}
	}
	return out
}

// Pending reports how many steps are still queued.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Close stops the server, ends hanging streams and waits for every handler to return.
// It is safe to call more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return s.closeErr
	}
	s.closed = true
	s.mu.Unlock()
	close(s.done)
	err := s.srv.Close() // closes the listener and every connection
	s.inflight.Wait()
	<-s.serveDone
	s.mu.Lock()
	s.closeErr = err
	s.mu.Unlock()
	return err
}

// take pops the first queued step that matches req, or returns false.
func (s *Server) take(req *Request) (Step, bool) {
	for i, q := range s.queue {
		if !q.Step.Match.matches(req) {
			continue
		}
		if q.Left > 0 {
			q.Left--
			if q.Left == 0 {
				s.queue = append(s.queue[:i], s.queue[i+1:]...)
			}
		}
		return q.Step, true
	}
	return Step{}, false
}

// serveHTTP tracks the handler so that Close can wait for it, then routes the request.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		http.Error(w, "fakeapi: closed", http.StatusServiceUnavailable)
		return
	}
	s.inflight.Add(1)
	s.active.Add(1)
	s.mu.Unlock()
	defer s.inflight.Done()
	defer s.active.Add(-1)

	switch {
	case r.Method == http.MethodHead:
		s.record(newRequest(r, time.Now()))
		w.WriteHeader(http.StatusOK)
	case r.URL.Path == "/__script" || r.URL.Path == "/__append":
		s.control(w, r)
	case r.URL.Path == "/__reset":
		s.Reset()
		writeJSON(w, http.StatusOK, map[string]any{})
	case r.URL.Path == "/__log":
		writeJSON(w, http.StatusOK, s.Requests())
	case r.URL.Path == "/__queue":
		s.mu.Lock()
		q := make([]queued, len(s.queue))
		for i, e := range s.queue {
			q[i] = *e
		}
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, q)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		s.messages(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		body, _ := io.ReadAll(r.Body)
		s.record(newRequest(r, time.Now()))
		writeJSON(w, http.StatusOK, map[string]int{"input_tokens": max(1, len(body)/4)})
	default:
		_, _ = io.Copy(io.Discard, r.Body)
		s.record(newRequest(r, time.Now()))
		writeJSON(w, http.StatusOK, map[string]any{})
	}
}

// control handles POST /__script and /__append with a JSON list of steps.
func (s *Server) control(w http.ResponseWriter, r *http.Request) {
	var steps []Step
	if err := json.NewDecoder(r.Body).Decode(&steps); err != nil {
		http.Error(w, "fakeapi: want a JSON list of steps: "+err.Error(), http.StatusBadRequest)
		return
	}
	for i := range steps {
		if err := steps[i].Validate(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	if r.URL.Path == "/__script" {
		s.Script(steps...)
	} else {
		s.Append(steps...)
	}
	writeJSON(w, http.StatusOK, map[string]int{"queued": s.Pending()})
}

// messages answers POST /v1/messages with the next matching step.
func (s *Server) messages(w http.ResponseWriter, r *http.Request) {
	rec := newRequest(r, time.Now())
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = summarize(&rec, body)
	}
	if err != nil {
		rec.Answer = "bad_request"
		s.record(rec)
		a := answer{w: w, r: r, done: s.done, reqID: newID("req_fake_", 6)}
		a.httpError(Step{Status: http.StatusBadRequest, Message: "fakeapi: unreadable request: " + err.Error()})
		return
	}
	s.mu.Lock()
	step, ok := s.take(&rec)
	s.mu.Unlock()
	if !ok {
		step = Text(defaultText)
		rec.Answer = "default"
	} else {
		rec.Answer = cmp.Or(step.Kind, KindText)
	}
	s.record(rec)
	a := answer{w: w, r: r, done: s.done, step: step, req: &rec, reqID: newID("req_fake_", 6)}
	a.serve()
}

// defaultText is the reply to a request no step matches.
const defaultText = "Hello from the fake API."

func (s *Server) record(rec Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, rec)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

// errClosed reports that the client went away or the server is closing.
var errClosed = errors.New("fakeapi: connection closed")
