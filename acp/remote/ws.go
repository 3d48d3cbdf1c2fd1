package remote

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/coder/websocket"
)

// handleWebSocket upgrades GET /acp to a WebSocket: one ACP connection
// whose messages are text frames both ways. The upgrade's 101 carries
// Acp-Connection-Id; the client's first message is still initialize.
func (s *Server) handleWebSocket(w http.ResponseWriter, r *http.Request) {
	c, err := s.newConn(wsOut, nil)
	if err != nil {
		s.refuse(w, r, http.StatusServiceUnavailable, "Cannot open a connection: "+err.Error())
		return
	}
	w.Header().Set(HeaderConnectionID, c.id)
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		// ServeHTTP has checked the Origin against the allowed ones already
		// (a browser page of another origin never gets here), and a client
		// without an Origin is no browser.
		InsecureSkipVerify: true,
	})
	if err != nil {
		c.close(err)
		return
	}
	ws.SetReadLimit(int64(s.opts.MaxMessageBytes))
	c.ws = ws // before the first message goes in: the agent writes only in answer
	s.log.Info("remote: connection opened", "connection", c.id, "transport", "websocket", "remote", r.RemoteAddr)
	go s.ping(c, ws)
	go func() {
		// The agent ended the connection (or the server is closing): say so.
		<-c.done
		ws.Close(websocket.StatusNormalClosure, "")
	}()
	for {
		typ, data, err := ws.Read(c.ctx)
		if err != nil {
			cause := errClientEOF
			switch websocket.CloseStatus(err) {
			case websocket.StatusMessageTooBig:
				cause = errors.New("message over MaxMessageBytes")
			case -1:
				if c.ctx.Err() != nil {
					cause = errServerClosed
				}
			}
			c.close(cause)
			return
		}
		if typ != websocket.MessageText {
			continue // the SDK ignores binary frames too
		}
		if c.send(data) != nil {
			return
		}
	}
}

// wsOut writes one agent message as a text frame. A client that does not
// take it within MaxOutputStall stopped reading: the watchdog (ping)
// closes the connection, which fails the write. The write itself carries
// no deadline: a timer per message would cost more than the write (a
// streamed turn is thousands of them).
func wsOut(c *conn, line []byte) error {
	c.writingSince.Store(time.Now().UnixNano())
	err := c.ws.Write(context.Background(), websocket.MessageText, line)
	c.writingSince.Store(0)
	if err != nil {
		c.close(errClientEOF) // (a stall closed it already, saying so)
		return err
	}
	return nil
}

// ping checks that the peer is still there: one that does not answer a
// ping within PingInterval (a dropped network, a sleeping laptop) is gone,
// and its connection closes instead of waiting for TCP to notice. It is
// also the watchdog of wsOut: a write under way for MaxOutputStall means
// a client that stopped reading, and the connection closes.
func (s *Server) ping(c *conn, ws *websocket.Conn) {
	t := time.NewTicker(s.opts.PingInterval)
	defer t.Stop()
	stall := s.opts.MaxOutputStall
	watch := time.NewTicker(max(stall/4, time.Millisecond))
	defer watch.Stop()
	for {
		select {
		case <-c.closedCh:
			return
		case <-watch.C:
			if since := c.writingSince.Load(); since != 0 && time.Since(time.Unix(0, since)) >= stall {
				s.log.Warn("remote: closing a connection whose client stopped reading", "connection", c.id, "limit", "MaxOutputStall")
				c.close(errStalled)
				ws.CloseNow()
				return
			}
		case <-t.C:
			ctx, cancel := context.WithTimeout(c.ctx, s.opts.PingInterval)
			err := ws.Ping(ctx)
			cancel()
			if err != nil {
				c.close(errors.New("no answer to a ping"))
				ws.CloseNow()
				return
			}
		}
	}
}
