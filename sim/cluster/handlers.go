package cluster

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"
)

// route is one registered resource: its path and the handler per method.
// Flask-RESTful answers a registered path with a wrong method 405 JSON, an
// unregistered path Werkzeug's HTML 404.
type route struct {
	path    string
	methods map[string]http.HandlerFunc
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	type m = map[string]http.HandlerFunc
	// Routes of shakenfist/external_api/app.py at da448b1a that the
	// simulator serves; the 2026 additions follow below.
	rs := []route{
		{"/{$}", m{"GET": s.handleRoot}},
		{"/auth", m{"POST": s.handleAuth}},
		{"/auth/namespaces", m{"GET": s.authed(s.handleListNamespaces), "POST": s.authed(s.handleCreateNamespace)}},
		{"/auth/namespaces/{namespace}", m{"GET": s.authed(s.handleShowNamespace), "DELETE": s.authed(s.handleDeleteNamespace)}},
		{"/auth/namespaces/{namespace}/keys", m{"GET": s.authed(s.handleListKeys), "POST": s.authed(s.handleAddKey)}},
		{"/auth/namespaces/{namespace}/keys/{key_name}", m{"PUT": s.authed(s.handleUpdateKey), "DELETE": s.authed(s.handleDeleteKey)}},
		{"/auth/namespaces/{namespace}/metadata", m{"GET": s.authed(s.handleNamespaceMetadataGet), "POST": s.authed(s.handleNamespaceMetadataSet("AuthMetadatasEndpoint.post"))}},
		{"/auth/namespaces/{namespace}/metadata/{key}", m{"PUT": s.authed(s.handleNamespaceMetadataSet("AuthMetadataEndpoint.put")), "DELETE": s.authed(s.handleNamespaceMetadataDelete)}},
		{"/auth/namespaces/{namespace}/trust", m{"POST": s.authed(s.trustChange(true))}},
		{"/auth/namespaces/{namespace}/trust/{external_namespace}", m{"DELETE": s.authed(s.trustChange(false))}},
		{"/artifacts", m{"GET": s.authed(s.handleListArtifacts), "POST": s.authed(s.handleCacheArtifact), "DELETE": s.authed(s.handleDeleteAllArtifacts)}},
		// artifact.py, blob.py, label.py, upload.py (app.py da448b1a); artifacts.go.
		// /artifacts/upload/<artifact_name>: Go's mux finds it ambiguous
		// beside /artifacts/{ref}/events, so it is matched here.
		{"/artifacts/{ref}/{artifact_name}", m{"POST": s.authed(s.handleArtifactUpload)}},
		{"/artifacts/{ref}", m{"GET": s.authed(s.handleShowArtifact), "DELETE": s.authed(s.handleDeleteArtifact)}},
		{"/artifacts/{ref}/events", m{"GET": s.authed(s.handleArtifactEvents)}},
		{"/artifacts/{ref}/metadata", m{"GET": s.authed(s.handleArtifactMetadata("ArtifactMetadatasEndpoint.get")), "POST": s.authed(s.handleArtifactMetadata("ArtifactMetadatasEndpoint.post"))}},
		{"/artifacts/{ref}/metadata/{key}", m{"PUT": s.authed(s.handleArtifactMetadata("ArtifactMetadataEndpoint.put")), "DELETE": s.authed(s.handleArtifactMetadata("ArtifactMetadataEndpoint.delete"))}},
		{"/artifacts/{ref}/share", m{"POST": s.authed(s.handleShare(true))}},
		{"/artifacts/{ref}/unshare", m{"POST": s.authed(s.handleShare(false))}},
		{"/artifacts/{ref}/versions", m{"GET": s.authed(s.handleArtifactVersions), "POST": s.authed(s.handleSetMaxVersions)}},
		{"/artifacts/{ref}/versions/{version_id}", m{"DELETE": s.authed(s.handleDeleteVersion)}},
		{"/blobs", m{"GET": s.authed(s.handleListBlobs)}},
		{"/blobs/{blob_uuid}", m{"GET": s.authed(s.handleShowBlob)}},
		{"/blobs/{blob_uuid}/data", m{"GET": s.authed(s.handleBlobData)}},
		{"/blob_checksums/{algorithm}/{hash}", m{"GET": s.authed(s.handleBlobChecksum)}},
		{"/label/{label_name...}", m{"GET": s.authed(s.handleLabel), "POST": s.authed(s.handleLabel), "DELETE": s.authed(s.handleLabel)}},
		{"/upload", m{"POST": s.authed(s.handleCreateUpload)}},
		// Agent execute and operations (instance.py, agentoperation.py); agent.go.
		{"/instances/{ref}/agent/execute", m{"POST": s.authed(s.handleAgentExecute)}},
		{"/instances/{ref}/agent/put", m{"POST": s.authed(s.handleAgentPut)}},
		{"/instances/{ref}/agent/get", m{"POST": s.authed(s.handleAgentGet)}},
		{"/instances/{ref}/screenshot", m{"GET": s.authed(s.handleScreenshot)}},
		{"/agentoperations/{operation_uuid}", m{"GET": s.authed(s.handleShowAgentOp)}},
		{"/upload/{upload_uuid}", m{"POST": s.authed(s.handleUploadData)}},
		{"/upload/{upload_uuid}/truncate/{offset}", m{"POST": s.authed(s.handleUploadTruncate)}},
		{"/instances", m{"GET": s.authed(s.handleListInstances), "POST": s.authed(s.handleCreateInstance), "DELETE": s.authed(s.handleDeleteAllInstances)}},
		{"/instances/{ref}", m{"GET": s.authed(s.handleShowInstance), "DELETE": s.authed(s.handleDeleteInstance)}},
		{"/instances/{ref}/events", m{"GET": s.authed(s.handleInstanceEvents)}},
		{"/instances/{ref}/interfaces", m{"GET": s.authed(s.handleInstanceInterfaces), "POST": s.authed(s.handleAddInterface)}},
		{"/instances/{ref}/metadata", m{"GET": s.authed(s.metadataGet(kindInstance)), "POST": s.authed(s.metadataSet(kindInstance, "InstanceMetadatasEndpoint.post"))}},
		{"/instances/{ref}/metadata/{key}", m{"PUT": s.authed(s.metadataSet(kindInstance, "InstanceMetadataEndpoint.put")), "DELETE": s.authed(s.metadataDelete(kindInstance, "InstanceMetadataEndpoint.delete"))}},
		{"/instances/{ref}/consoledata", m{"GET": s.authed(s.handleConsoleData), "DELETE": s.authed(s.handleConsoleDelete)}},
		{"/instances/{ref}/snapshot", m{"GET": s.authed(s.handleListSnapshots), "POST": s.authed(s.handleSnapshot)}},
		{"/networks", m{"GET": s.authed(s.handleListNetworks), "POST": s.authed(s.handleCreateNetwork), "DELETE": s.authed(s.handleDeleteAllNetworks)}},
		{"/networks/{ref}", m{"GET": s.authed(s.handleShowNetwork), "DELETE": s.authed(s.handleDeleteNetwork)}},
		{"/networks/{ref}/events", m{"GET": s.authed(s.handleNetworkEvents)}},
		{"/networks/{ref}/interfaces", m{"GET": s.authed(s.handleNetworkInterfaces)}},
		{"/networks/{ref}/addresses", m{"GET": s.authed(s.handleNetworkAddresses)}},
		{"/networks/{ref}/ping/{address}", m{"GET": s.authed(s.handleNetworkPing)}},
		{"/networks/{ref}/metadata", m{"GET": s.authed(s.metadataGet(kindNetwork)), "POST": s.authed(s.metadataSet(kindNetwork, "NetworkMetadatasEndpoint.post"))}},
		{"/networks/{ref}/metadata/{key}", m{"PUT": s.authed(s.metadataSet(kindNetwork, "NetworkMetadataEndpoint.put")), "DELETE": s.authed(s.metadataDelete(kindNetwork, "NetworkMetadataEndpoint.delete"))}},
		{"/interfaces/{ref}", m{"GET": s.authed(s.handleShowInterface)}},
		{"/interfaces/{ref}/metadata", m{"GET": s.authed(s.metadataGet(kindInterface)), "POST": s.authed(s.metadataSet(kindInterface, "InterfaceMetadatasEndpoint.post"))}},
		{"/interfaces/{ref}/metadata/{key}", m{"PUT": s.authed(s.metadataSet(kindInterface, "InterfaceMetadataEndpoint.put")), "DELETE": s.authed(s.metadataDelete(kindInterface, "InterfaceMetadataEndpoint.delete"))}},
		{"/nodes", m{"GET": s.authed(s.handleListNodes)}},
		{"/nodes/{ref}", m{"GET": s.authed(s.handleShowNode), "DELETE": s.authed(s.handleDeleteNode)}},
		{"/nodes/{ref}/events", m{"GET": s.authed(s.handleNodeEvents)}},
		{"/nodes/{ref}/metadata", m{"GET": s.authed(s.metadataGet(kindNode)), "POST": s.authed(s.metadataSet(kindNode, "NodeMetadatasEndpoint.post"))}},
		{"/nodes/{ref}/metadata/{key}", m{"PUT": s.authed(s.metadataSet(kindNode, "NodeMetadataEndpoint.put")), "DELETE": s.authed(s.metadataDelete(kindNode, "NodeMetadataEndpoint.delete"))}},
	}
	if s.is2026() {
		rs = append(rs,
			// HEALTH_PROBE_PATHS (base.py @565e36e6e): no token needed.
			route{"/livez", m{"GET": s.handleHealth}},
			route{"/readyz", m{"GET": s.handleHealth}},
			route{"/healthz", m{"GET": s.handleHealth}},
			// Namespace capacity claims (client-python docs/namespace-claims.md
			// @8120e80a; server table namespace_claims).
			route{"/auth/namespaces/{namespace}/claims", m{"GET": s.authed(s.handleListClaims), "POST": s.authed(s.handleCreateClaim)}},
			route{"/auth/namespaces/{namespace}/claims/{claim}", m{"GET": s.authed(s.handleShowClaim), "PUT": s.authed(s.handleUpdateClaim), "DELETE": s.authed(s.handleDeleteClaim)}},
			// external_api/clusteroperation.py @1bd1c112.
			route{"/clusteroperations", m{"GET": s.authed(s.handleOpsForTarget)}},
			route{"/clusteroperations/{op_type}/{op_uuid}", m{"GET": s.authed(s.handleShowOp)}},
			route{"/clusteroperations/{op_uuid}/chain", m{"GET": s.authed(s.handleOpChain)}},
			// Routed in 2026 (capability cluster-resources); at da448b1a
			// AdminREsourcesEndpoint existed but app.py never routed it.
			route{"/admin/resources", m{"GET": s.authed(s.handleAdminResources)}},
			// New in the 2026 app.py (code index id 59153739580); blob_routes.go.
			route{"/blobs/{blob_uuid}/events", m{"GET": s.authed(s.handleBlobEvents)}},
			route{"/blobs/{blob_uuid}/checksum/{algorithm}", m{"GET": s.authed(s.handleBlobSingleChecksum)}},
			route{"/artifacts/{ref}/clusteroperations", m{"GET": s.authed(s.handleArtifactOperations)}},
		)
	}
	rs = append(rs, s.blobMetadataRoutes()...) // blob_metadata.go
	for action, name := range powerEndpoints {
		rs = append(rs, route{"/instances/{ref}/" + action, map[string]http.HandlerFunc{"POST": s.authed(s.handlePowerAction(action, name))}})
	}
	// A Werkzeug converter's test of a path's segments: a path it refuses
	// is unrouted (HTML 404), whatever the method or token.
	converters := map[string]func(*http.Request) bool{
		"/upload/{upload_uuid}/truncate/{offset}": s.truncateOffsetRouted,
		// /artifacts/upload/<artifact_name> is a static "upload": any other
		// second segment is no route of app.py (e.g. 2024's
		// /artifacts/<ref>/clusteroperations).
		"/artifacts/{ref}/{artifact_name}": func(r *http.Request) bool { return r.PathValue("ref") == "upload" },
	}
	for _, rt := range rs {
		allow := make([]string, 0, len(rt.methods)+2)
		for m := range rt.methods {
			allow = append(allow, m)
		}
		if _, ok := rt.methods["GET"]; ok {
			allow = append(allow, "HEAD")
		}
		allow = append(allow, "OPTIONS")
		sort.Strings(allow)
		methods, match := rt.methods, converters[rt.path]
		mux.HandleFunc(rt.path, func(w http.ResponseWriter, r *http.Request) {
			if match != nil && !match(r) {
				writeFlask404(w)
				return
			}
			m := r.Method
			if m == http.MethodHead {
				m = http.MethodGet
			}
			h, ok := methods[m]
			if !ok {
				writeFlask405(w, strings.Join(allow, ", "))
				return
			}
			h(w, r)
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { writeFlask404(w) })
	return mux
}

// handleRoot is app.py's Root: the capability list sf-client greps, served
// without authentication.
func (s *Server) handleRoot(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if s.is2026() {
		_, _ = io.WriteString(w, rootHTML2026)
		return
	}
	_, _ = io.WriteString(w, rootHTML)
}

// namespaceVersion etc. are the object schema versions at da448b1a.
const (
	namespaceVersion = 5
	instanceVersion  = 14
	networkVersion   = 6
	interfaceVersion = 3
	nodeVersion      = 7
)

// --- instances (shakenfist/external_api/instance.py, da448b1a) ---

// instanceView is Instance.external_view; callers hold s.mu. In 2026 the
// node and requested_placement are node UUIDs.
func (s *Server) instanceView(i *instance) map[string]any {
	sp := i.spec
	disks := make([]any, len(sp.disks))
	devices := make([]any, 0, len(sp.disks))
	for k, d := range sp.disks {
		c := make(map[string]any, len(d)+2)
		for dk, dv := range d {
			c[dk] = dv
		}
		if _, ok := c["disk_base"]; !ok {
			c["disk_base"] = nil
		}
		disks[k] = c
		bus := defaultDiskBus
		if b, ok := d["bus"].(string); ok && b != "" {
			bus = b
		}
		devices = append(devices, map[string]any{
			"device": diskDevice(bus, k), "bus": bus, "size": d["size"], "blob_uuid": nil, "snapshot_ignores": false,
		})
	}
	ifaces := make([]any, 0, len(i.ifaces))
	for _, f := range i.ifaces {
		ifaces = append(ifaces, interfaceView(f))
	}
	var node any
	if n := s.nodeByName[i.node]; n != nil {
		node = s.nodeRef(n)
	}
	var errMsg any
	if i.errorMessage != nil {
		errMsg = *i.errorMessage
	}
	md := i.spec.metadata
	if md == nil {
		md = map[string]any{}
	}
	v := map[string]any{
		"uuid": i.uuid, "state": i.state, "metadata": md, "version": instanceVersion,
		"cpus": sp.cpus, "memory": sp.memory, "disk_spec": disks, "name": sp.name, "namespace": i.namespace,
		"ssh_key": sp.sshKey, "user_data": sp.userData, "video": sp.video, "uefi": sp.uefi,
		"configdrive": sp.configdrive, "nvram_template": sp.nvram, "secure_boot": sp.secureBoot,
		"machine_type": machineType(sp), "side_channels": sp.sideChannels,
		"agent_state": nil, "agent_start_time": nil, "agent_system_boot_time": nil,
		"error_message": errMsg, "node": node, "power_state": i.powerState,
		"console_port": nil, "vdi_port": nil, "vdi_tls_port": nil,
		"interfaces": ifaces, "disks": devices,
	}
	if n := s.nodeByName[sp.placedOn]; n != nil {
		v["requested_placement"] = s.nodeRef(n)
	}
	return v
}

func machineType(sp *instanceSpec) string {
	if truthy(sp.secureBoot) {
		return "q35"
	}
	return "pc"
}

// diskDevice is instance._get_disk_device.
func diskDevice(bus string, index int) string {
	switch bus {
	case "virtio":
		return "vd" + string(rune('a'+index%26))
	case "nvme":
		return fmt.Sprintf("nvme%d", index%10)
	}
	return "sd" + string(rune('a'+index%26))
}

func interfaceView(f *iface) map[string]any {
	var ipv4, floating any
	if f.ipv4 != "" {
		ipv4 = f.ipv4
	}
	if f.floating != nil {
		floating = *f.floating
	}
	return map[string]any{
		"uuid": f.uuid, "state": f.state, "metadata": f.metadata, "version": interfaceVersion,
		"network_uuid": f.network, "instance_uuid": f.instance, "macaddr": f.mac, "ipv4": ipv4,
		"order": f.order, "model": f.model, "floating": floating,
	}
}

// listed is what a list answer needs of a record: its creation order, its
// namespace and whether it is active.
type listed interface {
	listing() (seq uint64, namespace string, active bool)
}

func (i *instance) listing() (uint64, string, bool) {
	return i.seq, i.namespace, i.state != stateDeleted
}
func (n *network) listing() (uint64, string, bool) {
	return n.seq, n.namespace, n.state != stateDeleted
}

// listVisible answers GET /instances and GET /networks alike: the records
// the caller may see, oldest first, deleted ones only when the body asks for
// "all", each rendered by view under the lock.
func listVisible[R listed](s *Server, w http.ResponseWriter, r *http.Request, caller, handler string, records map[string]R, view func(R) map[string]any) {
	p, err := s.params(r, handler, "all")
	if err != nil {
		writeError(w, err)
		return
	}
	all := truthy(p["all"])
	s.mu.Lock()
	list := make([]R, 0, len(records))
	for _, rec := range records {
		_, ns, active := rec.listing()
		if visible(caller, ns) && (all || active) {
			list = append(list, rec)
		}
	}
	sort.Slice(list, func(a, b int) bool {
		sa, _, _ := list[a].listing()
		sb, _, _ := list[b].listing()
		return sa < sb
	})
	out := make([]map[string]any, len(list))
	for k, rec := range list {
		out[k] = view(rec)
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleListInstances(w http.ResponseWriter, r *http.Request, caller string) {
	listVisible(s, w, r, caller, "InstancesEndpoint.get", s.instances, s.instanceView)
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
	p, err := s.params(r, "InstancesEndpoint.post", instancesPostArgs...)
	if err == nil && s.is2026() {
		err = validateCreate2026(p)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	inst, err := s.createInstance(p, caller, scripted)
	var view map[string]any
	if err == nil {
		view = s.instanceView(inst)
	}
	s.mu.Unlock()
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, view)
}

// withInstance runs fn on the instance the path names, under the lock,
// after the body passed params' check.
func (s *Server) withInstance(w http.ResponseWriter, r *http.Request, caller, handler string, accepted []string, fn func(i *instance, p map[string]any) (any, *apiError)) {
	answerOne(s, w, r, handler, accepted, func() (*instance, *apiError) {
		return s.findInstance(r.PathValue("ref"), caller)
	}, fn)
}

func (s *Server) handleShowInstance(w http.ResponseWriter, r *http.Request, caller string) {
	s.withInstance(w, r, caller, "InstanceEndpoint.get", []string{"namespace"}, func(i *instance, _ map[string]any) (any, *apiError) {
		return s.instanceView(i), nil
	})
}

// handleDeleteInstance answers with the instance as it was; the delete then
// runs (on a real server as a queued task).
func (s *Server) handleDeleteInstance(w http.ResponseWriter, r *http.Request, caller string) {
	s.withInstance(w, r, caller, "InstanceEndpoint.delete", []string{"namespace"}, func(i *instance, p map[string]any) (any, *apiError) {
		if ns, ok := p["namespace"].(string); ok && ns != "" {
			if !s.nsLive(ns) {
				return nil, notFound("namespace not found")
			}
			if ns != i.namespace {
				return nil, notFound("instance not in namespace")
			}
		}
		if i.state == stateDeleted {
			return nil, notFound("instance not found")
		}
		view := s.instanceView(i)
		s.addEvent(i, apiFQDN, "delete request from REST API", nil)
		s.deleteInstance(i, "delete request from REST API")
		return view, nil
	})
}

func (s *Server) handleInstanceEvents(w http.ResponseWriter, r *http.Request, caller string) {
	s.withInstance(w, r, caller, "InstanceEventsEndpoint.get", []string{"event_type", "limit"}, func(i *instance, p map[string]any) (any, *apiError) {
		return s.readEvents(i.events, p)
	})
}

func (s *Server) handleInstanceInterfaces(w http.ResponseWriter, r *http.Request, caller string) {
	s.withInstance(w, r, caller, "InstanceInterfacesEndpoint.get", nil, func(i *instance, _ map[string]any) (any, *apiError) {
		out := []any{}
		for _, f := range i.ifaces {
			out = append(out, interfaceView(f))
		}
		return out, nil
	})
}

func (s *Server) handleShowInterface(w http.ResponseWriter, r *http.Request, caller string) {
	s.showOne(w, r, "InterfaceEndpoint.get", nil, func() (map[string]any, *apiError) {
		f, err := s.findInterface(r.PathValue("ref"), caller)
		if err != nil {
			return nil, err
		}
		return interfaceView(f), nil
	})
}

// showOne answers a GET of one record: the body checked against the
// handler's parameters, the record found and rendered under the lock.
func (s *Server) showOne(w http.ResponseWriter, r *http.Request, handler string, accepted []string, view func() (map[string]any, *apiError)) {
	if _, err := s.params(r, handler, accepted...); err != nil {
		writeError(w, err)
		return
	}
	s.mu.Lock()
	out, err := view()
	s.mu.Unlock()
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) findInterface(ref, caller string) (*iface, *apiError) {
	f, ok := s.ifaces[ref]
	if !ok {
		return nil, notFound("interface not found")
	}
	if i := s.instances[f.instance]; i == nil || !visible(caller, i.namespace) {
		return nil, notFound("interface not found")
	}
	return f, nil
}

// powerEndpoints maps each power action route to its resource class.
var powerEndpoints = map[string]string{
	"rebootsoft": "InstanceRebootSoftEndpoint.post",
	"reboothard": "InstanceRebootHardEndpoint.post",
	"poweroff":   "InstancePowerOffEndpoint.post",
	"poweron":    "InstancePowerOnEndpoint.post",
	"pause":      "InstancePauseEndpoint.post",
	"unpause":    "InstanceUnpauseEndpoint.post",
}

// handlePowerAction answers 200 null as the real handlers (which return
// None) do: 406 unless created (@requires_instance_active), 409 for
// reboot/pause/unpause of a powered-off instance (Instance.reboot etc.
// find no libvirt domain); poweron and poweroff are idempotent (da448b1a).
// 2026 (tests/external_api/test_instance_power.py @12f0a5ee): power on of
// a paused instance is a 409 that says to unpause it, and a power on or
// off the hypervisor fails is a 500 naming the failure (PowerFault).
func (s *Server) handlePowerAction(action, handler string) authedHandler {
	return func(w http.ResponseWriter, r *http.Request, caller string) {
		s.withInstance(w, r, caller, handler, nil, func(i *instance, _ map[string]any) (any, *apiError) {
			if i.state != stateCreated {
				return nil, &apiError{status: http.StatusNotAcceptable, msg: fmt.Sprintf("instance %s is not ready (%s)", i.uuid, i.state)}
			}
			verb := map[string]string{"rebootsoft": "reboot", "reboothard": "reboot", "pause": "pause", "unpause": "unpause"}[action]
			if verb != "" && i.powerState == "off" {
				return nil, &apiError{status: http.StatusConflict, msg: "Invalid lifecycle state: you cannot " + verb + " a powered off instance"}
			}
			if s.is2026() {
				if action == "poweron" && i.powerState == "paused" {
					return nil, &apiError{status: http.StatusConflict, msg: "Invalid lifecycle state: you cannot power on a paused instance; unpause it instead"}
				}
				if s.cfg.PowerFault != "" && (action == "poweron" || action == "poweroff") {
					what := map[string]string{"poweron": "power on", "poweroff": "power off"}[action]
					return nil, &apiError{status: http.StatusInternalServerError, msg: "instance failed to " + what + ": " + s.cfg.PowerFault}
				}
			}
			switch action {
			case "poweron", "rebootsoft", "reboothard", "unpause":
				i.powerState = "on"
			case "poweroff":
				i.powerState = "off"
			case "pause":
				i.powerState = "paused"
			}
			s.addEvent(i, i.node, action+" request from REST API", nil)
			return nil, nil
		})
	}
}

// --- metadata (the *MetadatasEndpoint / *MetadataEndpoint classes) ---

type kind int

const (
	kindInstance kind = iota
	kindNetwork
	kindInterface
	kindNode
)

// metadataOf finds the metadata map of the object the path names; callers
// hold s.mu.
func (s *Server) metadataOf(k kind, ref, caller string) (map[string]any, *apiError) {
	switch k {
	case kindInstance:
		i, err := s.findInstance(ref, caller)
		if err != nil {
			return nil, err
		}
		if i.spec.metadata == nil {
			i.spec.metadata = map[string]any{}
		}
		return i.spec.metadata, nil
	case kindNetwork:
		n, err := s.findNetwork(ref, caller, true)
		if err != nil {
			return nil, err
		}
		return n.metadata, nil
	case kindInterface:
		f, err := s.findInterface(ref, caller)
		if err != nil {
			return nil, err
		}
		return f.metadata, nil
	}
	n := s.findNode(ref)
	if n == nil {
		return nil, notFound("node not found")
	}
	return n.metadata, nil
}

func (s *Server) metadataGet(k kind) authedHandler {
	return func(w http.ResponseWriter, r *http.Request, caller string) {
		if k == kindNode && !s.requireAdmin(w, r, caller) {
			return
		}
		if _, err := s.params(r, "MetadatasEndpoint.get"); err != nil {
			writeError(w, err)
			return
		}
		s.mu.Lock()
		md, err := s.metadataOf(k, r.PathValue("ref"), caller)
		var out []byte
		if err == nil {
			out, _ = json.Marshal(md)
		}
		s.mu.Unlock()
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, json.RawMessage(out))
	}
}

// metadataSet is POST .../metadata (key in the body) and PUT
// .../metadata/{key}; instances validate as _validate_instance_metadata.
func (s *Server) metadataSet(k kind, handler string) authedHandler {
	return func(w http.ResponseWriter, r *http.Request, caller string) {
		if k == kindNode && !s.requireAdmin(w, r, caller) {
			return
		}
		p, err := s.params(r, handler, "key", "value")
		if err != nil {
			writeError(w, err)
			return
		}
		key, _ := p["key"].(string)
		if pk := r.PathValue("key"); pk != "" {
			key = pk
		}
		value := p["value"]
		switch {
		case key == "":
			err = badRequest("no key specified")
		case k == kindInstance:
			_, _, err = s.checkMetadata(map[string]any{key: value})
		case !truthy(value):
			err = badRequest("no value specified")
		}
		if err != nil {
			writeError(w, err)
			return
		}
		s.mu.Lock()
		md, err := s.metadataOf(k, r.PathValue("ref"), caller)
		if err == nil {
			md[key] = value
		}
		s.mu.Unlock()
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, nil)
	}
}

func (s *Server) metadataDelete(k kind, handler string) authedHandler {
	return func(w http.ResponseWriter, r *http.Request, caller string) {
		if k == kindNode && !s.requireAdmin(w, r, caller) {
			return
		}
		if _, err := s.params(r, handler, "value"); err != nil {
			writeError(w, err)
			return
		}
		s.mu.Lock()
		md, err := s.metadataOf(k, r.PathValue("ref"), caller)
		if err == nil {
			delete(md, r.PathValue("key"))
		}
		s.mu.Unlock()
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, nil)
	}
}

// --- networks (shakenfist/external_api/network.py, da448b1a) ---

// networkView is Network.external_view.
func networkView(n *network) map[string]any {
	var gw any
	if n.floatingGW != nil {
		gw = *n.floatingGW
	}
	return map[string]any{
		"uuid": n.uuid, "state": n.state, "metadata": n.metadata, "version": networkVersion,
		"name": n.name, "namespace": n.namespace, "netblock": n.prefix.String(),
		"provide_dhcp": n.dhcp, "provide_nat": n.nat, "provide_dns": n.dns,
		"floating_gateway": gw, "vxlan_id": n.vxid,
	}
}

// maxLiveNetworks bounds the networks a client can make the simulator hold.
const maxLiveNetworks = 4096

func (s *Server) handleListNetworks(w http.ResponseWriter, r *http.Request, caller string) {
	listVisible(s, w, r, caller, "NetworksEndpoint.get", s.networks, networkView)
}

func (s *Server) handleCreateNetwork(w http.ResponseWriter, r *http.Request, caller string) {
	p, err := s.params(r, "NetworksEndpoint.post", "netblock", "provide_dhcp", "provide_nat", "name", "namespace", "provide_dns")
	if err != nil {
		writeError(w, err)
		return
	}
	ns := caller
	if truthy(p["namespace"]) {
		ns, _ = p["namespace"].(string)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case !s.nsLive(ns):
		writeError(w, notFound("namespace not found"))
		return
	case ns != caller && caller != adminNamespace:
		writeError(w, &apiError{status: http.StatusUnauthorized, msg: "only admins can create resources in a different namespace"})
		return
	}
	nb, _ := p["netblock"].(string)
	prefix, err := parseNetblock(nb)
	if err != nil {
		writeError(w, err)
		return
	}
	if s.liveNetworks() >= maxLiveNetworks {
		writeError(w, &apiError{status: http.StatusForbidden, msg: fmt.Sprintf("network quota exceeded: the simulator holds at most %d networks", maxLiveNetworks)})
		return
	}
	n := newNetwork(prefix)
	name, _ := p["name"].(string)
	n.uuid, n.name, n.namespace, n.state = newUUID(), name, ns, stateInitial
	n.metadata = map[string]any{}
	// NetworksEndpoint.post: provide_dhcp as sent; a false provide_nat is
	// turned into true; provide_dns defaults to false.
	n.dhcp = truthy(p["provide_dhcp"])
	n.nat = true
	n.dns = truthy(p["provide_dns"])
	s.floatSeq++
	gw := fmt.Sprintf("192.168.%d.%d", 10+s.floatSeq/250, s.floatSeq%250+2)
	n.floatingGW = &gw
	s.seq++
	s.vxid++
	n.seq, n.vxid = s.seq, s.vxid
	n.created = epoch(time.Now())
	n.events = appendEvent(n.events, apiFQDN, "create request from REST API", nil)
	s.networks[n.uuid] = n
	if s.cfg.NetworkDeployTime == 0 {
		n.state = stateCreated
	}
	view := networkView(n)
	s.after(s.cfg.NetworkDeployTime, func() {
		if n.state == stateInitial {
			n.state = stateCreated
		}
	})
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
	s.showOne(w, r, "NetworkEndpoint.get", []string{"namespace"}, func() (map[string]any, *apiError) {
		n, err := s.findNetwork(r.PathValue("ref"), caller, true)
		if err != nil {
			return nil, err
		}
		return networkView(n), nil
	})
}

// --- nodes (shakenfist/external_api/node.py, da448b1a) ---

// simRelease is the software release simulated nodes report.
const simRelease = "0.8.0-shakectl-sim"

// nodeView is Node.external_view: the 2024 node has no capacity and no
// tags; tags are the simulator's own, for the seed's hard affinity, and are
// shown as node metadata.
func (s *Server) nodeView(n *node, k int, withMaintainer bool) map[string]any {
	id := n.name
	if s.is2026() {
		id = n.uuid // nodes have UUIDs in 2026 (config.NODE_UUID); the view's exact fields are unverified
	}
	v := map[string]any{
		"uuid": id, "state": nodeState(n), "metadata": n.metadata, "version": nodeVersion,
		"name": n.name, "ip": n.ip, "lastseen": epoch(time.Now()), "release": simRelease,
		"is_etcd_master": k == 0, "is_hypervisor": n.hypervisor,
		"is_network_node": k == 0, "is_eventlog_node": k == 0,
	}
	if withMaintainer {
		v["is_cluster_maintainer"] = k == 0
	}
	return v
}

func (s *Server) handleListNodes(w http.ResponseWriter, r *http.Request, caller string) {
	if !s.adminRequest(w, r, caller, "NodesEndpoint.get") {
		return
	}
	s.mu.Lock()
	out := make([]map[string]any, len(s.nodes))
	for k, n := range s.nodes {
		out[k] = s.nodeView(n, k, true)
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleShowNode(w http.ResponseWriter, r *http.Request, caller string) {
	if !s.adminRequest(w, r, caller, "NodeEndpoint.get") {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	found := s.findNode(r.PathValue("ref"))
	k := slices.IndexFunc(s.nodes, func(n *node) bool { return n == found })
	if k < 0 {
		writeError(w, notFound("node not found"))
		return
	}
	writeJSON(w, http.StatusOK, s.nodeView(s.nodes[k], k, false))
}
