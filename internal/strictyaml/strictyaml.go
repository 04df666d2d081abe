// Package strictyaml checks a YAML file for what yaml.v3 reports too
// late or at too high a price, before it is decoded.
package strictyaml

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Check parses b and returns an error naming the first mapping key that
// repeats an earlier key of its mapping, with both lines. Decoding a
// file with many repeated keys, yaml.v3 builds an error for every pair
// (an 85 KB file runs out of memory); Check stops at the first.
func Check(b []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return err
	}
	return check(&doc, 0)
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
