package gate

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// ShapeOf reads client bodies: it never panics, a shape it accepts is
// finite, and the layout of the JSON does not change the shape.
func FuzzShapeOf(f *testing.F) {
	for _, seed := range []string{
		// As sf-client sends them (client-python 6c25293c create_instance).
		`{"name": "a", "cpus": 1, "memory": 1024, "network": [], "disk": [{"size": 8, "base": "debian:12", "bus": null, "type": "disk"}], "ssh_key": null, "user_data": null, "namespace": null}`,
		`{"name": "b", "cpus": 4, "memory": 8192, "network": [], "disk": [{"size": 8, "base": "debian:12", "bus": null, "type": "disk"}], "ssh_key": null, "user_data": null, "namespace": null, "placed_on": "node1", "metadata": {"affinity": {"require_with_tag": ["ssd"]}}}`,
		`{"name":"c","cpus":2,"memory":2048,"disk":[{"size":"20"},{"size":8,"base":"debian:12"},{"base":"x"}]}`,
		`{"cpus": 1e308, "memory": -1, "disk": [{"size": 1e308}, {"size": 1e308}]}`,
		`{"cpus": "2", "memory": 512}`,
		`[]`, `null`, `{"cpus": 1, "memory": 1, "disk": "no"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		s, ok := ShapeOf(body)
		if !ok {
			return
		}
		for _, v := range []float64{s.cpus, s.memory, s.disk} {
			if math.IsNaN(v) {
				t.Fatalf("shape %+v of %q", s, body)
			}
		}
		var indented bytes.Buffer
		if json.Indent(&indented, body, "", "  ") != nil {
			return
		}
		if s2, ok2 := ShapeOf(indented.Bytes()); !ok2 || s2.cpus != s.cpus || s2.memory != s.memory || s2.where != s.where || (s2.disk != s.disk && !math.IsInf(s.disk, 0)) {
			t.Fatalf("%q reads %+v, indented %+v (%v)", body, s, s2, ok2)
		}
	})
}
