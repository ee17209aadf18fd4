// Command hello is the baseline for the router benchmark: a bare net/http
// server answering every request with a short text/plain body, as small as
// a Go HTTP server gets.
package main

import (
	"flag"
	"io"
	"log"
	"net/http"
	"strconv"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:18171", "address to listen on")
	flag.Parse()
	body := "hello from a bare net/http server"
	log.Fatal(http.ListenAndServe(*listen, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = io.WriteString(w, body)
	})))
}
