package acp

// The initialize gate: which messages a connection serves before, during
// and after initialize. ACP v1 and v2 differ here (docs/acp-v2.md,
// "Negotiation and connection rules"), so the gate follows the version the
// client asks for while initialize is in flight and the version the agent
// answered once it has succeeded.

// initGate is the gate's state, part of connState (behind Conn.mu).
type initGate struct {
	initialized bool // an initialize has succeeded
	version     int  // the protocol version it answered
	inFlight    bool // an initialize is being handled
	inFlightV2  bool // and it asks for protocol 2 or later
	// requests counts the requests other than initialize served since
	// the last successful initialize: v2 allows initialize again only
	// before any.
	requests int
}

// admit applies the initialize gate to a message about to be dispatched,
// answering it when it may not run.
func (c *Conn) admit(f *inflight) bool {
	init := c.opts.InitializeMethod
	if init == "" {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	g := &c.st.gate
	isInit := f.req.Method == init
	if isInit {
		if v, err := PeekProtocolVersion(f.req.Params); err == nil && v >= ProtocolV2 {
			f.initV2 = true
		}
	}
	v2 := g.version >= ProtocolV2 || !g.initialized && (f.initV2 || g.inFlight && g.inFlightV2)
	switch {
	case f.req.IsNotification():
		if !g.initialized {
			c.log.Debug("acp: dropping notification before initialize", "method", f.req.Method)
			return false
		}
		return true
	case v2 && !IsV2RequestID([]byte(f.req.ID.raw)):
		c.refuse(f, "ACP v2 request ids must be strings or integers")
		return false
	case isInit && g.inFlight:
		c.refuse(f, init+" is already in progress")
		return false
	case isInit && g.initialized && g.version < ProtocolV2:
		c.refuse(f, "the connection is already initialized; reconnect to initialize again")
		return false
	case isInit && g.initialized && !f.initV2:
		c.refuse(f, "a repeated "+init+" must request protocol version 2 or later")
		return false
	case isInit && g.initialized && g.requests > 0:
		c.refuse(f, init+" must not be repeated after other requests")
		return false
	case isInit:
		g.inFlight = true
		g.inFlightV2 = f.initV2
		return true
	case g.inFlight && g.inFlightV2:
		// v2: requests must not wait for an initialize in flight.
		c.refuse(f, init+" is in progress; send "+f.req.Method+" once it has completed")
		return false
	case !g.initialized:
		c.refuse(f, init+" must complete before "+f.req.Method+" can be used")
		return false
	}
	g.requests++
	return true
}

// refuse answers f with -32600; called with c.mu held.
func (c *Conn) refuse(f *inflight, why string) {
	c.mu.Unlock()
	defer c.mu.Lock()
	c.reply(f, nil, NewInvalidRequest(why))
}

// initFinished records the end of an initialize: on success the gate opens
// at the version the result names; a failure leaves the state as it was
// (a failed repeat keeps the first initialization in effect).
func (c *Conn) initFinished(result any, ok bool) {
	version := ProtocolV1
	if ok {
		if b, err := AppendJSON(nil, result); err == nil {
			if v, err := PeekProtocolVersion(b); err == nil {
				version = v
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	g := &c.st.gate
	g.inFlight = false
	if ok {
		g.initialized = true
		g.version = version
		g.requests = 0
	}
}

// ProtocolVersion is the version the connection's initialize answered
// (0 before one succeeded).
func (c *Conn) ProtocolVersion() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st.gate.version
}
