package cluster

import (
	"bytes"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strings"
)

// An instance's console: its serial console data
// (InstanceConsoleDataEndpoint, da448b1a) and its screenshot.

// handleScreenshot is InstanceScreenshotEndpoint.get (shakenfist da448b1a
// external_api/instance.py; unchanged in the 2026 tree at 00c15b80): 200
// null for an instance never placed (unplaced), 406 unless the instance
// is created (@requires_instance_active), else the
// console is captured into a new blob and the answer is that blob's UUID
// as a JSON string (Instance.get_screenshot). The simulated console is a
// small PNG; a real one is whatever libvirt's virDomainScreenshot gives.
// The blob's sha512 is set at once; get_screenshot does not verify the
// checksum, so on a real server it is null until the checksums daemon
// (daemons/checksums.py) has hashed the blob.
func (s *Server) handleScreenshot(w http.ResponseWriter, r *http.Request, caller string) {
	s.withInstance(w, r, caller, "InstanceScreenshotEndpoint.get", nil, func(i *instance, _ map[string]any) (any, *apiError) {
		if unplaced(i) {
			return nil, nil
		}
		if err := requireInstanceActive(i); err != nil {
			return nil, err
		}
		shot := consolePNG(i.uuid)
		b, err := s.newBlobOf("screenshot", shot)
		if err != nil {
			return nil, &apiError{status: http.StatusInternalServerError, msg: "screenshot failed: " + err.Error()}
		}
		sum := sha512.Sum512(shot)
		b.sha512 = hex.EncodeToString(sum[:])
		s.addEvent(i, apiFQDN, "screenshot request from REST API", nil)
		s.addEvent(i, i.node, "acquired screenshot of instance console", map[string]any{"blob": b.uuid})
		return b.uuid, nil
	})
}

