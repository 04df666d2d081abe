// Package imagerule holds the rules providers document for the tokens
// of an image, by its size in pixels.
package imagerule

import (
	"math"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/transcript"
)

// A Rule is how a provider counts the tokens of an image, by its
// size in pixels, as the provider documents it.
type Rule struct {
	// Name says whose rule it is ("anthropic", "openai-tiles 85+170",
	// "gemini-tiles", "gemini-3").
	Name   string
	tokens func(w, h int) int
}

// Tokens returns the image's tokens by the rule; ok is false when the
// image's size is not known.
func (r *Rule) Tokens(im transcript.Image) (n int, ok bool) {
	if r == nil || !im.Sized() {
		return 0, false
	}
	return r.tokens(im.Width, im.Height), true
}

// MessageTokens returns the tokens of m's images by rule: 0 for an image
// whose size is not known, and for every image when rule is nil.
func MessageTokens(rule *Rule, m *transcript.Message) int {
	if rule == nil {
		return 0
	}
	n := 0
	for _, b := range m.Blocks {
		for _, im := range b.Images {
			k, _ := rule.Tokens(im)
			n += k
		}
	}
	return n
}

// OfTranscript returns the image rule of t's provider: its first
// model's ([For]), nil when it records none.
func OfTranscript(t *transcript.Transcript) *Rule {
	if len(t.Models) == 0 {
		return nil
	}
	return For(t.Models[0])
}

// For returns the rule the model's provider documents for the
// images it reads, or nil when none is known for that model: ctxbench
// never counts an image by another model's rule.
//
//   - Claude (docs.claude.com, vision, "Calculate image costs"): an image
//     whose long edge is over 1,568 pixels, or that would take over about
//     1,600 tokens, is first scaled down, keeping its aspect ratio; it
//     then takes width × height / 750 tokens.
//   - OpenAI, the tile models (platform.openai.com, images and vision,
//     "Calculating costs"), at detail high or auto: the image is scaled
//     to fit 2,048 × 2,048, then so that its short side is 768 pixels (if
//     longer); it takes a base plus a count per 512-pixel tile: 85 + 170
//     for gpt-4o, gpt-4.1 and gpt-4.5, 2,833 + 5,667 for gpt-4o-mini, 75 +
//     150 for o1 and o3, 70 + 140 for gpt-5. Other OpenAI models (the
//     patch-counted minis, gpt-5.x) have no rule here.
//   - Gemini 1.5 and 2.x (ai.google.dev, "Token counting"): 258 tokens
//     when both sides are at most 384 pixels, else 258 per 768 × 768 tile.
//     Gemini 3 (its media_resolution, high by default for images): 1,120.
func For(model string) *Rule {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:] // a provider prefix: anthropic/claude-…, openai/gpt-…
	}
	switch {
	case strings.Contains(m, "claude"):
		return &Rule{Name: "anthropic", tokens: anthropicImageTokens}
	case strings.HasPrefix(m, "gemini-3"):
		return &Rule{Name: "gemini-3", tokens: func(int, int) int { return 1120 }}
	case strings.HasPrefix(m, "gemini-1.5") || strings.HasPrefix(m, "gemini-2"):
		return &Rule{Name: "gemini-tiles", tokens: geminiImageTiles}
	}
	for _, t := range openaiTileModels {
		if m == t.model || strings.HasPrefix(m, t.model+"-20") || t.model == "gpt-5" && m == "gpt-5-chat-latest" {
			base, tile := t.base, t.tile
			return &Rule{Name: "openai-tiles " + strconv.Itoa(base) + "+" + strconv.Itoa(tile), tokens: func(w, h int) int {
				return base + tile*openaiTiles(w, h)
			}}
		}
	}
	return nil
}

// openaiTileModels are the OpenAI models whose images are counted by
// 512-pixel tiles, with their base and per-tile tokens. A model matches
// its own name or a dated snapshot of it (gpt-4o-2024-08-06).
var openaiTileModels = []struct {
	model      string
	base, tile int
}{
	{"gpt-4o", 85, 170}, {"chatgpt-4o-latest", 85, 170}, {"gpt-4.1", 85, 170}, {"gpt-4.5-preview", 85, 170},
	{"gpt-4o-mini", 2833, 5667},
	{"o1", 75, 150}, {"o1-pro", 75, 150}, {"o3", 75, 150},
	{"gpt-5", 70, 140},
}

// Claude's limits before an image is scaled down.
const (
	anthropicMaxEdge   = 1568
	anthropicMaxTokens = 1600
)

func anthropicImageTokens(w, h int) int {
	fw, fh := float64(w), float64(h)
	if long := math.Max(fw, fh); long > anthropicMaxEdge {
		fw, fh = fw*anthropicMaxEdge/long, fh*anthropicMaxEdge/long
	}
	if fw*fh/750 > anthropicMaxTokens {
		s := math.Sqrt(anthropicMaxTokens * 750 / (fw * fh))
		fw, fh = fw*s, fh*s
	}
	return int(math.Ceil(math.Floor(fw) * math.Floor(fh) / 750))
}

// openaiTiles is the number of 512-pixel tiles of a w × h image at
// detail high.
func openaiTiles(w, h int) int {
	fw, fh := float64(w), float64(h)
	if fw > 2048 || fh > 2048 {
		s := 2048 / math.Max(fw, fh)
		fw, fh = math.Floor(fw*s), math.Floor(fh*s)
	}
	if short := math.Min(fw, fh); short > 768 {
		fw, fh = math.Floor(fw*768/short), math.Floor(fh*768/short)
	}
	return int(math.Ceil(fw/512) * math.Ceil(fh/512))
}

func geminiImageTiles(w, h int) int {
	if w <= 384 && h <= 384 {
		return 258
	}
	return 258 * ((w + 767) / 768) * ((h + 767) / 768)
}
