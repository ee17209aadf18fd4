package cluster

import (
	"io"
	"net/http"
	"strings"
)

// GET / (app.py's Root) and the 2026 health probes.

// handleRoot is app.py's Root: the capability list sf-client greps, served
// without authentication.
func (s *Server) handleRoot(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if s.is2026() {
		page := rootHTML2026
		if !s.cfg.Kerbside {
			// A conditional capability (test_root_capabilities.py, code
			// index id 59431244313, shakenfist#4003): advertised only when
			// KERBSIDE_URL is set, as the route then works.
			page = strings.Replace(page, " vdi-console-proxy,", "", 1)
		}
		_, _ = io.WriteString(w, page)
		return
	}
	_, _ = io.WriteString(w, rootHTML)
}

// rootHTML is GET / of shakenfist/external_api/app.py (da448b1a), including
// its missing </li>: sf-client greps it for capability names.
const rootHTML = `<html><head><title>Shaken Fist REST API service</title></head>` +
	`<body><h1>Shaken Fist REST API service</h1>` +
	`<p>You might be interested in the <a href="/apidocs">apidocs</a>.</p>` +
	`<p>Machine searchable API capabilities:</p><ul>` +
	`<li>admin: cluster-cacert, cluster-resources</li>` +
	`<li>agent-operations: agentoperations-crud, instance-agentoperations, instance-agentoperations-all</li>` +
	`<li>artifacts: artifact-metadata, artifact-upload-types</li>` +
	`<li>blobs: blob-metadata, blob-search-by-hash, blob-data-limit, blob-hash-sha1, blob-hash-sha256, blob-hash-xxh128</li>` +
	`<li>events: events-by-type</li>` +
	`<li>instances: pure-affinity, spice-vdi-console, vdi-console-helper, instance-put-blob, instance-execute, instance-get, instance-screenshot, get-instance-namespace, hot-plug-interface</li>` +
	`<li>networks: list-addresses, route-addresses, get-network-namespace, provide-dns, extra-dns-entries` +
	`<li>networkinterfaces: interface-metadata</li>` +
	`<li>nodes: node-get, node-metadata, node-process-metrics</li>` +
	`</ul></p></body></html>`

// rootHTML2026 is GET / of a 2026 server, as external_api/app.py's Root
// serves it in the 2026 public copy (code index id 59153739580; the same
// page is recorded in client/testdata/sf2026/root.html), plus the
// agentoperation-deadlines capability of PLAN-agent-operation-deadlines
// (the root-capabilities test's list, code index id 59431244313).
// network-delete-async is what client-python 74d6e129 checks before
// polling /clusteroperations (delete_network); get-cluster-operations,
// cluster-operation-chain and cluster-operations-by-target are what it
// checks before the other cluster operation routes.
const rootHTML2026 = `<html><head><title>Shaken Fist REST API service</title></head>` +
	`<body><h1>Shaken Fist REST API service</h1>` +
	`<p>You might be interested in the <a href="/apidocs">apidocs</a>.</p>` +
	`<p>Machine searchable API capabilities:</p><ul>` +
	`<li>admin: cluster-cacert, cluster-resources, vdi-token-pubkey</li>` +
	`<li>agent-operations: agentoperations-crud, instance-agentoperations, instance-agentoperations-all, agentoperations-put-with-mode, agentoperation-deadlines</li>` +
	`<li>artifacts: artifact-metadata, artifact-upload-types, artifact-clusteroperations</li>` +
	`<li>auth: trusted-issuers, generated-key-secrets, scope-enforcement, mapping-rules, federated-exchange</li>` +
	`<li>blobs: blob-metadata, blob-search-by-hash, blob-data-limit, blob-hash-sha1, blob-hash-sha256, blob-hash-xxh128, blob-events, blob-checksums, blob-single-checksum</li>` +
	`<li>cluster-operations: get-cluster-operations, cluster-operation-chain, cluster-operations-by-target</li>` +
	`<li>events: events-by-type</li>` +
	`<li>instances: pure-affinity, spice-vdi-console, vdi-console-helper, vdi-console-proxy, instance-put-blob, instance-execute, instance-get, instance-screenshot, get-instance-namespace, hot-plug-interface, include-queued-agent-operations, instance-clusteroperations</li>` +
	`<li>networks: list-addresses, route-addresses, get-network-namespace, provide-dns, extra-dns-entries, network-clusteroperations, network-delete-async</li>` +
	`<li>networkinterfaces: interface-metadata</li>` +
	`<li>nodes: node-get, node-metadata, node-process-metrics</li>` +
	`</ul></p></body></html>`

// handleHealth answers the 2026 health probes, unauthenticated
// (HEALTH_PROBE_PATHS in external_api/base.py @565e36e6e; readiness is
// health.py's per-worker flag @0b63ef0e). The body is the simulator's own:
// the real one was not read, and probes read only the status.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = io.WriteString(w, "ok")
	}
}
