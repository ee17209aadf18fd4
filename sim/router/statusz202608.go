package router

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Status202608 is main-2026-08's /statusz JSON: the real router's keys, in
// its order, with its types (captures atenet-router-6210ad86/*/statusz.json).
// What a simulator has no counterpart for (the cluster IP, the xDS and
// ext_proc ports, the control plane's TLS files) holds the value the
// captured router showed without a cluster or the real default.
type Status202608 struct {
	BuildTag        string            `json:"build_tag"`
	RouterClusterIP string            `json:"router_cluster_ip"`
	Namespace       string            `json:"namespace"`
	Mode            string            `json:"mode"`
	PortHTTP        int               `json:"port_http"`
	PortXDS         int               `json:"port_xds"`
	PortExtproc     int               `json:"port_extproc"`
	StatusPort      int               `json:"status_port"`
	Args            string            `json:"args"`
	Flags           map[string]string `json:"flags"`
	Queries         []Query           `json:"queries"`
	Health          HealthCards       `json:"health"`
	Templates       []Template        `json:"templates"`
	// Parking is the card; with parking off max_parked is 0.
	Parking ParkingStatus `json:"parking"`
}

// HealthCards are the three dependencies statusz reports on.
type HealthCards struct {
	Dataplane Health `json:"dataplane"`
	K8sAPI    Health `json:"k8s_api"`
	AteAPI    Health `json:"ate_api"`
}

// Query is one request in statusz's log.
type Query struct {
	Timestamp string `json:"timestamp"` // arrival, RFC 3339, whole seconds
	Client    string `json:"client"`
	Host      string `json:"host"`
	Path      string `json:"path"`
	Method    string `json:"method"`
	Action    string `json:"action"` // "Route ok" or "Error"
	Target    string `json:"target"` // worker "ip:port", or "-"
	Duration  string `json:"duration"`
}

// Health is one dependency's health card.
type Health struct {
	Healthy      bool   `json:"healthy"`
	Message      string `json:"message"`
	LastSuccess  string `json:"last_success"`
	LastFailure  string `json:"last_failure"`
	SuccessCount int    `json:"success_count"`
	FailureCount int    `json:"failure_count"`
}

// Template is an actor template the router knows.
type Template struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

// maxQueries is how many requests statusz lists, as the real router.
const maxQueries = 100

// queryLog keeps the last maxQueries requests, newest first by the time
// the router answered them (the order the captured router lists them in:
// a parked request that ended last comes first).
type queryLog struct {
	mu sync.Mutex
	q  []Query
}

func (l *queryLog) add(r *http.Request, arrival time.Time, d time.Duration, ok bool, target string) {
	action := "Error"
	if ok {
		action = "Route ok"
	}
	q := Query{
		Timestamp: arrival.UTC().Truncate(time.Second).Format(time.RFC3339),
		// The captured router showed the Host here too.
		Client:   r.Host,
		Host:     r.Host,
		Path:     r.URL.Path,
		Method:   r.Method,
		Action:   action,
		Target:   target,
		Duration: fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)),
	}
	l.mu.Lock()
	if len(l.q) < maxQueries {
		l.q = append(l.q, Query{})
	}
	copy(l.q[1:], l.q)
	l.q[0] = q
	l.mu.Unlock()
}

func (l *queryLog) snapshot() []Query {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Query{}, l.q...)
}

// neverRFC3339 is how the real router writes "never" in a health card.
const neverRFC3339 = "0001-01-01T00:00:00Z"

func portOf(a net.Addr) int {
	if tcp, ok := a.(*net.TCPAddr); ok {
		return tcp.Port
	}
	return 0
}

func (s *Server) status202608(st Status) Status202608 {
	cfg := s.cfg
	p := *st.Parking
	if !p.Enabled {
		p.MaxParked = 0
	}
	started := s.cp.start.UTC().Format(time.RFC3339Nano)
	ateapi := Health{Healthy: true, Message: "Connected", LastSuccess: started, LastFailure: neverRFC3339, SuccessCount: 1}
	if st.ControlPlane.Unavailable {
		ateapi = Health{Healthy: false, Message: "ateapi is unavailable (injected)", LastSuccess: neverRFC3339, LastFailure: started, FailureCount: 1}
	}
	args := cfg.Args
	if args == "" {
		args = "shakectl sim router"
	}
	return Status202608{
		BuildTag:        "sim",
		RouterClusterIP: "Offline Mode (No Cluster IP)",
		Namespace:       "default",
		Mode:            "ingress",
		PortHTTP:        portOf(s.routerLn.Addr()),
		PortXDS:         18000,
		PortExtproc:     50051,
		StatusPort:      portOf(s.statusLn.Addr()),
		Args:            args,
		// The flags the simulator models, named and written as the real
		// router's statusz writes them.
		Flags: map[string]string{
			"mode":                          "ingress",
			"namespace":                     "default",
			"atenet-router":                 "envoy",
			"metrics-listen-addr":           s.metricsLn.Addr().String(),
			"status-port":                   strconv.Itoa(portOf(s.statusLn.Addr())),
			"port-http":                     strconv.Itoa(portOf(s.routerLn.Addr())),
			"parked-request-budget":         cfg.ParkedRequestBudget.String(),
			"parked-request-max":            strconv.Itoa(cfg.ParkedRequestMax),
			"parked-request-retry-interval": cfg.ParkedRequestRetryInterval.String(),
			"parked-request-retry-factor":   strconv.FormatFloat(cfg.ParkedRequestRetryFactor, 'g', -1, 64),
			"parked-request-retry-jitter":   strconv.FormatFloat(cfg.ParkedRequestRetryJitter, 'g', -1, 64),
			"extproc-max-requests":          strconv.Itoa(cfg.ExtprocMaxRequests),
			"route-timeout":                 cfg.RouteTimeout.String(),
			"drain-delay":                   cfg.DrainDelay.String(),
			"drain-timeout":                 cfg.DrainTimeout.String(),
			"drain-complete-file":           cfg.DrainCompleteFile,
		},
		Queries: s.rt.queries.snapshot(),
		Health: HealthCards{
			Dataplane: Health{Healthy: true, Message: "simulated", LastSuccess: started, LastFailure: neverRFC3339, SuccessCount: 1},
			K8sAPI:    Health{Healthy: true, Message: "Skipped (no Kubernetes client)", LastSuccess: started, LastFailure: neverRFC3339, SuccessCount: 1},
			AteAPI:    ateapi,
		},
		Templates: []Template{{Name: SimActorTemplate, Namespace: cfg.Atespace}},
		Parking:   p,
	}
}
