package cluster

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
