package clitest

import (
	"time"
)

func Refusal(stage, transient string, header map[string]string) FakeReply {
	return FakeReply{Status: 507, Header: header,
		Body: `{"error": "schedule has no candidates at stage ` + stage + `", "status": 507, "stage": "` + stage + `", "transient": ` + transient + `}`}
}

func TransientRefusal(retryAfter string) FakeReply {
	return Refusal("sufficient_idle_cpu", "true", map[string]string{"Retry-After": retryAfter})
}

// Each create takes the server one (virtual) second, so the budget left
// before each wait is visibly smaller than the one before.
func SlowCreates(fa *FakeAPI) {
	fa.Latency = map[string]time.Duration{"POST /instances": time.Second}
}
