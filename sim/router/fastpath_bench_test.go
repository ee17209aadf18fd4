package router

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// nopRW discards a response, so the benchmarks time the handlers alone.
type nopRW struct{ h http.Header }

func (w *nopRW) Header() http.Header         { return w.h }
func (w *nopRW) Write(b []byte) (int, error) { return len(b), nil }
func (w *nopRW) WriteHeader(int)             {}

// BenchmarkFastPath is the router handler for a running actor (no service
// time), beside BenchmarkHello, a bare handler, for the cost of the route.
func BenchmarkFastPath(b *testing.B) {
	cfg := testConfig()
	cfg.ServiceTime = 0
	cfg.ActorIdle = 0
	s, _ := Start(context.Background(), cfg)
	defer s.Close()
	req := httptest.NewRequest("GET", "/", nil)
	req.Host = hostFor("actor-0001")
	s.rt.ServeHTTP(&nopRW{h: http.Header{}}, req)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			s.rt.ServeHTTP(&nopRW{h: http.Header{}}, req)
		}
	})
}

func BenchmarkHello(b *testing.B) {
	req := httptest.NewRequest("GET", "/", nil)
	body := "hello from a bare net/http server"
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = io.WriteString(w, body)
	})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			h.ServeHTTP(&nopRW{h: http.Header{}}, req)
		}
	})
}
