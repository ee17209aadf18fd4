package cluster

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"
)

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.handleRoot)
	mux.HandleFunc("POST /auth", s.handleAuth)
	mux.HandleFunc("GET /auth/namespaces", s.authed(s.handleNamespaces))

	mux.HandleFunc("GET /instances", s.authed(s.handleListInstances))
	mux.HandleFunc("POST /instances", s.authed(s.handleCreateInstance))
	mux.HandleFunc("GET /instances/{ref}", s.authed(s.handleShowInstance))
	mux.HandleFunc("DELETE /instances/{ref}", s.authed(s.handleDeleteInstance))
	mux.HandleFunc("GET /instances/{ref}/events", s.authed(s.handleInstanceEvents))
	mux.HandleFunc("POST /instances/{ref}/{action}", s.authed(s.handlePowerAction))

	mux.HandleFunc("GET /networks", s.authed(s.handleListNetworks))
	mux.HandleFunc("POST /networks", s.authed(s.handleCreateNetwork))
	mux.HandleFunc("GET /networks/{ref}", s.authed(s.handleShowNetwork))
	mux.HandleFunc("DELETE /networks/{ref}", s.authed(s.handleDeleteNetwork))

	mux.HandleFunc("GET /nodes", s.authed(s.handleListNodes))
	mux.HandleFunc("GET /nodes/{name}", s.authed(s.handleShowNode))

	// Known paths with the wrong method get a JSON 405; anything else a
	// JSON 404.
	for path, allow := range map[string]string{
		"/{$}":                      "GET",
		"/auth":                     "POST",
		"/auth/namespaces":          "GET",
		"/instances":                "GET, POST",
		"/instances/{ref}":          "GET, DELETE",
		"/instances/{ref}/{action}": "",
		"/networks":                 "GET, POST",
		"/networks/{ref}":           "GET, DELETE",
		"/nodes":                    "GET",
		"/nodes/{name}":             "GET",
	} {
		mux.HandleFunc(path, methodNotAllowed(allow))
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, notFound("no such API route: %s %s", r.Method, truncate(r.URL.Path)))
	})
	return mux
}

func methodNotAllowed(allow string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a := allow
		if a == "" { // /instances/{ref}/{action}
			switch action := r.PathValue("action"); {
			case action == "events":
				a = "GET"
			case powerActions[action] != nil:
				a = "POST"
			default:
				writeError(w, notFound("no such API route: %s %s", r.Method, truncate(r.URL.Path)))
				return
			}
		}
		w.Header().Set("Allow", a)
		writeError(w, &apiError{status: http.StatusMethodNotAllowed, msg: fmt.Sprintf("method %s is not allowed on %s (allowed: %s)", r.Method, truncate(r.URL.Path), a)})
	}
}

// handleRoot is where an expired token's 302 sends a browser.
func (s *Server) handleRoot(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = io.WriteString(w, "<!DOCTYPE html>\n<title>Shakenfist cluster simulator</title>\n<p>This is shakectl's Shakenfist cluster simulator. Log in with POST /auth {\"namespace\": ..., \"key\": ...}.</p>\n")
}

func readBody(r *http.Request, optional bool) ([]byte, *apiError) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &apiError{status: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("request body is larger than the %d byte limit", maxBodyBytes)}
		}
		return nil, badRequest("cannot read the request body: %s", err)
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		if optional {
			return nil, nil
		}
		return nil, badRequest("the request body is empty: expected a JSON object")
	}
	return data, nil
}

// decodeJSON reads the body into dst strictly; an absent body is fine when
// optional (GET and DELETE take their parameters as an optional body).
func decodeJSON(r *http.Request, dst any, optional bool) *apiError {
	data, err := readBody(r, optional)
	if err != nil || data == nil {
		return err
	}
	return unmarshalStrict(data, dst)
}

// --- authentication ---

func (s *Server) handleAuth(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Namespace *string `json:"namespace"`
		Key       *string `json:"key"`
	}
	if err := decodeJSON(r, &req, false); err != nil {
		writeError(w, err)
		return
	}
	if req.Namespace == nil || req.Key == nil {
		writeError(w, badRequest("namespace and key are required"))
		return
	}
	nsOK := subtle.ConstantTimeCompare([]byte(*req.Namespace), []byte(s.cfg.AuthNamespace)) == 1
	keyOK := subtle.ConstantTimeCompare([]byte(*req.Key), []byte(s.cfg.AuthKey)) == 1
	if !nsOK || !keyOK {
		writeError(w, &apiError{status: http.StatusUnauthorized, msg: "unauthorized"})
		return
	}
	tok := newToken()
	now := time.Now()
	s.mu.Lock()
	s.pruneTokens(now)
	s.tokens[tok] = token{namespace: s.cfg.AuthNamespace, expires: now.Add(s.cfg.TokenTTL)}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]string{"access_token": tok})
}

