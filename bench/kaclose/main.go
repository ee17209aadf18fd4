// Command kaclose is bench/probe-kaclose.sh's keep-alive-closing server:
// it answers one request per connection with a keep-alive answer (no
// Connection: close), then closes the connection, and counts the requests
// it answered. On SIGINT or SIGTERM it prints that count on stdout and
// exits, so a benchmark can compare it with what a load tester counted:
// against such a server the probe's own client once reported about half
// its requests as errors and counted twice the requests the server saw.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on (port 0: a free one)")
	flag.Parse()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	// The URL is the first line on stdout, for the benchmark script.
	fmt.Printf("http://%s\n", ln.Addr())
	var answered atomic.Int64
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
					return
				}
				if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")); err == nil {
					answered.Add(1)
				}
			}()
		}
	}()
	<-stop
	ln.Close()
	fmt.Printf("answered %d\n", answered.Load())
}
