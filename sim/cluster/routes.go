package cluster

import (
	"net/http"
	"sort"
	"strings"
)

// The route table: every path the simulator serves, in one place, with
// the Werkzeug routing rules (405 for a wrong method, HTML 404 for an
// unrouted path) applied to all of them.

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
		{"/auth/namespaces/{namespace}/trust", m{"POST": s.authed(s.trustChange(true))}},
		{"/auth/namespaces/{namespace}/trust/{external_namespace}", m{"DELETE": s.authed(s.trustChange(false))}},
		{"/artifacts", m{"GET": s.authed(s.handleListArtifacts), "POST": s.authed(s.handleCacheArtifact), "DELETE": s.authed(s.handleDeleteAllArtifacts)}},
		// artifact.py, blob.py, label.py, upload.py (app.py da448b1a); artifacts.go, blobs.go, labels.go, uploads.go.
		// /artifacts/upload/<artifact_name>: Go's mux finds it ambiguous
		// beside /artifacts/{ref}/events, so it is matched here.
		{"/artifacts/{ref}/{artifact_name}", m{"POST": s.authed(s.handleArtifactUpload)}},
		{"/artifacts/{ref}", m{"GET": s.authed(s.handleShowArtifact), "DELETE": s.authed(s.handleDeleteArtifact)}},
		{"/artifacts/{ref}/events", m{"GET": s.authed(s.handleArtifactEvents)}},
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
		{"/instances/{ref}/consoledata", m{"GET": s.authed(s.handleConsoleData), "DELETE": s.authed(s.handleConsoleDelete)}},
		{"/instances/{ref}/snapshot", m{"GET": s.authed(s.handleListSnapshots), "POST": s.authed(s.handleSnapshot)}},
		{"/networks", m{"GET": s.authed(s.handleListNetworks), "POST": s.authed(s.handleCreateNetwork), "DELETE": s.authed(s.handleDeleteAllNetworks)}},
		{"/networks/{ref}", m{"GET": s.authed(s.handleShowNetwork), "DELETE": s.authed(s.handleDeleteNetwork)}},
		{"/networks/{ref}/events", m{"GET": s.authed(s.handleNetworkEvents)}},
		{"/networks/{ref}/interfaces", m{"GET": s.authed(s.handleNetworkInterfaces)}},
		{"/networks/{ref}/addresses", m{"GET": s.authed(s.handleNetworkAddresses)}},
		{"/networks/{ref}/ping/{address}", m{"GET": s.authed(s.handleNetworkPing)}},
		{"/interfaces/{ref}", m{"GET": s.authed(s.handleShowInterface)}},
		// The routes of the later sf-client commands: interface.py, network.py, instance.py, node.py, admin.py.
		{"/interfaces/{ref}/float", m{"POST": s.authed(s.handleFloatInterface)}},
		{"/interfaces/{ref}/defloat", m{"POST": s.authed(s.handleDefloatInterface)}},
		{"/networks/{ref}/route", m{"POST": s.authed(s.handleRouteAddress)}},
		{"/networks/{ref}/route/{address}", m{"DELETE": s.authed(s.handleUnrouteAddress)}},
		{"/instances/{ref}/vdiconsolehelper", m{"GET": s.authed(s.handleVDIConsoleHelper)}},
		{"/nodes/{ref}/processmetrics", m{"GET": s.authed(s.handleNodeProcessMetrics)}},
		{"/admin/locks", m{"GET": s.authed(s.handleAdminLocks)}},
		{"/nodes", m{"GET": s.authed(s.handleListNodes)}},
		{"/nodes/{ref}", m{"GET": s.authed(s.handleShowNode), "DELETE": s.authed(s.handleDeleteNode)}},
		{"/nodes/{ref}/events", m{"GET": s.authed(s.handleNodeEvents)}},
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
			// New in the 2026 app.py (code index id 59153739580); blobs.go, artifacts.go.
			route{"/blobs/{blob_uuid}/events", m{"GET": s.authed(s.handleBlobEvents)}},
			route{"/blobs/{blob_uuid}/checksum/{algorithm}", m{"GET": s.authed(s.handleBlobSingleChecksum)}},
			route{"/artifacts/{ref}/clusteroperations", m{"GET": s.authed(s.handleArtifactOperations)}},
			// InstanceVDIProxyConsoleHelperEndpoint (2026 instance.py, code
			// index id 59117373307) and the stand-in for Kerbside's exchange
			// (kerbside.go): no token, the JWT in the URL is the credential.
			route{"/instances/{ref}/vdiconsoleproxy", m{"GET": s.authed(s.handleVDIConsoleProxy)}},
			route{kerbsidePath, m{"GET": s.handleKerbsideExchange}},
		)
	}
	rs = append(rs, s.metadataRoutes()...) // metadata.go: every kind's
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

// powerEndpoints maps each power action route to its resource class.
var powerEndpoints = map[string]string{
	"rebootsoft": "InstanceRebootSoftEndpoint.post",
	"reboothard": "InstanceRebootHardEndpoint.post",
	"poweroff":   "InstancePowerOffEndpoint.post",
	"poweron":    "InstancePowerOnEndpoint.post",
	"pause":      "InstancePauseEndpoint.post",
	"unpause":    "InstanceUnpauseEndpoint.post",
}
