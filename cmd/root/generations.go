package root

// generationsTopic is `shakectl help generations`: which Shakenfist
// servers shakectl speaks, how it tells them apart, and what a user sees
// differ. The facts and the commits they were read from are in
// docs/shakenfist-generations.md.
const generationsTopic = `shakectl speaks two generations of the Shakenfist REST API:

  2024  develop da448b1a (October 2024), the code behind the v0.8 releases
        and the released sf-client
  2026  today's develop (the capacity-refusal contract of shakenfist #4241,
        async network deletes, scoped tokens, node UUIDs, claims)

It does not ask which one it talks to. It reads what the server says it
can do (the capability list on its root page, GET /, once per command) and
what each route answers, and acts on that. "shakectl sim cluster --server
2024|2026" simulates either (default 2026).

What differs, as a user of shakectl sees it:

  network delete     2026: 202 and a cluster operation; shakectl follows it
                     to "complete", prints it, and fails (exit 1) when it
                     ends in "error" or "abort". 2024: the network, waited
                     for until "deleted". --async continue prints the
                     operation's handle (2026) or the network (2024).
  cluster-operation  2026 only: "shakectl cluster-operation show
                     net_op/UUID" (--wait, --chain). A 2024 server has none
                     (exit 1, "does not support cluster operations").
  507 refusals       2026: {"error", "status", "stage", "transient"} with
                     "No nodes remaining at scheduling stage <stage>";
                     transient ones exit 75 and carry Retry-After: 15.
                     2024: only {"error", "status"} ("No nodes with enough
                     idle CPU"), exit 69 with a hint read from the text. A
                     2026 server older than the contract names the stage in
                     the text only: its hint and exit code follow that
                     stage, and it is never retried.
  hard affinity      2026: --require-tag/--forbid-tag (409 when no node
                     meets them, exit 69, checked after the resource
                     stages); --prefer-tag/--avoid-tag. 2024: weights only;
                     the soft flags are sent as weights, the hard ones are
                     refused.
  node of instance   2026: a node UUID, shown with the node's name when the
                     key may list nodes. 2024: the node's name.
  power actions      2026: 409 for powering on a paused instance (unpause
                     it), 500 when the hypervisor fails.
  403                2026: also a scoped token outside its scopes
                     (<family>.<verb>), or an admin route without the
                     cluster-admin scope. 2024: another namespace's object.
  blob events        2026 only (capability blob-events): "shakectl blob
                     events UUID". A 2024 server has no such route (exit 1,
                     "does not support blob events").
  events --limit     1 to 1000 (2026 validates it; the bound holds for both)
  validation         2026: 400 "<parameter>: <reason>" naming the key.
  API URL            2026 has no bundled Apache front end: the API is at
                     http://HOST:13000 or where your load balancer puts it;
                     2024 deployments also served it at http://HOST/api.

Unchanged: logging in (POST /auth), instance and network states, the
events shape, and --retry-transient-capacity's rules (only a 507 whose body
says "transient": true is retried).
`
