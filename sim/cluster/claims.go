package cluster

import (
	"encoding/json"
	"net/http"
	"time"
)

// Namespace capacity claims (2026): GET|POST
// /auth/namespaces/{ns}/claims and GET|PUT|DELETE .../claims/{uuid}, for
// cluster administrators. Behaviour from client-python
// docs/namespace-claims.md @8120e80a and the server's namespace_claims
// table (uuid, namespace, limit_cpus, limit_memory_mb, limit_disk_gb,
// used_*, state, expires_at; tests/test_mariadb_capacity_tables.py):
//
//   - a namespace holds at most one active claim: a second is 409, even one
//     that would not fit (that check comes first);
//   - a claim the cluster cannot promise is 507, with no stage, no
//     transient and no Retry-After: waiting is not implied;
//   - PUT is a field mask: only the fields sent change; an empty body is
//     refused; a limit below what the claim already uses is 409, and an
//     expired claim cannot be changed (409);
//   - DELETE removes the row and answers the claim as it was;
//   - state is created/deleted, coverage_state active/expired.
//
// The refusals' statuses and texts are CLAIM_REFUSAL_STATUS and
// CLAIM_REFUSAL_MESSAGE of the 2026 external_api/auth.py (code index id
// 59199844940, recorded in client/testdata/sf2026/refusals.json), and the
// view is its claim_example's (with updated_at); the validation texts are
// still the simulator's own (the same file words them "no limit_cpus
// specified", "limit_cpus is not an integer", ...). A claim is accounting, not
// enforcement (CLAIM_ENFORCEMENT_HARD is False): creates are not refused
// by it. The 503 the server can answer while its accounting is built is
// not simulated.

type claim struct {
	uuid               string
	namespace          string
	cpus, memory, disk int64
	expiresAt          float64
	updatedAt          float64
}

func (c *claim) active(now time.Time) bool { return epoch(now) < c.expiresAt }

// claimFields are the body of a create, and the mask of an update.
var claimFields = []string{"limit_cpus", "limit_memory_mb", "limit_disk_gb", "expires_in_seconds"}

// maxClaimExpiry bounds expires_in_seconds (ten years).
const maxClaimExpiry = 10 * 366 * 24 * 3600

// used is what the namespace's placed instances hold: vCPUs, MiB, GiB.
func (s *Server) claimUsed(ns string) usage {
	var u usage
	for _, i := range s.instances {
		if i.namespace == ns && i.charged {
			u = u.plus(i.need())
		}
	}
	return u
}

func (s *Server) claimView(c *claim, now time.Time) map[string]any {
	u := s.claimUsed(c.namespace)
	coverage := "active"
	if !c.active(now) {
		coverage = "expired"
	}
	return map[string]any{
		"uuid": c.uuid, "namespace": c.namespace, "state": stateCreated, "coverage_state": coverage,
		"limit_cpus": c.cpus, "limit_memory_mb": c.memory, "limit_disk_gb": c.disk,
		"used_cpus": u.cpus, "used_memory_mb": u.memory, "used_disk_gb": u.disk,
		"expires_at": c.expiresAt, "updated_at": c.updatedAt,
	}
}

// clusterCapacity is what claims may promise: every hypervisor's
// schedulable capacity.
func (s *Server) clusterCapacity() usage {
	var u usage
	for _, n := range s.nodes {
		if n.hypervisor {
			u = u.plus(n.capacity)
		}
	}
	return u
}

// promised is what the active claims of every other namespace (and other
// claims of this one) already hold.
func (s *Server) promised(except *claim, now time.Time) usage {
	var u usage
	for _, ns := range s.namespaces {
		for _, c := range ns.claims {
			if c != except && c.active(now) {
				u = u.plus(usage{c.cpus, c.memory, c.disk})
			}
		}
	}
	return u
}

// claimInt reads one non-negative integer field of a claim body.
func claimInt(p map[string]any, key string, minimum int64) (int64, bool, *apiError) {
	v, ok := p[key]
	if !ok {
		return 0, false, nil
	}
	num, isNum := v.(json.Number)
	n, err := num.Int64()
	if !isNum || err != nil {
		return 0, true, badRequest("%s: Not a valid integer.", key)
	}
	if n < minimum || n > 1<<40 {
		return 0, true, badRequest("%s: Must be greater than or equal to %d and less than or equal to %d.", key, minimum, int64(1<<40))
	}
	return n, true, nil
}

// withClaims checks the body and the caller (admin), finds the namespace
// and runs fn under the lock.
func (s *Server) withClaims(w http.ResponseWriter, r *http.Request, caller, handler string, accepted []string, fn func(ns *namespaceRec, p map[string]any, now time.Time) (int, any, *apiError)) {
	p, err := s.params(r, handler, accepted...)
	if err != nil {
		writeError(w, err)
		return
	}
	if !s.requireAdmin(w, r, caller) {
		return
	}
	s.mu.Lock()
	ns := s.namespaces[r.PathValue("namespace")]
	var status int
	var out any
	if !ns.live() {
		err = notFound("namespace not found")
	} else {
		status, out, err = fn(ns, p, time.Now())
	}
	s.mu.Unlock()
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, status, out)
}

func (s *Server) findClaim(ns *namespaceRec, id string) (*claim, *apiError) {
	for _, c := range ns.claims {
		if c.uuid == id {
			return c, nil
		}
	}
	return nil, notFound("namespace claim not found")
}

