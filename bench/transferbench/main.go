// Command transferbench measures `shakectl artifact upload` and `artifact
// download` against curl on the same file through the same `sim cluster`
// (in this process, on loopback), and shakectl's peak RSS for each, to
// show that a transfer's memory does not grow with the file's size.
//
//	go build -o /tmp/shakectl . && go run ./bench/transferbench -shakectl /tmp/shakectl -size 256 -rounds 3
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/shakenfist/shakectl/sim/cluster"
)

func main() {
	shakectl := flag.String("shakectl", "shakectl", "the shakectl binary")
	sizeMiB := flag.Int("size", 256, "file size in MiB")
	rounds := flag.Int("rounds", 3, "rounds, shakectl and curl side by side")
	chunk := flag.Int("curl-chunk", 2<<20, "curl's upload chunk (shakectl's largest is 2 MiB)")
	flag.Parse()
	if err := run(*shakectl, int64(*sizeMiB)<<20, *rounds, *chunk); err != nil {
		fmt.Fprintln(os.Stderr, "transferbench:", err)
		os.Exit(1)
	}
}

func run(shakectl string, size int64, rounds, chunk int) error {
	cfg := cluster.DefaultConfig()
	cfg.Listen = "127.0.0.1:0"
	sim, err := cluster.Start(context.Background(), cfg)
	if err != nil {
		return err
	}
	defer sim.Close()
	dir, err := os.MkdirTemp("", "transferbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "src.img")
	if err := writeRandom(src, size); err != nil {
		return err
	}
	env := append(os.Environ(), "SHAKENFIST_API_URL="+sim.URL(), "SHAKENFIST_NAMESPACE="+cfg.AuthNamespace, "SHAKENFIST_KEY="+cfg.AuthKey)
	token, err := login(sim.URL(), cfg.AuthNamespace, cfg.AuthKey)
	if err != nil {
		return err
	}
	fmt.Printf("file %d MiB, %d rounds, load %s\n", size>>20, rounds, loadavg())
	fmt.Println("round  op        shakectl_s  MiB/s   rss_MiB  curl_s  MiB/s   ratio(curl/shakectl time)")
	for r := 1; r <= rounds; r++ {
		name := fmt.Sprintf("bench-%d", r)
		st, srss, err := timed(env, shakectl, "artifact", "upload", name, src, "--reupload", "--quiet")
		if err != nil {
			return err
		}
		ct, err := curlUpload(sim.URL(), token, src, size, chunk)
		if err != nil {
			return err
		}
		report(r, "upload", size, st, srss, ct)
		dst := filepath.Join(dir, "dst.img")
		dt, drss, err := timed(env, shakectl, "artifact", "download", name, dst, "--quiet")
		if err != nil {
			return err
		}
		blob, err := blobOf(env, shakectl, name)
		if err != nil {
			return err
		}
		cdt, err := curlDownload(sim.URL(), token, blob, filepath.Join(dir, "curl.img"))
		if err != nil {
			return err
		}
		report(r, "download", size, dt, drss, cdt)
		os.Remove(dst)
		os.Remove(filepath.Join(dir, "curl.img"))
	}
	return nil
}

func report(r int, op string, size int64, st time.Duration, rss int64, ct time.Duration) {
	mib := float64(size) / (1 << 20)
	fmt.Printf("%-5d  %-8s  %10.2f  %6.0f  %7.1f  %6.2f  %6.0f  %.2f\n", r, op, st.Seconds(), mib/st.Seconds(), float64(rss)/1024, ct.Seconds(), mib/ct.Seconds(), ct.Seconds()/st.Seconds())
}

func writeRandom(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 1<<20)
	for n := int64(0); n < size; n += int64(len(buf)) {
		for k := 0; k < len(buf); k += 8 {
			v := r.Uint64()
			for j := 0; j < 8; j++ {
				buf[k+j] = byte(v >> (8 * j))
			}
		}
		if _, err := f.Write(buf[:min(int64(len(buf)), size-n)]); err != nil {
			return err
		}
	}
	return nil
}

// timed runs shakectl and returns its wall time and peak RSS in KiB.
func timed(env []string, bin string, args ...string) (time.Duration, int64, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var errb bytes.Buffer
	cmd.Stderr = &errb
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%s %v: %v: %s", bin, args, err, errb.String())
	}
	return time.Since(start), peakRSSKiB(cmd.ProcessState), nil
}

func blobOf(env []string, bin, name string) (string, error) {
	cmd := exec.Command(bin, "artifact", "show", name, "-o", "json", "--jq", ".blob_uuid")
	cmd.Env = env
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

func login(base, ns, key string) (string, error) {
	b, _ := json.Marshal(map[string]string{"namespace": ns, "key": key})
	resp, err := http.Post(base+"/auth", "application/json", bytes.NewReader(b))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var v struct {
		AccessToken string `json:"access_token"`
	}
	err = json.NewDecoder(resp.Body).Decode(&v)
	return v.AccessToken, err
}

// curlUpload creates an upload and sends the file with one curl per
// chunk (the API is chunked; curl has no loop of its own), then times it.
func curlUpload(base, token, src string, size int64, chunk int) (time.Duration, error) {
	req, _ := http.NewRequest("POST", base+"/upload", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	var u struct{ UUID string }
	json.NewDecoder(resp.Body).Decode(&u)
	resp.Body.Close()
	f, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	start := time.Now()
	for off := int64(0); off < size; off += int64(chunk) {
		cmd := exec.Command("curl", "-sS", "--fail", "-X", "POST", "-H", "Authorization: Bearer "+token,
			"-H", "Content-Type: application/octet-stream", "--data-binary", "@-", base+"/upload/"+u.UUID)
		cmd.Stdin = io.NewSectionReader(f, off, min(int64(chunk), size-off))
		if out, err := cmd.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("curl upload: %v: %s", err, out)
		}
	}
	return time.Since(start), nil
}

func curlDownload(base, token, blob, dst string) (time.Duration, error) {
	start := time.Now()
	cmd := exec.Command("curl", "-sS", "--fail", "-H", "Authorization: Bearer "+token, "-o", dst, base+"/blobs/"+blob+"/data")
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("curl download: %v: %s", err, out)
	}
	return time.Since(start), nil
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) > 0 {
		return f[0]
	}
	return "?"
}
