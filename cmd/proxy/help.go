package proxy

// Help texts for `shakectl proxy` and `shakectl wrap`, pasted into
// cobra.Command's Short, Long and Example. They are the command's: they
// name its flags, which the proxy library (whose behaviour they describe,
// and whose errors name Options fields) does not know.

const ProxyShort = "Give any Shakenfist client the transient-capacity retry, as a local proxy"

const ProxyLong = `Listen on a loopback address in front of the configured API URL (--api-url,
SHAKENFIST_API_URL or the context) and forward every request and answer
unchanged, streaming both. Point any client at the URL it prints (the
upstream's /api prefix is kept); the client's own credentials pass through,
the proxy holds none.

An answer that is a 507 whose JSON body says "transient": true, to a call
whose replay cannot double an effect (POST /instances, an instance create, and
reads, GET and HEAD: the list shakectl's own retry follows), is not passed on:
the proxy waits the server's Retry-After (clamped to 1s..60s; --retry-wait
replaces it) and replays the identical request, at most 5 attempts, within
--budget per request (default 60s; the last wait is cut to what is left, then
one more attempt; 0 is refused: to wait for nothing, point the client at the
API itself). Then the client gets the server's own last answer, byte for byte.
Everything else passes through at once: a transient refusal of any other call
(an upload chunk may already have been appended), other 507s, HTML pages,
every other status, connection errors. Request bodies up to 1 MiB are
replayed; larger or chunked ones stream and are never replayed. All requests
in flight together keep at most --replay-memory (default 64Mi) of bodies to
replay; a body beyond it streams and a refusal of it is handed back, which its
line and the summary say.

Only requests addressed to a loopback name (Host localhost, 127.0.0.1 or
[::1]) are forwarded; any other Host gets a 403. A web page the user visits
could otherwise reach the API through the proxy by DNS rebinding (its own
name resolving to 127.0.0.1), with whatever credentials it finds. Give
--accept-hosts for other names (with --allow-remote, the names the other
machines use). CONNECT and HTTP/2's "PRI *" are answered 405: this is not a
forward proxy, and it speaks HTTP/1.1. --insecure skips verifying the
upstream's TLS certificate, with the same warning the client commands give.

The capacity gate (on by default; --gate off replays every request on its
own clock): once a create (POST /instances) is refused with a transient 507,
creates that ask at least as much of the resource the refusal's stage names
(vCPUs for sufficient_idle_cpu, memory for sufficient_idle_memory, disk for
sufficient_free_disk and sufficient_idle_disk, every create for queue_state
and capacity_guard), on the same or fewer nodes, are not sent until that
refusal's Retry-After has passed; they wait in arrival order. Then one goes
first: if it gets through, the next goes at once; if it is refused again,
the gate closes for the new Retry-After. Smaller creates, other routes and
methods pass as without it. A burst learns from its first answer: while no
create (to the same nodes) has had an answer other than a transient refusal
in the last 15s, the first create goes alone and the ones arriving while it
is out wait for its answer. A success or any other answer lets them all go
at once; a transient refusal closes the gate and they stay held. They wait
at most twice the slowest round trip of the last 16 transient refusals (of
any create before one is seen), 1s..6s, so a create that is slow because it
is being placed does not hold up the rest. A held create is still sent at
the latest one round trip before its budget ends, so every client gets the
server's answer to its own request; the attempt cap and budget are
unchanged. Each hold and release is a line ("event": "held", with "reason"
"refused_shape" or "first_answer", and "released" with -o json), and the
summary counts the sends held back.

Every wait is one line on stderr (JSON lines with -o json) and a summary is
printed on exit. --listen must be a loopback address unless --allow-remote is
given too. SIGINT or SIGTERM stops accepting, hands each waiting client the
refusal it is waiting on (a create the gate held and never sent gets a 503
saying the proxy stopped), and exits 130 or 143.`

const ProxyExample = `  # Terraform or Ansible against a busy cloud, retrying for every create:
  shakectl proxy --listen 127.0.0.1:13001 --budget 10m &
  SHAKENFIST_API_URL=http://127.0.0.1:13001/api terraform apply

  # Wait 5s between attempts instead of the server's Retry-After (15s):
  shakectl proxy --retry-wait 5s -o json 2>retries.jsonl`

const WrapShort = "Run a command with the transient-capacity retry in front of its API calls"

const WrapLong = `Start the proxy of "shakectl proxy" on a free loopback port, run COMMAND with
SHAKENFIST_API_URL and SHAKECTL_API_URL pointing at it (the upstream's /api
prefix kept), and exit with COMMAND's exit status (128+N if a signal N ended
it). SIGTERM and SIGINT are passed on to COMMAND once: a Ctrl-C typed on a
terminal reaches COMMAND from the terminal itself and is not sent again.
COMMAND ends with wrap, however wrap ends: if wrap itself is killed (SIGKILL,
the OOM killer, a crash), on Linux the kernel sends COMMAND SIGKILL (a
parent-death signal; processes COMMAND started are its own to stop), and on
Windows COMMAND runs in a job object that ends with wrap, taking the processes
it started with it. macOS and the BSDs have no such tie: there a killed wrap
leaves COMMAND running. Behind an HTTP proxy, 127.0.0.1 is added to NO_PROXY
and no_proxy, each keeping the exemptions already set. A COMMAND that made no
request through the proxy is warned about.

The rules are the proxy's: only a 507 marked "transient": true, to an instance
create or a read, is waited out and replayed, at most 5 attempts within
--budget (default 60s) per request, and then COMMAND sees the server's own
answer. The capacity gate is on (--gate off turns it off): after a transient
refusal of a create, COMMAND's creates asking as much wait in the proxy until
its Retry-After has passed, then go one at a time, and a burst of creates
waits (briefly) for its first one's answer (see "shakectl proxy --help").
--replay-memory and --accept-hosts are the proxy's too (only loopback Host
names are forwarded unless --accept-hosts adds others). The proxy's lines go
to stderr, before COMMAND's own. A client whose own timeout is shorter than
the budget gives up first and reports its own timeout.`

const WrapExample = `  # A CI step that survives a briefly full cluster:
  shakectl wrap -- sf-client instance create web-1 1 1024 -d 8@debian:12

  # A longer budget for a whole playbook:
  shakectl wrap --budget 5m -- ansible-playbook site.yml`
