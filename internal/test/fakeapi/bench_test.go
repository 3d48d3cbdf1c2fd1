package fakeapi

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

// BenchmarkStream20000Deltas measures how fast the fake serves a 20,000-delta text
// stream to a plain HTTP client, i.e. the ceiling the fake puts on throughput benchmarks.
func BenchmarkStream20000Deltas(b *testing.B) {
	s, err := Start()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	s.Script(Step{Kind: KindText, Text: "word ", Chunks: 20000, Repeat: -1})
	body := msgBody{Stream: true}.json()
	b.ResetTimer()
	for b.Loop() {
		resp, err := c.Post(s.URL()+"/v1/messages", "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		b.SetBytes(n)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/20000, "ns/delta")
}
