package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Go's net/http Transport prints "Unsolicited response received on idle
// HTTP channel" with the standard logger when an upstream sends bytes on
// a connection nobody asked anything of; it has no logger of its own to
// set. In a real process (main routes the standard logger through the
// notifier) `shakectl proxy -o json` writes it as a JSON object like every
// other stderr line, where it printed a plain, dated line.
func TestStandardLoggerLinesAreJSONUnderOutputJSON(t *testing.T) {
	// An upstream that answers, then, when told, says more on the idle
	// connection.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	junk := make(chan struct{})
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		if _, err := http.ReadRequest(bufio.NewReader(conn)); err != nil {
			return
		}
		_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok")
		<-junk
		_, _ = io.WriteString(conn, "surprise!\r\n")
		_, _ = io.Copy(io.Discard, conn) // until the proxy hangs up
	}()

	home := t.TempDir()
	c := exec.Command(os.Args[0], "proxy", "-o", "json", "--listen", "127.0.0.1:0")
	c.Env = []string{
		"SHAKECTL_TEST_MAIN=1",
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"SHAKENFIST_API_URL=http://" + ln.Addr().String(),
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := c.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Process.Kill() })
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()

	var started struct {
		APIURL string `json:"api_url"`
	}
	if err := json.NewDecoder(stdout).Decode(&started); err != nil || started.APIURL == "" {
		t.Fatalf("the proxy's first stdout line: %v", err)
	}
	res, err := http.Get(started.APIURL + "/instances")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(body) != "ok" {
		t.Fatalf("through the proxy: %d %q", res.StatusCode, body)
	}
	close(junk)

	var seen []string
	notJSON := func(l string) bool {
		var obj map[string]any
		return json.Unmarshal([]byte(l), &obj) != nil
	}
	found := false
	timeout := time.After(30 * time.Second)
	for !found {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stderr ended before the Transport's line: %q", seen)
			}
			seen = append(seen, l)
			found = strings.Contains(l, "Unsolicited response received on idle HTTP channel")
		case <-timeout:
			t.Fatalf("no Unsolicited response line within 30s: %q", seen)
		}
	}
	if err := c.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for l := range lines {
		seen = append(seen, l)
	}
	_ = waitExit(t, c, 30*time.Second)
	for _, l := range seen {
		if notJSON(l) {
			t.Errorf("a stderr line of proxy -o json is not JSON: %q", l)
		}
	}
	var obj map[string]string
	for _, l := range seen {
		if strings.Contains(l, "Unsolicited") {
			_ = json.Unmarshal([]byte(l), &obj)
		}
	}
	if obj["event"] != "log" || !strings.HasPrefix(obj["message"], "Unsolicited response received on idle HTTP channel") {
		t.Errorf("the Transport's line: %v", obj)
	}
}
