package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// JSONToYAML re-encodes one JSON document as block-style YAML, keeping the
// order of object keys as the server sent them (decoding into a Go map would
// sort them) and the exact digits of numbers.
func JSONToYAML(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	node, err := yamlNode(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid JSON: trailing data after the document")
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(node); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// maxBlockDepth is where nesting switches to flow style ({a: {b: 1}}):
// block style indents every level, so a hostile, deeply nested answer would
// otherwise grow quadratically on the way to the terminal.
const maxBlockDepth = 32

// yamlNode reads the next JSON value from dec and builds its YAML node.
func yamlNode(dec *json.Decoder, depth int) (*yaml.Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, invalidJSON(err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			// A repeated key keeps its last value, as encoding/json reads
			// it; YAML itself forbids duplicates.
			seen := map[string]int{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, invalidJSON(err)
				}
				key, ok := kt.(string)
				if !ok {
					return nil, errors.New("invalid JSON: object key is not a string")
				}
				val, err := yamlNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				if i, dup := seen[key]; dup {
					n.Content[i+1] = val
					continue
				}
				seen[key] = len(n.Content)
				n.Content = append(n.Content, strNode(key), val)
			}
			if _, err := dec.Token(); err != nil {
				return nil, invalidJSON(err)
			}
			if len(n.Content) == 0 || depth >= maxBlockDepth {
				n.Style = yaml.FlowStyle // {} rather than an empty line
			}
			return n, nil
		case '[':
			n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			for dec.More() {
				val, err := yamlNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, val)
			}
			if _, err := dec.Token(); err != nil {
				return nil, invalidJSON(err)
			}
			if len(n.Content) == 0 || depth >= maxBlockDepth {
				n.Style = yaml.FlowStyle
			}
			return n, nil
		}
		return nil, fmt.Errorf("invalid JSON: unexpected %q", t)
	case string:
		return strNode(t), nil
	case json.Number:
		tag := "!!int"
		if strings.ContainsAny(t.String(), ".eE") || !fitsInteger(t.String()) {
			// YAML readers hold integers in 64 bits; a longer one
			// reads back as a float, as JSON readers treat it anyway.
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: t.String()}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(t)}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	return nil, fmt.Errorf("invalid JSON: unexpected token %v", tok)
}

func fitsInteger(s string) bool {
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return true
	}
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}

// strNode is a string scalar; the encoder quotes it when its plain form
// would read back as something else ("true", "12", "null", "").
func strNode(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	switch {
	case strings.ContainsAny(s, "\n\r") || !isPrintable(s):
		n.Style = yaml.DoubleQuotedStyle
	case yaml11Bools[strings.ToLower(s)]:
		// YAML 1.2 reads these as strings, but YAML 1.1 readers (PyYAML,
		// older Ruby) read power_state: on as true.
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

var yaml11Bools = map[string]bool{"y": true, "n": true, "yes": true, "no": true, "on": true, "off": true}

// isPrintable rejects control characters, which YAML's plain and literal
// styles cannot carry. C1 (U+0080..U+009F) is among them, NEL (U+0085)
// included although YAML counts it printable: U+009B is an 8-bit CSI some
// terminals obey, and in double quotes yaml.v3 writes them as \x9B, \N.
func isPrintable(s string) bool {
	for _, r := range s {
		if r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0xfeff || (r >= 0xd800 && r <= 0xdfff) || r == 0xfffe || r == 0xffff {
			return false
		}
	}
	return true
}

func invalidJSON(err error) error {
	if err == io.EOF {
		return errors.New("invalid JSON: empty or truncated document")
	}
	return fmt.Errorf("invalid JSON: %w", err)
}
