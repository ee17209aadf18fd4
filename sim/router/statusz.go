package router

import (
	"encoding/json"
	"html/template"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Status is what /statusz reports. The "parking" object is the real
// router's "Request Parking" card; the others describe the simulated pool.
type Status struct {
	// Parking is nil for the main model, which has no parking card.
	Parking      *ParkingStatus     `json:"parking,omitempty"`
	Extproc      ExtprocStatus      `json:"extproc"`
	Workers      WorkerStatus       `json:"workers"`
	ControlPlane ControlPlaneStatus `json:"control_plane"`
	// Flags are the parking flags as PR #221's statusz lists them (its
	// flag names); only the pr221 model has them.
	Flags map[string]string `json:"flags,omitempty"`
}

// ParkingStatus is the "Request Parking" card.
type ParkingStatus struct {
	Enabled bool `json:"enabled"`
	// Active is the number of requests parked right now.
	Active int64 `json:"active"`
	// MaxParked is the configured lot, --parked-request-max, shown even
	// when parking is off (as PR #221's status.go does).
	MaxParked int `json:"max_parked"`
	// MaxWait is the park budget, --parked-request-budget. It is reported
	// even when parking is disabled, since it is the configured value.
	MaxWait time.Duration `json:"-"`
}

// MarshalJSON writes max_wait as every real router version does, a Go
// duration string ("5s", "500ms", "1m30s"), never a number.
func (p ParkingStatus) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Enabled   bool   `json:"enabled"`
		Active    int64  `json:"active"`
		MaxParked int    `json:"max_parked"`
		MaxWait   string `json:"max_wait"`
	}{p.Enabled, p.Active, p.MaxParked, p.MaxWait.String()})
}

// ExtprocStatus is Envoy's ext_proc circuit breaker.
type ExtprocStatus struct {
	Active      int64 `json:"active"`
	MaxRequests int   `json:"max_requests"`
}

// WorkerStatus is the simulated worker pool.
type WorkerStatus struct {
	Total         int `json:"total"`
	Busy          int `json:"busy"`
	RunningActors int `json:"running_actors"`
}

// ControlPlaneStatus counts ResumeActor calls.
type ControlPlaneStatus struct {
	ResumeCalls int64 `json:"resume_calls"`
	Unavailable bool  `json:"unavailable"`
}

func (s *Server) status() Status {
	cfg := s.cfg
	var parking *ParkingStatus
	if s.rt.tr.parking != parkingNever {
		parking = &ParkingStatus{
			Enabled:   cfg.ParkingEnabled(),
			Active:    s.rt.lot.n.Load(),
			MaxParked: cfg.ParkedRequestMax,
			MaxWait:   cfg.ParkedRequestBudget,
		}
	}
	var flags map[string]string
	if s.rt.tr.statusz == statuszPR221 {
		flags = map[string]string{
			"parking-enabled":    strconv.FormatBool(cfg.ParkingEnabled()),
			"parking-max-parked": strconv.Itoa(cfg.ParkedRequestMax),
			"parking-max-wait":   cfg.ParkedRequestBudget.String(),
		}
	}
	return Status{
		Flags:   flags,
		Parking: parking,
		Extproc: ExtprocStatus{Active: s.rt.breaker.n.Load(), MaxRequests: cfg.ExtprocBreaker()},
		Workers: WorkerStatus{
			Total:         cfg.Workers,
			Busy:          int(s.cp.busy.Load()),
			RunningActors: s.cp.counts(),
		},
		ControlPlane: ControlPlaneStatus{
			ResumeCalls: s.cp.calls.Load(),
			Unavailable: s.cp.unavailable(time.Now()),
		},
	}
}

// wantsJSON: ?format=json, or an Accept header that names application/json.
func wantsJSON(r *http.Request) bool {
	switch r.URL.Query().Get("format") {
	case "json":
		return true
	case "html":
		return false
	}
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil && mt == "application/json" {
			return true
		}
	}
	return false
}

func (s *Server) serveStatusz(w http.ResponseWriter, r *http.Request) {
	st := s.status()
	w.Header().Set("Cache-Control", "no-store")
	if wantsJSON(r) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		if s.rt.tr.statusz == statusz202608 {
			_ = enc.Encode(s.status202608(st))
			return
		}
		if s.rt.tr.statusz != statuszPR221 {
			// PR #221's status.go encodes without indenting.
			enc.SetIndent("", "  ")
		}
		_ = enc.Encode(st)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	var maxWait string
	if st.Parking != nil {
		maxWait = st.Parking.MaxWait.String()
	}
	off := "a parking lot of 0: fail fast"
	if s.rt.tr.parking == parkingOffByFlag {
		off = "parking switched off: fail fast"
	}
	_ = statuszPage().Execute(w, struct {
		Status
		MaxWait, Off string
	}{st, maxWait, off})
}

// statuszPage is parsed on first use, not at package init: every shakectl
// command links this package, and only `sim router` serves the page.
var statuszPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("statusz").Parse(statuszHTML))
})

const statuszHTML = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>atenet router (simulated) – statusz</title>
<style>
body{font-family:sans-serif;margin:2em;background:#f6f7f9}
.card{background:#fff;border:1px solid #d0d4da;border-radius:6px;padding:1em 1.5em;margin-bottom:1em;max-width:32em}
.card h2{margin-top:0;font-size:1.1em}
dt{float:left;clear:left;width:12em;color:#555}dd{margin-left:12em}
</style></head><body>
<h1>atenet router (simulated)</h1>
{{with .Parking}}<div class="card" id="request-parking"><h2>Request Parking</h2><dl>
<dt>Status</dt><dd class="badge">{{if .Enabled}}Enabled{{else}}Disabled ({{$.Off}}){{end}}</dd>
<dt>Parked</dt><dd>{{.Active}} / {{.MaxParked}}</dd>
<dt>Max wait</dt><dd>{{$.MaxWait}}</dd>
</dl></div>{{end}}
<div class="card" id="extproc"><h2>ext_proc circuit breaker</h2><dl>
<dt>Active requests</dt><dd>{{.Extproc.Active}} / {{.Extproc.MaxRequests}}</dd>
</dl></div>
<div class="card" id="workers"><h2>Worker pool</h2><dl>
<dt>Busy workers</dt><dd>{{.Workers.Busy}} / {{.Workers.Total}}</dd>
<dt>Running actors</dt><dd>{{.Workers.RunningActors}}</dd>
<dt>ResumeActor calls</dt><dd>{{.ControlPlane.ResumeCalls}}</dd>
<dt>Control plane</dt><dd>{{if .ControlPlane.Unavailable}}unavailable (injected){{else}}available{{end}}</dd>
</dl></div>
</body></html>
`
