package router

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/shakenfist/shakectl/internal/fielderr"
)

// braces renders a field error's placeholders as they are written.
func braces(field string) string { return "{" + field + "}" }

func TestDefaultConfigIsTheSeeds(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	if c.ParkedRequestBudget != 5*time.Second || c.ParkedRequestMax != 1024 || c.ParkedRequestRetryInterval != 100*time.Millisecond ||
		c.ParkedRequestRetryFactor != 1.1 || c.ParkedRequestRetryJitter != 0.1 || c.ExtprocMaxRequests != 2048 {
		t.Errorf("parking defaults differ from the seed: %+v", c)
	}
	if c.Listen != "127.0.0.1:8080" || c.MetricsListen != "127.0.0.1:9090" || c.StatusListen != "127.0.0.1:4040" {
		t.Errorf("listen defaults: %s %s %s", c.Listen, c.MetricsListen, c.StatusListen)
	}
	if c.ResumeLatency != 20*time.Millisecond || c.ServiceTime != 5*time.Millisecond || c.ActorIdle != 250*time.Millisecond {
		t.Errorf("timing defaults: %+v", c)
	}
	if !c.ParkingEnabled() {
		t.Error("parking disabled by default")
	}
}

// Each broken rule is reported, naming the flag and the rule.
func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"factor below 1", func(c *Config) { c.ParkedRequestRetryFactor = 0.9 }, "{ParkedRequestRetryFactor} must be >= 1 (got 0.9)"},
		{"factor NaN", func(c *Config) { c.ParkedRequestRetryFactor = math.NaN() }, "{ParkedRequestRetryFactor} must be >= 1"},
		{"jitter 1", func(c *Config) { c.ParkedRequestRetryJitter = 1 }, "{ParkedRequestRetryJitter} must be in [0, 1) (got 1)"},
		{"jitter negative", func(c *Config) { c.ParkedRequestRetryJitter = -0.1 }, "{ParkedRequestRetryJitter} must be in [0, 1)"},
		{"breaker below lot", func(c *Config) { c.ExtprocMaxRequests = 1023 }, "{ExtprocMaxRequests} (1023) must be >= {ParkedRequestMax} (1024)"},
		{"breaker zero", func(c *Config) { c.ExtprocMaxRequests = 0; c.ParkedRequestMax = 0 }, "{ExtprocMaxRequests} must be at least 1"},
		{"lot negative", func(c *Config) { c.ParkedRequestMax = -1 }, "{ParkedRequestMax} must not be negative"},
		{"workers 0", func(c *Config) { c.Workers = 0 }, "{Workers} must be at least 1 (got 0)"},
		{"actors 0", func(c *Config) { c.Actors = 0 }, "{Actors} must be at least 1, or use {AnyActor}"},
		{"negative budget", func(c *Config) { c.ParkedRequestBudget = -time.Second }, "{ParkedRequestBudget} must not be negative (got -1s)"},
		{"negative latency", func(c *Config) { c.ResumeLatency = -1 }, "{ResumeLatency} must not be negative"},
		{"negative service", func(c *Config) { c.ServiceTime = -1 }, "{ServiceTime} must not be negative"},
		{"negative idle", func(c *Config) { c.ActorIdle = -1 }, "{ActorIdle} must not be negative"},
		{"negative cp latency", func(c *Config) { c.ControlPlaneLatency = -1 }, "{ControlPlaneLatency} must not be negative"},
		{"negative request timeout", func(c *Config) { c.RequestTimeout = -1 }, "{RequestTimeout} must not be negative"},
		{"zero interval", func(c *Config) { c.ParkedRequestRetryInterval = 0 }, "{ParkedRequestRetryInterval} must be positive"},
		{"bad atespace", func(c *Config) { c.Atespace = "Prod_1" }, `{Atespace} "Prod_1" is not a valid atespace name`},
		{"bad window", func(c *Config) { c.ControlPlaneUnavailable = []Window{{Start: time.Second}} }, "duration must be positive"},
		{"bad deny", func(c *Config) { c.Deny = []string{"no such/actor/x"} }, "{Deny}: actor"},
		{"bad abort", func(c *Config) { c.Abort = map[string]int{"": 1} }, "{Abort}: actor"},
		{"abort rate", func(c *Config) { c.AbortRate = 1.5 }, "{AbortRate} must be in [0, 1]"},
		{"bad listen", func(c *Config) { c.Listen = "8080" }, `{Listen} "8080" is not HOST:PORT`},
		// Issue 28 item 9: sizes a user passes are bounded, naming the flag.
		{"workers 1e9", func(c *Config) { c.Workers = 1_000_000_000 }, "{Workers} must be at most 100000 (got 1000000000)"},
		{"actors huge", func(c *Config) { c.Actors = MaxActors + 1 }, "{Actors} must be at most 10000000"},
		{"lot huge", func(c *Config) { c.ParkedRequestMax = MaxLot + 1; c.ExtprocMaxRequests = MaxLot + 1 }, "{ParkedRequestMax} must be at most 1000000"},
		{"breaker huge", func(c *Config) { c.ExtprocMaxRequests = MaxLot + 1 }, "{ExtprocMaxRequests} must be at most 1000000"},
		{"factor huge", func(c *Config) { c.ParkedRequestRetryFactor = math.Inf(1) }, "{ParkedRequestRetryFactor} must be at most 100"},
		{"budget huge", func(c *Config) { c.ParkedRequestBudget = 25 * time.Hour }, "{ParkedRequestBudget} must be at most 24h0m0s"},
		{"window huge", func(c *Config) {
			c.ControlPlaneUnavailable = []Window{{Start: time.Duration(math.MaxInt64 - 1), Duration: 2}}
		}, "start and duration must be at most 24h0m0s"},
		{"too many windows", func(c *Config) { c.ControlPlaneUnavailable = make([]Window, MaxWindows+1) }, "at most 10000 windows"},
		{"too many named actors", func(c *Config) { c.Deny = make([]string, MaxNamedActors+1) }, "the fault flags name 100001 actors together; at most 100000"},
		{"abort count huge", func(c *Config) { c.Abort = map[string]int{"actor-0001": MaxCount + 1} }, "{Abort} actor-0001=1000001: at most 1000000"},
		{"bad hold", func(c *Config) { c.Hold = map[string]Hold{"Not An Actor": {}} }, "{Hold}: actor"},
		{"hold too long", func(c *Config) { c.Hold = map[string]Hold{"*": {For: 25 * time.Hour}} }, "{Hold} *: duration must be in"},
		{"parking switch in the seed", func(c *Config) { c.ParkingDisabled = true }, "{ParkingDisabled} is PR #221's switch and needs {Model} pr221"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			c.edit(&cfg)
			err := cfg.Validate()
			if err == nil || !strings.Contains(fielderr.Render(err, braces), c.want) {
				t.Fatalf("Validate() = %v, want %q", err, c.want)
			}
			if _, serr := Start(context.Background(), cfg); serr == nil {
				t.Fatal("Start accepted an invalid config")
			}
		})
	}

	ok := DefaultConfig()
	ok.ParkedRequestMax, ok.ExtprocMaxRequests = 0, 1 // disabled: no lot to cover
	ok.AnyActor, ok.Actors = true, 0
	ok.ParkedRequestRetryFactor, ok.ParkedRequestRetryJitter = 1, 0
	if err := ok.Validate(); err != nil {
		t.Errorf("valid edge config refused: %v", err)
	}

	several := DefaultConfig()
	several.Workers, several.ParkedRequestRetryFactor = 0, 0.5
	if err := fielderr.Render(several.Validate(), braces); !strings.Contains(err, "{Workers}") || !strings.Contains(err, "{ParkedRequestRetryFactor}") {
		t.Errorf("want both broken rules reported, got %v", err)
	}
}

