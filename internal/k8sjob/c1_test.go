package k8sjob

import (
	"bytes"
	"testing"
)

// The manifest quotes the probe's arguments; JSON writes their C1 controls
// escaped (YAML does too, through output.JSONToYAML), and the Job decodes
// with the arguments as given.
func TestManifestEscapesC1(t *testing.T) {
	spec := testSpec()
	spec.ProbeArgs = append(spec.ProbeArgs, "--label", "x\u009b2J\u0085")
	j, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"json", "yaml"} {
		var doc bytes.Buffer
		write := j.WriteJSON
		if format == "yaml" {
			write = j.WriteYAML
		}
		if err := write(&doc); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(doc.Bytes(), []byte("\u009b")) || bytes.Contains(doc.Bytes(), []byte("\u0085")) {
			t.Errorf("%s: raw C1 in\n%s", format, doc.Bytes())
		}
		args := decodeStrict(t, format, doc.Bytes()).Spec.Template.Spec.Containers[0].Args
		if len(args) == 0 || args[len(args)-1] != "x\u009b2J\u0085" {
			t.Errorf("%s: the arguments read back as %q", format, args)
		}
	}
}