func (s *Server) handleListClaims(w http.ResponseWriter, r *http.Request, caller string) {
	s.withClaims(w, r, caller, "NamespaceClaimsEndpoint.get", nil, func(ns *namespaceRec, _ map[string]any, now time.Time) (int, any, *apiError) {
		out := []map[string]any{}
		for _, c := range ns.claims {
			out = append(out, s.claimView(c, now))
		}
		return http.StatusOK, out, nil
	})
}

func (s *Server) handleShowClaim(w http.ResponseWriter, r *http.Request, caller string) {
	s.withClaims(w, r, caller, "NamespaceClaimEndpoint.get", nil, func(ns *namespaceRec, _ map[string]any, now time.Time) (int, any, *apiError) {
		c, err := s.findClaim(ns, r.PathValue("claim"))
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, s.claimView(c, now), nil
	})
}

func insufficientForClaim() *apiError {
	return &apiError{status: http.StatusInsufficientStorage, msg: "the cluster does not have the capacity to promise this claim"}
}

func (s *Server) handleCreateClaim(w http.ResponseWriter, r *http.Request, caller string) {
	s.withClaims(w, r, caller, "NamespaceClaimsEndpoint.post", claimFields, func(ns *namespaceRec, p map[string]any, now time.Time) (int, any, *apiError) {
		var vals [4]int64
		for k, f := range claimFields {
			minimum := int64(0)
			if f == "expires_in_seconds" {
				minimum = 1
			}
			n, ok, err := claimInt(p, f, minimum)
			if err != nil {
				return 0, nil, err
			}
			if !ok {
				return 0, nil, badRequest("%s: Missing data for required field.", f)
			}
			vals[k] = n
		}
		if vals[3] > maxClaimExpiry {
			return 0, nil, badRequest("expires_in_seconds: Must be greater than or equal to 1 and less than or equal to %d.", maxClaimExpiry)
		}
		for _, c := range ns.claims {
			if c.active(now) {
				return 0, nil, &apiError{status: http.StatusConflict, msg: "this namespace already holds an active claim"}
			}
		}
		want := usage{vals[0], vals[1], vals[2]}
		if !s.promised(nil, now).plus(want).fitsIn(s.clusterCapacity()) {
			return 0, nil, insufficientForClaim()
		}
		c := &claim{uuid: newUUID(), namespace: ns.name, cpus: vals[0], memory: vals[1], disk: vals[2],
			expiresAt: epoch(now) + float64(vals[3]), updatedAt: epoch(now)}
		ns.claims = append(ns.claims, c)
		return http.StatusOK, s.claimView(c, now), nil
	})
}

func (s *Server) handleUpdateClaim(w http.ResponseWriter, r *http.Request, caller string) {
	s.withClaims(w, r, caller, "NamespaceClaimEndpoint.put", claimFields, func(ns *namespaceRec, p map[string]any, now time.Time) (int, any, *apiError) {
		c, err := s.findClaim(ns, r.PathValue("claim"))
		if err != nil {
			return 0, nil, err
		}
		if len(p) == 0 {
			return 0, nil, badRequest("_schema: an update must name at least one of limit_cpus, limit_memory_mb, limit_disk_gb, expires_in_seconds")
		}
		next := *c
		for _, f := range claimFields {
			minimum := int64(0)
			if f == "expires_in_seconds" {
				minimum = 1
			}
			n, ok, err := claimInt(p, f, minimum)
			if err != nil {
				return 0, nil, err
			}
			if !ok {
				continue
			}
			switch f {
			case "limit_cpus":
				next.cpus = n
			case "limit_memory_mb":
				next.memory = n
			case "limit_disk_gb":
				next.disk = n
			case "expires_in_seconds":
				if n > maxClaimExpiry {
					return 0, nil, badRequest("expires_in_seconds: Must be greater than or equal to 1 and less than or equal to %d.", maxClaimExpiry)
				}
				next.expiresAt = epoch(now) + float64(n)
			}
		}
		if !c.active(now) {
			return 0, nil, &apiError{status: http.StatusConflict, msg: "this claim is no longer active and cannot be changed, delete it and create a new one"}
		}
		if used := s.claimUsed(ns.name); !used.fitsIn(usage{next.cpus, next.memory, next.disk}) {
			return 0, nil, &apiError{status: http.StatusConflict, msg: "a claim cannot be shrunk below what it is already using"}
		}
		if !s.promised(c, now).plus(usage{next.cpus, next.memory, next.disk}).fitsIn(s.clusterCapacity()) {
			return 0, nil, insufficientForClaim()
		}
		next.updatedAt = epoch(now)
		*c = next
		return http.StatusOK, s.claimView(c, now), nil
	})
}

func (s *Server) handleDeleteClaim(w http.ResponseWriter, r *http.Request, caller string) {
	s.withClaims(w, r, caller, "NamespaceClaimEndpoint.delete", nil, func(ns *namespaceRec, _ map[string]any, now time.Time) (int, any, *apiError) {
		c, err := s.findClaim(ns, r.PathValue("claim"))
		if err != nil {
			return 0, nil, err
		}
		view := s.claimView(c, now)
		for k, x := range ns.claims {
			if x == c {
				ns.claims = append(ns.claims[:k:k], ns.claims[k+1:]...)
				break
			}
		}
		return http.StatusOK, view, nil
	})
}
