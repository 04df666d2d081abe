// Package strictyaml checks a YAML file, before it is decoded, for what
// yaml.v3 reports too late, at too high a price, or not at all.
package strictyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// Check parses b and returns an error naming the first mapping key that
// repeats an earlier key of its mapping, with both lines, or the line
// of a second document: a file is one document, and yaml.v3 decodes
// the first of several and ignores the rest. Decoding a file with many
// repeated keys, yaml.v3 builds an error for every pair (an 85 KB file
// runs out of memory); Check stops at the first.
func Check(b []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) { // empty, or comments alone
			return nil
		}
		return err
	}
	if err := check(&doc, 0); err != nil {
		return err
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
		return nil
	case err != nil:
		return err
	}
	return fmt.Errorf("line %d: a second YAML document: the file must hold one; join it to the first or remove it", next.Line)
}

// maxDepth bounds the nesting Check walks, as a config never nests deep.
const maxDepth = 100

func check(n *yaml.Node, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("line %d: nested more than %d levels deep", n.Line, maxDepth)
	}
	if n.Kind == yaml.MappingNode {
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			if line, dup := seen[k.Value]; dup {
				return fmt.Errorf("line %d: key %q is already defined at line %d", k.Line, k.Value, line)
			}
			seen[k.Value] = k.Line
		}
	}
	for _, c := range n.Content {
		if err := check(c, depth+1); err != nil {
			return err
		}
	}
	return nil
}