func acceptsJSON(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		if strings.Contains(strings.ToLower(v), "application/json") {
			return true
		}
	}
	return false
}

type authedHandler func(w http.ResponseWriter, r *http.Request, caller string)

// authed checks the bearer token. An expired one gets a 401 from API
// clients but a 302 to the login page when the request does not ask for
// JSON, as the real server (a browser-facing Flask app) does.
func (s *Server) authed(h authedHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		authz := r.Header.Get("Authorization")
		if authz == "" {
			writeError(w, &apiError{status: http.StatusUnauthorized, msg: "missing Authorization header: authenticate with POST /auth, then send Authorization: Bearer TOKEN"})
			return
		}
		scheme, tok, ok := strings.Cut(authz, " ")
		tok = strings.TrimSpace(tok)
		if !ok || !strings.EqualFold(scheme, "Bearer") || tok == "" {
			writeError(w, &apiError{status: http.StatusUnauthorized, msg: "the Authorization header must be Bearer TOKEN"})
			return
		}
		s.mu.Lock()
		t, found := s.tokens[tok]
		s.mu.Unlock()
		switch {
		case !found:
			writeError(w, &apiError{status: http.StatusUnauthorized, msg: "invalid token"})
			return
		case !time.Now().Before(t.expires):
			if !acceptsJSON(r) {
				http.Redirect(w, r, "/", http.StatusFound)
				return
			}
			writeError(w, &apiError{status: http.StatusUnauthorized, msg: "token has expired"})
			return
		}
		h(w, r, t.namespace)
	}
}

func (s *Server) handleNamespaces(w http.ResponseWriter, r *http.Request, caller string) {
	if err := decodeJSON(r, &struct{}{}, true); err != nil {
		writeError(w, err)
		return
	}
	type nsJSON struct {
		Name     string         `json:"name"`
		KeyNames []string       `json:"key_names"`
		Metadata map[string]any `json:"metadata"`
	}
	out := []nsJSON{}
	for _, name := range sortedKeys(s.namespaces) {
		if !visible(caller, name) {
			continue
		}
		keys := []string{}
		if name == s.cfg.AuthNamespace {
			keys = append(keys, s.cfg.AuthKeyName)
		}
		out = append(out, nsJSON{Name: name, KeyNames: keys, Metadata: map[string]any{}})
	}
	writeJSON(w, http.StatusOK, out)
}

// --- instances ---

type diskJSON struct {
	Size *int64  `json:"size"`
	Base *string `json:"base"`
	Bus  *string `json:"bus"`
	Type string  `json:"type"`
}

type instanceJSON struct {
	UUID         string         `json:"uuid"`
	Name         string         `json:"name"`
	Namespace    string         `json:"namespace"`
	CPUs         int64          `json:"cpus"`
	Memory       int64          `json:"memory"`
	DiskSpec     []diskJSON     `json:"disk_spec"`
	SSHKey       *string        `json:"ssh_key"`
	UserData     *string        `json:"user_data"`
	Node         *string        `json:"node"`
	State        string         `json:"state"`
	StateUpdated float64        `json:"state_updated"`
	PowerState   string         `json:"power_state"`
	ErrorMessage *string        `json:"error_message"`
	Metadata     map[string]any `json:"metadata"`
	Version      int            `json:"version"`
}

// objectVersion is the instance object format version the view reports.
const objectVersion = 12

// instanceView snapshots an instance for the wire; callers hold s.mu.
func instanceView(i *instance) instanceJSON {
	v := instanceJSON{
		UUID:         i.uuid,
		Name:         i.spec.name,
		Namespace:    i.namespace,
		CPUs:         i.spec.cpus,
		Memory:       i.spec.memory,
		DiskSpec:     make([]diskJSON, len(i.spec.disks)),
		SSHKey:       i.spec.sshKey,
		UserData:     i.spec.userData,
		State:        i.state,
		StateUpdated: epoch(i.stateUpdated),
		PowerState:   i.powerState,
		ErrorMessage: i.errorMessage,
		Metadata:     i.spec.metadata,
		Version:      objectVersion,
	}
	for k, d := range i.spec.disks {
		v.DiskSpec[k] = diskJSON{Base: d.base, Bus: d.bus, Type: d.kind}
		if d.size > 0 {
			size := d.size
			v.DiskSpec[k].Size = &size
		}
	}
	if i.node != "" {
		n := i.node
		v.Node = &n
	}
	if v.Metadata == nil {
		v.Metadata = map[string]any{}
	}
	return v
}

