package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync/atomic"
	"testing"
)

// The hot paths of a streaming turn: the agent encodes one session/update
// notification per text delta, and the client frames and classifies each
// line it reads. One op is one message; the allocation counts are what the
// adapter pays per streamed chunk on the wire side.
//
//	go test -run '^$' -bench . -benchmem ./acp

func chunkNotification() *SessionNotification {
	return &SessionNotification{SessionID: "0a5a52a2-1d55-4d5b-9c3e-7cbe6d1e6c52", Update: SessionUpdate{
		AgentMessageChunk: &ContentChunk{
			Content:   ContentBlock{Text: &TextContent{Text: "word word "}},
			MessageID: Some(MessageID("msg_01XFDUDYJgAACzvnptvVoYEL")),
		}}}
}

// BenchmarkEncodeNotification is encodeNotification of an
// agent_message_chunk into a reused buffer, as Notify does.
func BenchmarkEncodeNotification(b *testing.B) {
	n := chunkNotification()
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := encodeNotification(&buf, MethodSessionUpdate, n); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}

// BenchmarkNotify is Conn.Notify of an agent_message_chunk to a writer
// that discards: encoding, the write lock and the write call.
func BenchmarkNotify(b *testing.B) {
	pr, pw := io.Pipe()
	c := NewConn(pr, io.Discard, Options{})
	defer func() {
		pw.Close()
		c.Close()
		c.Wait()
	}()
	n := chunkNotification()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Notify(ctx, MethodSessionUpdate, n); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClassify is the validation and classification of one inbound
// notification line.
func BenchmarkClassify(b *testing.B) {
	var buf bytes.Buffer
	if err := encodeNotification(&buf, MethodSessionUpdate, chunkNotification()); err != nil {
		b.Fatal(err)
	}
	line := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if in := classify(line); in.kind != kindNotification {
			b.Fatal("not a notification")
		}
	}
}

// BenchmarkReceiveNotifications is the whole inbound path of a client:
// line framing, classification, the dispatch queue and a handler call,
// for a stream of agent_message_chunk notifications.
func BenchmarkReceiveNotifications(b *testing.B) {
	var frame bytes.Buffer
	if err := encodeNotification(&frame, MethodSessionUpdate, chunkNotification()); err != nil {
		b.Fatal(err)
	}
	var got atomic.Int64
	all := make(chan struct{})
	var want atomic.Int64
	want.Store(-1)
	pr, pw := io.Pipe()
	c := NewConn(pr, io.Discard, Options{Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		if got.Add(1) == want.Load() {
			close(all)
		}
		return nil, nil
	})})
	defer func() {
		pw.Close()
		c.Close()
		c.Wait()
	}()
	b.SetBytes(int64(frame.Len()))
	b.ReportAllocs()
	n := int64(0)
	for b.Loop() {
		if _, err := pw.Write(frame.Bytes()); err != nil {
			b.Fatal(err)
		}
		n++
	}
	want.Store(n)
	if got.Load() < n {
		<-all
	}
}

// TestAppendValueGenerated checks the in-place path for generated types
// against encoding/json, and that a nil one is null.
func TestAppendValueGenerated(t *testing.T) {
	for _, v := range []any{chunkNotification(), (*SessionNotification)(nil), &InitializeRequest{ProtocolVersion: 1}, "a\u2028\"b"} {
		var got bytes.Buffer
		if err := appendValue(&got, v); err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want) {
			t.Errorf("appendValue(%T) = %s, want %s", v, got.String(), want)
		}
	}
}
