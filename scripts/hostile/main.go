// Command hostile is the escape-laden server scripts/hostile.sh runs on
// loopback: it stands in front of `shakectl sim cluster`
// as a reverse proxy that replaces the marker "hostilemark" in every answer
// with terminal escapes (an OSC window title, an erase-line, a carriage
// return and a forged "FAKE: all good"), answers /hostile-text with the same
// bytes as a non-JSON body (what --debug shows), /big-error with an error
// answer over 64 KiB, /reset by resetting the connection once the request
// is read, /kerbside/ (a Kerbside exchange) never, the console routes of
// instance "hsnull" with the null a 2024 server sends for an instance
// never placed, and, on a second address,
// plays a router whose every answer is a 418 carrying them (what the probe
// files under "other:"). Under /blobname/CASE and /held it plays the
// file cases (files.go): blobs with hostile names, and a blob's data
// held back until the script releases it.
//
// It is a test fixture for the script, not part of shakectl: it binds only
// loopback addresses and prints the two URLs on stdout.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// hostileText is what a hostile server sends: set the window title, erase
// the line, return to its start and print a forged verdict; a C1 CSI (U+009B)
// clears the screen on terminals that honour 8-bit controls.
const hostileText = "\x1b]0;PWNED\x07\x1b[2K\rFAKE: all good\x1b[31m\u009b2J"

const marker = "hostilemark"

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "API proxy address (loopback)")
	routerListen := flag.String("router-listen", "127.0.0.1:0", "hostile router address (loopback)")
	upstream := flag.String("upstream", "", "the sim cluster's URL")
	flag.Parse()
	up, err := url.Parse(*upstream)
	if err != nil || up.Host == "" {
		log.Fatalf("-upstream: %q is not a URL", *upstream)
	}
	api := mustListenLoopback(*listen)
	router := mustListenLoopback(*routerListen)

	// JSON answers get the text as a JSON string's escaped content, so the
	// document stays valid and the decoded value holds the raw bytes.
	quoted, _ := json.Marshal(hostileText)
	jsonText := string(quoted[1 : len(quoted)-1])
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		// What NewSingleHostReverseProxy's Director did: the upstream's
		// URL, the client's Host and X-Forwarded-For.
		r.SetURL(up)
		r.Out.Host = r.In.Host
		r.SetXForwarded()
		// Bodies are rewritten below: they must arrive uncompressed.
		r.Out.Header.Del("Accept-Encoding")
		rewriteRoute(r) // the file cases (files.go)
	}}
	files := &fileRoutes{gate: newGate()}
	proxy.ModifyResponse = func(resp *http.Response) error {
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		with := hostileText
		if strings.Contains(resp.Header.Get("Content-Type"), "json") {
			with = jsonText
		}
		body = bytes.ReplaceAll(body, []byte(marker), []byte(with))
		gated, body := files.modifyRoute(resp, body)
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if gated != nil {
			resp.Body = gated
		}
		resp.ContentLength = int64(len(body))
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/hostile-text", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, hostileText+"\n")
	})
	// An error answer larger than shakectl reads of it
	// (its 64 KiB), and a POST whose connection is reset once its request
	// is read (it may have taken effect).
	mux.HandleFunc("/big-error", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, `{"error": "%s", "status": 500}`, strings.Repeat("x", 70<<10))
	})
	mux.HandleFunc("/reset", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0) // a reset, not an orderly close
		}
		conn.Close()
	})
	// A Kerbside that never answers. A sim cluster
	// behind this proxy mints console URLs on the Host it was asked by,
	// so its Kerbside exchange comes here, and waits until the client
	// gives up.
	mux.HandleFunc("/kerbside/", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	// The real 2024 server answers an instance the
	// scheduler never placed with 200 null on its console routes
	// (recorded: client/testdata/sf2024/recorded/console-noplace.http and
	// vdi-helper-noplace.http). Instance "hsnull" is one.
	for _, route := range []string{"/instances/hsnull/consoledata", "/instances/hsnull/vdiconsolehelper"} {
		mux.HandleFunc(route, func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, "null\n")
		})
	}
	mux.Handle("/", proxy)

	go func() {
		log.Fatal(http.Serve(router, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusTeapot)
			io.WriteString(w, hostileText)
		})))
	}()
	fmt.Printf("api http://%s\nrouter http://%s\n", api.Addr(), router.Addr())
	os.Stdout.Sync()
	files.next = mux
	log.Fatal(http.Serve(api, files))
}

// mustListenLoopback refuses any address but loopback: the script's hostile
// answers must never reach another machine.
func mustListenLoopback(addr string) net.Listener {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		log.Fatalf("%s: %v", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		log.Fatalf("%s: only loopback addresses", addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	return l
}
