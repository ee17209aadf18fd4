package cluster

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
)

// The two server generations the simulator speaks. Each behaviour that
// differs names, where it is implemented, the commit it was read from;
// docs/shakenfist-generations.md collects them.
const (
	// Generation2024 is shakenfist/shakenfist develop da448b1a
	// (2024-10-24) with shakenfist-utilities 0.6.9.
	Generation2024 = "2024"
	// Generation2026 is develop in 2026: the capacity contract of
	// #4241 (565e36e6e), declarative validation, scopes, node UUIDs,
	// async network deletes, capacity claims and health probes.
	Generation2026 = "2026"
)

func (s *Server) is2026() bool { return s.cfg.Generation == Generation2026 }

// stageMessage2026 is the scheduler's message in 2026:
// _log_and_raise_on_error's f'No nodes remaining at scheduling stage
// {stage}' (scheduler.py, public copy read with #4241 565e36e6e); the
// guard has its own text, built in guardMessage.
func stageMessage2026(stage string) string {
	return "No nodes remaining at scheduling stage " + stage
}

// guardMessage is the capacity guard's text when every ranked candidate
// refused the placement (test_capacity_error.py @565e36e6e).
func guardMessage(candidates int) string {
	return fmt.Sprintf("no node had capacity for this instance, %d candidates refused it", candidates)
}

// nodeUUID gives a node a stable UUID derived from its name (a name-based,
// version-5-shaped UUID), so runs and restarts agree. 2026 nodes are
// identified by config.NODE_UUID and placements hold it.
func nodeUUID(name string) string {
	sum := sha1.Sum([]byte("shakectl-sim-node:" + name))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x50
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// nodeRef is how an instance's placement names its node: the name in
// 2024, the node UUID in 2026 ("placement['node'] holds a node UUID",
// instance.py InstanceVDIConsoleHelperEndpoint, public 2026 copy).
func (s *Server) nodeRef(n *node) string {
	if s.is2026() {
		return n.uuid
	}
	return n.name
}

// findNode resolves a node by name, and in 2026 also by UUID.
func (s *Server) findNode(ref string) *node {
	if n, ok := s.nodeByName[ref]; ok {
		return n
	}
	if s.is2026() {
		for _, n := range s.nodes {
			if n.uuid == ref {
				return n
			}
		}
	}
	return nil
}

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

// --- scopes (docs/developer_guide/authentication.md @00b8f3e2;
// external_api/scopes.py @451a0ef2 derives family and verb) ---

// scopeAdmin is the scope administrative endpoints need in 2026 besides
// the system namespace. scopes.py @451a0ef2 spells it ADMIN = 'admin';
// the authentication guide (@00b8f3e2) and the client use cluster-admin,
// which is what the simulator accepts.
const scopeAdmin = "cluster-admin"

// requiredScope derives "<family>.<verb>" from the path and method as
// scopes.py does from the resource class: the leading word of the class,
// singular; the verb from the method; console endpoints use "console".
func requiredScope(r *http.Request) string {
	path := strings.TrimPrefix(r.URL.Path, "/")
	first, rest, _ := strings.Cut(path, "/")
	family := map[string]string{
		"auth": "auth", "instances": "instance", "networks": "network", "nodes": "node",
		"interfaces": "interface", "clusteroperations": "clusteroperation", "admin": "admin",
		"artifacts": "artifact",
		// The blob, label and upload families (shakenfist-2026.md 2.2 lists
		// them); /blob_checksums is BlobChecksumsEndpoint's, so blob, and
		// /artifacts/upload/<name> ArtifactUploadEndpoint's, so artifact.
		"blobs": "blob", "blob_checksums": "blob", "label": "label", "upload": "upload",
		"agentoperations": "agentoperation",
	}[first]
	if family == "" {
		return ""
	}
	verb := map[string]string{"GET": "read", "HEAD": "read", "POST": "write", "PUT": "write", "PATCH": "write", "DELETE": "delete"}[r.Method]
	if family == "instance" && strings.HasSuffix(rest, "/consoledata") {
		verb = "console"
	}
	if verb == "" {
		return ""
	}
	return family + "." + verb
}

// scopesSatisfy is scopes.satisfies: nil (no scopes claim) and "*" allow
// everything; otherwise the exact scope or its family wildcard (auth.py
// @0209b9ca speaks of "auth.*, which the family wildcard actively
// encourages").
func scopesSatisfy(held []string, required string) bool {
	if held == nil {
		return true
	}
	fam, _, _ := strings.Cut(required, ".")
	for _, h := range held {
		if h == "*" || (required != "" && (h == required || h == fam+".*")) {
			return true
		}
	}
	return false
}

func hasScope(held []string, want string) bool {
	if held == nil {
		return true
	}
	for _, h := range held {
		if h == "*" || h == want {
			return true
		}
	}
	return false
}

func sortedCopy(in []string) []string {
	if in == nil {
		return nil
	}
	out := append([]string{}, in...)
	sort.Strings(out)
	return out
}
