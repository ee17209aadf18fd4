// Package router simulates, in one process, what sits in front of a
// Substrate actor: Envoy (its ext_proc circuit breaker), the atenet router
// (Host-header routing, the resume path and request parking), the ateapi
// control plane (ResumeActor, with fault injection) and a worker pool.
//
// It implements the request-parking design: FailedPrecondition ("no free
// workers available"), Unavailable and Aborted answers to ResumeActor are
// retried with exponential backoff and no cap, within a budget that belongs
// to the actor's resume flight, which every concurrent request for that
// actor joins; each waiting request takes a slot of a fixed parking lot, and
// a full lot sheds at once; errors that waiting cannot fix fail fast. The
// route-duration and parking instruments are OpenTelemetry (meter
// "atenet-router"), served on /metrics by the OTel Prometheus exporter and
// promhttp as the real router serves them; /statusz shows the "Request
// Parking" card as HTML or JSON. Config.Hold makes the control plane
// refuse an actor's resumes for a while or for ever, to rehearse the
// scenarios the real router was run through.
//
// Start runs a simulator (tests, demo, `shakectl sim router`):
//
//	cfg := router.DefaultConfig()
//	cfg.Listen, cfg.MetricsListen, cfg.StatusListen = "127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0"
//	srv, err := router.Start(ctx, cfg)
//	...
//	defer srv.Close() // graceful: parked requests are answered
//
// Inside a testing/synctest bubble, where sockets are not allowed, give it
// in-memory listeners (internal/memnet) as Config.Listener …, and reach
// them with memnet.Transport.
//
// The simulator spells the wire format (Host names, answer bodies, metric
// names) itself and shares nothing with the client or the probe, so a test
// of one against the other catches a mismatch.
package router