func TestParseWindow(t *testing.T) {
	w, err := ParseWindow("2s+3s")
	if err != nil || w.Start != 2*time.Second || w.Duration != 3*time.Second {
		t.Fatalf("ParseWindow(2s+3s) = %v, %v", w, err)
	}
	if !w.contains(2*time.Second) || w.contains(5*time.Second) || w.contains(time.Second) {
		t.Error("window bounds wrong: want [2s, 5s)")
	}
	for _, bad := range []string{"", "2s", "2s+", "+3s", "x+3s", "2s+0s", "-1s+3s", "2s+-3s", "2+3"} {
		if _, err := ParseWindow(bad); err == nil {
			t.Errorf("ParseWindow(%q) accepted", bad)
		}
	}
}

func TestParseRequestTimeout(t *testing.T) {
	for in, want := range map[string]time.Duration{"1.5s": 1500 * time.Millisecond, "250ms": 250 * time.Millisecond, "2": 2 * time.Second, " 0.5 ": 500 * time.Millisecond} {
		if got, err := ParseRequestTimeout(in); err != nil || got != want {
			t.Errorf("ParseRequestTimeout(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1", "0s", "soon", "Inf", "NaN", "1e300"} {
		if _, err := ParseRequestTimeout(bad); err == nil {
			t.Errorf("ParseRequestTimeout(%q) accepted", bad)
		}
	}
}
