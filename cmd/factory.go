package cmd

import (
	"context"
	"sync"
	"time"

	"github.com/shakenfist/shakectl/output"
)

// Factory hands commands their dependencies, lazily, so a command that needs
// no API client never builds one and tests can swap any piece (the gh
// cmdutil.Factory pattern). A fresh Factory and command tree serve each run.
type Factory struct {
	IOStreams *output.IOStreams
	Build     BuildInfo

	// Getenv reads the environment; tests pass a map.
	Getenv func(string) (string, bool)
	// HomeDir is where ~/.shakenfist and the default config live.
	HomeDir string
	// Now is the clock; tests pin it.
	Now func() time.Time

	// Config resolves global flags, environment and files once per run. It
	// is set by the root command when its flags are parsed.
	Config func() (*Config, error)

	// Context is the run's context: cancelled on SIGINT/SIGTERM with cause
	// ErrInterrupted.
	Context context.Context
}

// memoConfig wraps a loader so the configuration is resolved (and its
// warnings printed) exactly once per run.
func memoConfig(load func() (*Config, error)) func() (*Config, error) {
	return sync.OnceValues(load)
}
