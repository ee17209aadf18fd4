package cluster

import (
	"encoding/json"
	"slices"
	"time"
)

// Event logs (shakenfist/eventlog.py, da448b1a): what every noun's
// *EventsEndpoint reads.

// event is one event-log entry as eventlog.read_events yields it
// (shakenfist/eventlog.py, da448b1a).
type event struct {
	Type      string   `json:"type"`
	Timestamp float64  `json:"timestamp"`
	FQDN      string   `json:"fqdn"`
	Duration  *float64 `json:"duration"`
	Message   string   `json:"message"`
	Extra     any      `json:"extra"`
}

// maxEvents bounds one instance's event trail.
const maxEvents = 200

// apiFQDN is the name events record for work done by the API itself.
const apiFQDN = "sim-api"

// addEvent records an audit event; extra is the event's structured detail.
func (s *Server) addEvent(i *instance, fqdn, msg string, extra any) {
	if len(i.events) >= maxEvents {
		i.events = slices.Delete(i.events, 0, 1)
	}
	i.events = append(i.events, event{
		Type:      "audit",
		Timestamp: epoch(time.Now()),
		FQDN:      fqdn,
		Message:   msg,
		Extra:     extra,
	})
}

func epoch(t time.Time) float64 {
	return float64(t.UnixNano()) / 1e9
}

// The routes sf-client's operator commands use beyond create/show/delete:
// delete-all, console data, snapshots, network events, interfaces,
// addresses and ping, node events and the cluster resource summary.

// readEvents is eventlog.read_events behind the *EventsEndpoint classes:
// newest first, at most limit (default 100), optionally one event_type.
// 2026 validates limit to 1-1000 (PLAN-api-input-validation; the reason
// texts are marshmallow's defaults, the server's own were not read).
func (s *Server) readEvents(events []event, p map[string]any) (any, *apiError) {
	limit := int64(100)
	if v, ok := p["limit"]; ok {
		if s.is2026() {
			num, isNum := v.(json.Number)
			n, err := num.Int64()
			if !isNum || err != nil {
				return nil, badRequest("limit: Not a valid integer.")
			}
			if n < 1 || n > 1000 {
				return nil, badRequest("limit: Must be greater than or equal to 1 and less than or equal to 1000.")
			}
			limit = n
		} else {
			n, err := pyInt(v)
			if err != nil {
				return nil, err
			}
			limit = n
		}
	}
	kind, _ := p["event_type"].(string)
	out := []event{}
	for k := len(events) - 1; k >= 0 && int64(len(out)) < limit; k-- {
		if kind == "" || events[k].Type == kind {
			out = append(out, events[k])
		}
	}
	return out, nil
}

func appendEvent(events []event, fqdn, msg string, extra any) []event {
	if len(events) >= maxEvents {
		events = events[1:]
	}
	return append(events, event{Type: "audit", Timestamp: epoch(time.Now()), FQDN: fqdn, Message: msg, Extra: extra})
}

// appendMutate adds _db_set_attribute's event (baseobject.py da448b1a):
// type mutate, "set attribute", the value's fields plus the attribute's
// name; the trail stays bounded as appendEvent keeps it.
func appendMutate(events []event, extra map[string]any) []event {
	return appendTyped(events, "mutate", "set attribute", extra)
}

func appendTyped(events []event, typ, msg string, extra any) []event {
	events = appendEvent(events, apiFQDN, msg, extra)
	events[len(events)-1].Type = typ
	return events
}