type listRequest struct {
	All *bool `json:"all"`
}

func (s *Server) handleListInstances(w http.ResponseWriter, r *http.Request, caller string) {
	listVisible(s, w, r, caller, s.instances, instanceView)
}

// listed is what a list answer needs of a record: its creation order, its
// namespace and its state.
type listed interface {
	listing() (seq uint64, namespace, state string)
}

func (i *instance) listing() (uint64, string, string) { return i.seq, i.namespace, i.state }
func (n *network) listing() (uint64, string, string)  { return n.seq, n.namespace, n.state }

// listVisible answers GET /instances and GET /networks alike: the records
// the caller may see, oldest first, deleted ones only when the body asks for
// "all", each rendered by view under the lock.
func listVisible[R listed, J any](s *Server, w http.ResponseWriter, r *http.Request, caller string, records map[string]R, view func(R) J) {
	var req listRequest
	if err := decodeJSON(r, &req, true); err != nil {
		writeError(w, err)
		return
	}
	all := req.All != nil && *req.All
	s.mu.Lock()
	list := make([]R, 0, len(records))
	for _, rec := range records {
		_, ns, state := rec.listing()
		if visible(caller, ns) && (all || state != stateDeleted) {
			list = append(list, rec)
		}
	}
	sort.Slice(list, func(a, b int) bool {
		sa, _, _ := list[a].listing()
		sb, _, _ := list[b].listing()
		return sa < sb
	})
	out := make([]J, len(list))
	for k, rec := range list {
		out[k] = view(rec)
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleCreateInstance(w http.ResponseWriter, r *http.Request, caller string) {
	scripted := s.nextScripted()
	if scripted != nil && scripted.Status != 0 {
		_, _ = io.Copy(io.Discard, r.Body)
		for k, v := range scripted.Headers {
			w.Header().Set(k, v)
		}
		writeJSON(w, scripted.Status, scripted.cannedBody())
		return
	}
	data, err := readBody(r, false)
	if err != nil {
		writeError(w, err)
		return
	}
	spec, err := parseCreate(data)
	if err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	inst, err := s.createInstance(spec, caller, scripted)
	var view instanceJSON
	if err == nil {
		view = instanceView(inst)
	}
	s.mu.Unlock()
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, view)
}

func (s *Server) handleShowInstance(w http.ResponseWriter, r *http.Request, caller string) {
	showVisible(s, w, r, func() (*instance, *apiError) { return s.findInstance(r.PathValue("ref"), caller) }, instanceView)
}

// showVisible answers GET /instances/{ref} and GET /networks/{ref} alike:
// the body may name a namespace and nothing else, the record is found and
// rendered under the lock.
func showVisible[R any, J any](s *Server, w http.ResponseWriter, r *http.Request, find func() (R, *apiError), view func(R) J) {
	if err := decodeJSON(r, &struct {
		Namespace *string `json:"namespace"`
	}{}, true); err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	rec, err := find()
	var out J
	if err == nil {
		out = view(rec)
	}
	s.mu.Unlock()
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleDeleteInstance(w http.ResponseWriter, r *http.Request, caller string) {
	var req struct {
		Namespace *string `json:"namespace"`
	}
	if err := decodeJSON(r, &req, true); err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	i, err := s.findInstance(r.PathValue("ref"), caller)
	switch {
	case err != nil:
	case i.state == stateDeleted:
		err = notFound("instance not found")
	case req.Namespace != nil && *req.Namespace != i.namespace:
		err = notFound("instance not in namespace")
	}
	var view instanceJSON
	if err == nil {
		s.deleteInstance(i, "delete request from REST API")
		view = instanceView(i)
	}
	s.mu.Unlock()
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, view)
}

func (s *Server) handleInstanceEvents(w http.ResponseWriter, r *http.Request, caller string) {
	if err := decodeJSON(r, &struct{}{}, true); err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	i, err := s.findInstance(r.PathValue("ref"), caller)
	var out []event
	if err == nil {
		out = slices.Clone(i.events)
	}
	s.mu.Unlock()
	if err != nil {
		writeError(w, err)
		return
	}
	if out == nil {
		out = []event{}
	}
	writeJSON(w, http.StatusOK, out)
}

// powerActions map each action to the power states it may start from and
// the state it leaves.
var powerActions = map[string]*struct {
	from []string
	to   string
}{
	"poweron":    {[]string{"off", "crashed", "on"}, "on"},
	"poweroff":   {[]string{"on", "paused", "crashed", "off"}, "off"},
	"rebootsoft": {[]string{"on"}, "on"},
	"reboothard": {[]string{"on", "crashed"}, "on"},
	"pause":      {[]string{"on", "paused"}, "paused"},
	"unpause":    {[]string{"paused", "on"}, "on"},
}

func (s *Server) handlePowerAction(w http.ResponseWriter, r *http.Request, caller string) {
	action := r.PathValue("action")
	act := powerActions[action]
	if act == nil {
		writeError(w, notFound("no such API route: %s %s", r.Method, truncate(r.URL.Path)))
		return
	}
	if err := decodeJSON(r, &struct {
		Namespace *string `json:"namespace"`
	}{}, true); err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	i, err := s.findInstance(r.PathValue("ref"), caller)
	switch {
	case err != nil:
	case i.state == stateDeleted:
		err = notFound("instance not found")
	case i.state != stateCreated:
		err = &apiError{status: http.StatusNotAcceptable, msg: fmt.Sprintf("instance %s is not ready (%s)", i.uuid, i.state)}
	case !slices.Contains(act.from, i.powerState):
		err = &apiError{status: http.StatusNotAcceptable, msg: fmt.Sprintf("instance %s cannot %s while its power state is %s", i.uuid, action, i.powerState)}
	}
	var view instanceJSON
	if err == nil {
		i.powerState = act.to
		s.addEvent(i, i.node, "power", action, "power state is now "+act.to)
		view = instanceView(i)
	}
	s.mu.Unlock()
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, view)
}

