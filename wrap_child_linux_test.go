//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Issue 40, item 10: a wrap killed with SIGKILL took nothing with it; its
// command ran on against a proxy that no longer existed. The command now
// gets the kernel's parent-death signal: it ends when wrap does, however
// wrap ends. The command (sh exec'ing sleep, one PID) says its PID; the
// test holds a pidfd on it, kills wrap with SIGKILL, and waits, bounded,
// for the pidfd to say the command has ended.
func TestWrapKilledTakesItsCommandWithIt(t *testing.T) {
	home := t.TempDir()
	c := exec.Command(os.Args[0], "wrap", "--", "sh", "-c", "echo pid $$; exec sleep 60")
	c.Env = []string{
		"SHAKECTL_TEST_MAIN=1",
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"PATH=" + os.Getenv("PATH"),
		"SHAKENFIST_API_URL=http://127.0.0.1:1/api",
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })

	pids := make(chan int, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if n, err := strconv.Atoi(strings.TrimPrefix(sc.Text(), "pid ")); err == nil {
				pids <- n
				return
			}
		}
		close(pids)
	}()
	var pid int
	select {
	case n, ok := <-pids:
		if !ok {
			t.Fatal("the command printed no PID")
		}
		pid = n
	case <-time.After(30 * time.Second): // bounds a hung start, times nothing
		t.Fatal("no PID from the command within 30 s")
	}
	// A pidfd names this process and no other, even if its PID is reused.
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatalf("pidfd_open(%d): %v", pid, err)
	}
	t.Cleanup(func() {
		// Ends it only if the test failed: then it is still running.
		_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
		unix.Close(fd)
	})
	if ppid := parentOf(t, pid); ppid != c.Process.Pid {
		t.Fatalf("the command's parent is %d, not wrap (%d)", ppid, c.Process.Pid)
	}

	if err := c.Process.Kill(); err != nil { // SIGKILL: wrap can do nothing
		t.Fatal(err)
	}
	_ = c.Wait()
	// The pidfd becomes readable when the process ends.
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := unix.Poll(fds, int(time.Until(deadline).Milliseconds()))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatalf("wrap was killed; its command (PID %d) was still running 10 s later", pid)
		}
		return
	}
}

// parentOf reads a process's parent from /proc/PID/stat.
func parentOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// pid (comm) state ppid …; comm may hold spaces, so from the last ')'.
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		t.Fatal(err)
	}
	return ppid
}
