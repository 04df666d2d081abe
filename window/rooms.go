package window

import (
	"github.com/ctxbench/ctxbench/window/internal/aidf"
	"github.com/ctxbench/ctxbench/window/internal/anthropic"
	"github.com/ctxbench/ctxbench/window/internal/claudecode"
	"github.com/ctxbench/ctxbench/window/internal/cline"
	"github.com/ctxbench/ctxbench/window/internal/codex"
	"github.com/ctxbench/ctxbench/window/internal/compress"
	"github.com/ctxbench/ctxbench/window/internal/crossturn"
	"github.com/ctxbench/ctxbench/window/internal/gemini"
	"github.com/ctxbench/ctxbench/window/internal/langchain"
	"github.com/ctxbench/ctxbench/window/internal/openai"
	"github.com/ctxbench/ctxbench/window/internal/opencode"
	"github.com/ctxbench/ctxbench/window/internal/prune"
	"github.com/ctxbench/ctxbench/window/internal/twotier"
	"github.com/ctxbench/ctxbench/window/internal/vercel"
)

// rooms are the policies of the modelled systems, each in a package of
// its own under window/internal: the registry lists them with this
// package's own (none, recorded and agent).
var rooms = [][]*Spec{
	aidf.Specs,
	prune.Specs,
	crossturn.Specs,
	compress.Specs,
	twotier.Specs,
	codex.Specs,
	gemini.Specs,
	opencode.Specs,
	claudecode.Specs,
	langchain.Specs,
	cline.Specs,
	vercel.Specs,
	openai.Specs,
	anthropic.Specs,
}

func init() {
	for _, specs := range rooms {
		registry = append(registry, specs...)
	}
}
