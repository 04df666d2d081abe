package main

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ctxbench/ctxbench/internal/noprice"
	"github.com/ctxbench/ctxbench/pricing"
)

// notPriced attaches to err, a transcript or model that is not priced,
// the hint that mends it with one of the command's own flags (among
// "--pricing-model" and "--prices"); with neither, err stays as it is.
func notPriced(err error, flags ...string) error {
	var u *noprice.UnknownModelError
	switch {
	case errors.Is(err, noprice.ErrNoModel) && slices.Contains(flags, "--pricing-model"):
		return withHint(err, "pass --pricing-model M to price the calls of a transcript that records no model")
	case errors.As(err, &u) && slices.Contains(flags, "--prices"):
		return withHint(err, fmt.Sprintf("pass --prices FILE with a price for %s (ctxbench's JSON or LiteLLM's model_prices_and_context_window.json); ctxbench cost --list-models lists the embedded table", u.Model))
	}
	return err
}

// loadPrices reads --prices, or returns the embedded table.
func loadPrices(path string) (pricing.Prices, error) {
	if path == "" {
		return pricing.Default(), nil
	}
	p, err := pricing.Load(path)
	if err != nil {
		return nil, fmt.Errorf("--prices: %w", err)
	}
	return p, nil
}
