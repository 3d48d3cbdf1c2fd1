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
// answering it (-32600) when it may not run.
func (c *Conn) admit(f *inflight) bool {
	if c.opts.InitializeMethod == "" {
		return true
	}
	c.mu.Lock()
	ok, why := c.gateAllows(f)
	c.mu.Unlock()
	if !ok && why != "" {
		c.reply(f, nil, NewInvalidRequest(why))
	}
	return ok
}

// gateAllows decides on f, with c.mu held: whether it may run, and if not
// why (empty for a notification, which is dropped without an answer).
func (c *Conn) gateAllows(f *inflight) (bool, string) {
	init := c.opts.InitializeMethod
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
		}
		return g.initialized, ""
	case v2 && !IsV2RequestID([]byte(f.req.ID.raw)):
		return false, "ACP v2 request ids must be strings or integers"
	case isInit && g.inFlight:
		return false, init + " is already in progress"
	case isInit && g.initialized && g.version < ProtocolV2:
		return false, "the connection is already initialized; reconnect to initialize again"
	case isInit && g.initialized && !f.initV2:
		return false, "a repeated " + init + " must request protocol version 2 or later"
	case isInit && g.initialized && g.requests > 0:
		return false, init + " must not be repeated after other requests"
	case isInit:
		g.inFlight = true
		g.inFlightV2 = f.initV2
		return true, ""
	case g.inFlight && g.inFlightV2:
		// v2: requests must not wait for an initialize in flight.
		return false, init + " is in progress; send " + f.req.Method + " once it has completed"
	case !g.initialized:
		return false, init + " must complete before " + f.req.Method + " can be used"
	}
	g.requests++
	return true, ""
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