// consolePNG draws a 64×48 "console": black, with a stripe whose shade
// comes from the instance's UUID, so two instances' shots differ.
func consolePNG(uuid string) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	shade := uint8(0x40)
	for _, c := range uuid {
		shade += uint8(c)
	}
	for y := range 48 {
		for x := range 64 {
			c := color.RGBA{A: 0xff}
			if y >= 20 && y < 28 {
				c = color.RGBA{R: shade, G: 0xc0, B: 0x40, A: 0xff}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img) // writing to memory cannot fail
	return buf.Bytes()
}

// consoleText is the simulated serial console: a boot banner, then one
// line per event of the instance; nothing before the instance has
// started, as no hypervisor has written a console log for it yet (the
// real 2024 server answered an empty body for an instance not started:
// client/testdata/sf2024/recorded/console-empty.http, the captures' c1).
func consoleText(i *instance) string {
	if i.state != stateCreated {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[    0.000000] Linux version 6.1.0-sim (shakectl sim cluster) #1 SMP\r\n")
	fmt.Fprintf(&b, "[    0.000000] Command line: console=ttyS0 root=/dev/vda1\r\n")
	for k, e := range i.events {
		fmt.Fprintf(&b, "[%5d.%06d] sim: %s\r\n", k+1, 0, e.Message)
	}
	fmt.Fprintf(&b, "\r\n%s login: ", i.spec.name)
	return b.String()
}

// maxConsoleLength bounds one read of the console.
const maxConsoleLength = 1 << 20

// handleConsoleData answers the last `length` bytes (default 10240) of
// the console log as application/octet-stream, with the real handler's
// misspelt mimetype 'applicaton/octet-stream' (da448b1a); 200 null, as
// JSON, for an instance never placed (unplaced).
func (s *Server) handleConsoleData(w http.ResponseWriter, r *http.Request, caller string) {
	p, err := s.params(r, "InstanceConsoleDataEndpoint.get", "length")
	if err != nil {
		writeError(w, err)
		return
	}
	length := int64(10240)
	if truthy(p["length"]) {
		var n int64
		ok := false
		switch v := p["length"].(type) {
		case json.Number:
			f, ferr := v.Float64()
			n, ok = int64(f), ferr == nil
		case string:
			_, serr := fmt.Sscanf(strings.TrimSpace(v), "%d", &n)
			ok = serr == nil
		}
		if !ok || (s.is2026() && n < 1) {
			writeError(w, badRequest("length is not an integer"))
			return
		}
		length = min(max(n, 0), maxConsoleLength)
	}
	s.mu.Lock()
	i, ferr := s.findInstance(r.PathValue("ref"), caller)
	var text string
	placed := ferr == nil && !unplaced(i)
	if placed {
		s.addEvent(i, apiFQDN, "get console data request from REST API", nil)
		text = consoleText(i)
	}
	s.mu.Unlock()
	if ferr != nil {
		writeError(w, ferr)
		return
	}
	if !placed {
		writeJSON(w, http.StatusOK, nil)
		return
	}
	if int64(len(text)) > length {
		text = text[int64(len(text))-length:]
	}
	w.Header().Set("Content-Type", "applicaton/octet-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(text))
}

func (s *Server) handleConsoleDelete(w http.ResponseWriter, r *http.Request, caller string) {
	s.withInstance(w, r, caller, "InstanceConsoleDataEndpoint.delete", nil, func(i *instance, _ map[string]any) (any, *apiError) {
		if unplaced(i) {
			return nil, nil
		}
		s.addEvent(i, apiFQDN, "delete console data request from REST API", nil)
		return nil, nil
	})
}

// handleVDIConsoleHelper is InstanceVDIConsoleHelperEndpoint.get: a
// virt-viewer file, application/x-virt-viewer, from VIRTVIEWER_TEMPLATE.
// The simulated API host has no /etc/pki/libvirt-spice/ca-cert.pem, so
// the file has no ca line; on 2024 a running instance has the TLS port
// libvirt gave its SPICE console (a real node's answer,
// recorded/node-vdi-helper-running.http, has both: deploy.yml sets up
// SPICE TLS).
//
// Both generations: 200 null, as JSON, for an instance never placed
// (unplaced: the captures' e3, v4, v6).
//
// 2024 (da448b1a external_api/instance.py): the video's vdi as stored,
// host the placement's node name; no state check, so an instance placed
// but not started gets "port=None", as Python formats it (the captures'
// v1).
//
// 2026 (instance.py, 2026 public copy, code index id 59117373307): the
// placement's node must exist (404 "placement node not found"), host is
// the node's IP, a spice* vdi is written "spice" (virt-viewer knows only
// spice and vnc), and host-subject (the node's SPICE certificate subject)
// is added only beside a tls-port, so never here.
func (s *Server) handleVDIConsoleHelper(w http.ResponseWriter, r *http.Request, caller string) {
	if _, err := s.params(r, "InstanceVDIConsoleHelperEndpoint.get"); err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	i, err := s.findInstance(r.PathValue("ref"), caller)
	if err != nil {
		s.mu.Unlock()
		writeError(w, err)
		return
	}
	if unplaced(i) {
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, nil)
		return
	}
	vdi := instanceVDI(i)
	host, port, tls := "None", "None", ""
	n := s.nodeByName[i.node]
	if n == nil && s.is2026() {
		s.mu.Unlock()
		writeError(w, notFound("placement node not found"))
		return
	}
	if n != nil {
		host = n.name
		if s.is2026() {
			host = n.ip
			if strings.HasPrefix(vdi, "spice") {
				vdi = "spice"
			}
		}
		if i.state == stateCreated {
			port = fmt.Sprint(vdiPort(i))
			if !s.is2026() {
				tls = fmt.Sprintf("\ntls-port=%d", vdiTLSPort(i))
			}
		}
	}
	s.addEvent(i, apiFQDN, "vdiconsole request from REST API", nil)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-virt-viewer")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "[virt-viewer]\ntype=%s\nhost=%s\nport=%s%s\ndelete-this-file=1\n", vdi, host, port, tls)
}

// vdiTLSPort is the TLS port of the instance's SPICE console: one of
// 30000–39999, fixed per instance.
func vdiTLSPort(i *instance) int { return 30000 + int(i.seq%10000) }

// vdiPort is the port libvirt would give the instance's SPICE or VNC
// console: one of 40000–49999, fixed per instance.
func vdiPort(i *instance) int { return 40000 + int(i.seq%10000) }
