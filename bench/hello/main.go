// Command hello is the baseline for the router benchmark: a bare net/http
// server answering every request with a short text/plain body, as small as
// a Go HTTP server gets.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on (port 0: a free one)")
	flag.Parse()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	// The URL is the one line on stdout, for the benchmark script.
	fmt.Printf("http://%s\n", ln.Addr())
	body := "hello from a bare net/http server"
	log.Fatal(http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = io.WriteString(w, body)
	})))
}
