package openai

import (
	"testing"

	"github.com/ctxbench/ctxbench/window/internal/policy"
	"github.com/ctxbench/ctxbench/window/internal/policytest"
)

// mustPolicy builds the policy of this room spec names.
func mustPolicy(t *testing.T, spec string) policy.Policy { return policytest.Parse(t, Specs, spec) }