// --- networks ---

type networkJSON struct {
	UUID        string `json:"uuid"`
	Name        string `json:"name"`
	Namespace   string `json:"namespace"`
	Netblock    string `json:"netblock"`
	ProvideDHCP bool   `json:"provide_dhcp"`
	ProvideNAT  bool   `json:"provide_nat"`
	State       string `json:"state"`
	VXID        int    `json:"vxid"`
}

func networkView(n *network) networkJSON {
	return networkJSON{
		UUID: n.uuid, Name: n.name, Namespace: n.namespace, Netblock: n.prefix.String(),
		ProvideDHCP: n.dhcp, ProvideNAT: n.nat, State: n.state, VXID: n.vxid,
	}
}

// maxLiveNetworks bounds the networks a client can make the simulator hold.
const maxLiveNetworks = 4096

func (s *Server) handleListNetworks(w http.ResponseWriter, r *http.Request, caller string) {
	listVisible(s, w, r, caller, s.networks, networkView)
}

func (s *Server) handleCreateNetwork(w http.ResponseWriter, r *http.Request, caller string) {
	var req struct {
		Netblock    *string `json:"netblock"`
		Name        *string `json:"name"`
		ProvideDHCP *bool   `json:"provide_dhcp"`
		ProvideNAT  *bool   `json:"provide_nat"`
		Namespace   *string `json:"namespace"`
	}
	if err := decodeJSON(r, &req, false); err != nil {
		writeError(w, err)
		return
	}
	switch {
	case req.Name == nil:
		writeError(w, badRequest("name is required"))
		return
	case !dnsLabel.MatchString(*req.Name):
		writeError(w, badRequest("network name %q is not usable: 1 to 63 letters, digits or hyphens, not starting or ending with a hyphen", truncate(*req.Name)))
		return
	case req.Netblock == nil:
		writeError(w, badRequest("netblock is required, e.g. 10.0.0.0/24"))
		return
	}
	prefix, err := parseNetblock(*req.Netblock)
	if err != nil {
		writeError(w, err)
		return
	}
	if err := nonEmpty("namespace", req.Namespace); err != nil {
		writeError(w, err)
		return
	}
	n := newNetwork(prefix)
	n.uuid, n.name, n.namespace, n.state = newUUID(), *req.Name, caller, stateCreated
	n.dhcp = req.ProvideDHCP == nil || *req.ProvideDHCP
	n.nat = req.ProvideNAT != nil && *req.ProvideNAT

	s.mu.Lock()
	switch {
	case req.Namespace != nil && !s.namespaceUsable(caller, *req.Namespace):
		err = notFound("namespace %s not found", truncate(*req.Namespace))
	case s.liveNetworks() >= maxLiveNetworks:
		err = &apiError{status: http.StatusForbidden, msg: fmt.Sprintf("network quota exceeded: the simulator holds at most %d networks", maxLiveNetworks)}
	}
	var view networkJSON
	if err == nil {
		if req.Namespace != nil {
			n.namespace = *req.Namespace
		}
		s.seq++
		s.vxid++
		n.seq, n.vxid = s.seq, s.vxid
		s.networks[n.uuid] = n
		view = networkView(n)
	}
	s.mu.Unlock()
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, view)
}

