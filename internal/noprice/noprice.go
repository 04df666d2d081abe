// Package noprice holds the errors of a model with no price: what
// pricing.NotPriced tells apart, and what the command's and the reports'
// hints read.
package noprice

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNoModel is the error of a price asked for with no model name: a
// transcript that records no model, priced without one given.
var ErrNoModel = errors.New("the transcript records no model")

// An UnknownModelError is a model the table has no price for; Closest
// are the table's nearest names, for a hint.
type UnknownModelError struct {
	Model   string
	Closest []string
}

func (e *UnknownModelError) Error() string {
	return fmt.Sprintf("no price for model %q (closest: %s)", e.Model, strings.Join(e.Closest, ", "))
}