func (s *Server) liveNetworks() int {
	live := 0
	for _, n := range s.networks {
		if n.state != stateDeleted {
			live++
		}
	}
	return live
}

func (s *Server) handleShowNetwork(w http.ResponseWriter, r *http.Request, caller string) {
	showVisible(s, w, r, func() (*network, *apiError) { return s.findNetwork(r.PathValue("ref"), caller, true) }, networkView)
}

// handleDeleteNetwork schedules the teardown as a cluster operation and
// answers 202, as the real server does; the network reads "deleted" after
// the create time.
func (s *Server) handleDeleteNetwork(w http.ResponseWriter, r *http.Request, caller string) {
	var req struct {
		Namespace *string `json:"namespace"`
	}
	if err := decodeJSON(r, &req, true); err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.findNetwork(r.PathValue("ref"), caller, true)
	switch {
	case err != nil:
	case n.state == stateDeleted:
		err = notFound("network not found")
	case req.Namespace != nil && *req.Namespace != n.namespace:
		err = notFound("network not in namespace")
	case n.holders() > 0:
		err = &apiError{status: http.StatusConflict, msg: fmt.Sprintf("network %s still has %d instances with addresses on it; delete them first", n.uuid, n.holders())}
	}
	if err != nil {
		writeError(w, err)
		return
	}
	if s.cfg.CreateTime == 0 {
		n.state = stateDeleted
		writeJSON(w, http.StatusOK, networkView(n))
		return
	}
	op := newUUID()
	if n.state != stateDeleting {
		n.state = stateDeleting
		s.after(s.cfg.CreateTime, func() { n.state = stateDeleted })
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"uuid": n.uuid, "state": stateDeleting, "operation": op})
}

// --- nodes ---

type nodeJSON struct {
	Name         string   `json:"name"`
	IP           string   `json:"ip"`
	State        string   `json:"state"`
	LastSeen     float64  `json:"lastseen"`
	Version      string   `json:"version"`
	IsHypervisor bool     `json:"is_hypervisor"`
	Tags         []string `json:"tags"`
	CPUMax       int64    `json:"cpu_max"`
	CPUUsed      int64    `json:"cpu_used"`
	MemoryMax    int64    `json:"memory_max"`
	MemoryUsed   int64    `json:"memory_used"`
	DiskMax      int64    `json:"disk_max"`
	DiskUsed     int64    `json:"disk_used"`
}

// simVersion is the software version simulated nodes report.
const simVersion = "0.8.3-sim"

func nodeView(n *node, now time.Time) nodeJSON {
	tags := append([]string{}, n.tags...)
	return nodeJSON{
		Name: n.name, IP: n.ip, State: stateCreated, LastSeen: epoch(now), Version: simVersion,
		IsHypervisor: n.hypervisor, Tags: tags,
		CPUMax: n.capacity.cpus, CPUUsed: n.used.cpus,
		MemoryMax: n.capacity.memory, MemoryUsed: n.used.memory,
		DiskMax: n.capacity.disk, DiskUsed: n.used.disk,
	}
}

// Nodes are an administrative view: only the system namespace may list them.
func (s *Server) handleListNodes(w http.ResponseWriter, r *http.Request, caller string) {
	if err := decodeJSON(r, &struct{}{}, true); err != nil {
		writeError(w, err)
		return
	}
	if caller != adminNamespace {
		writeError(w, &apiError{status: http.StatusUnauthorized, msg: "unauthorized"})
		return
	}
	now := time.Now()
	s.mu.Lock()
	out := make([]nodeJSON, len(s.nodes))
	for k, n := range s.nodes {
		out[k] = nodeView(n, now)
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleShowNode(w http.ResponseWriter, r *http.Request, caller string) {
	if err := decodeJSON(r, &struct{}{}, true); err != nil {
		writeError(w, err)
		return
	}
	if caller != adminNamespace {
		writeError(w, &apiError{status: http.StatusUnauthorized, msg: "unauthorized"})
		return
	}
	s.mu.Lock()
	n, ok := s.nodeByName[r.PathValue("name")]
	var view nodeJSON
	if ok {
		view = nodeView(n, time.Now())
	}
	s.mu.Unlock()
	if !ok {
		writeError(w, notFound("node %s not found", truncate(r.PathValue("name"))))
		return
	}
	writeJSON(w, http.StatusOK, view)
}
