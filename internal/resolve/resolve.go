// Package resolve looks models up in price tables once per name: what
// prices many calls of few models uses.
package resolve

import (
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/ctxbench/ctxbench/pricing"
)

// A Resolver looks models up in a table ([pricing.Prices.Lookup]), each name
// once: what prices many calls of few models uses (a lookup sorts the
// table's names and tries its patterns; one that fails compares the
// name with every entry). It is safe for concurrent use.
type Resolver struct {
	prices pricing.Prices
	mu     sync.Mutex
	seen   map[string]resolved
}

type resolved struct {
	price pricing.Price
	name  string
	err   error
}

// New returns a Resolver of prices, which must not change while
// it is used.
func New(prices pricing.Prices) *Resolver {
	return &Resolver{prices: prices, seen: map[string]resolved{}}
}

// Prices returns the table r looks models up in.
func (r *Resolver) Prices() pricing.Prices { return r.prices }

// Lookup is the table's Lookup of model, found once.
func (r *Resolver) Lookup(model string) (pricing.Price, string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	l, ok := r.seen[model]
	if !ok {
		l.price, l.name, l.err = r.prices.Lookup(model)
		r.seen[model] = l
	}
	return l.price, l.name, l.err
}

// Of returns the Resolver of prices, one per table: the same
// table (the same map, not an equal one) gives the same Resolver, so
// that the transcripts priced at one table look each name up once
// between them; nil, or the table defaultResolver holds, gives
// defaultResolver. The table must not change once looked up. Past
// maxShared tables, each call for a table not yet kept gets a Resolver
// of its own.
func Of(prices pricing.Prices) *Resolver {
	if prices == nil {
		return defaultResolver()
	}
	defaultResolver() // the embedded table's is shared too
	key := reflect.ValueOf(prices).UnsafePointer()
	if r, ok := shared.Load(key); ok {
		return r.(*Resolver)
	}
	r := New(prices)
	// The Resolver holds the table, so that its address is never
	// another table's while the entry lives.
	if sharedCount.Add(1) <= maxShared {
		actual, _ := shared.LoadOrStore(key, r)
		return actual.(*Resolver)
	}
	return r
}

// maxShared bounds the tables [Of] keeps: a process prices at
// one table or a few.
const maxShared = 16

var (
	shared      sync.Map // table's address → *Resolver
	sharedCount atomic.Int32
)

// defaultResolver is the Resolver of the embedded table, shared.
var defaultResolver = sync.OnceValue(func() *Resolver {
	r := New(pricing.Default())                                // a copy of the embedded table, its own
	shared.Store(reflect.ValueOf(r.prices).UnsafePointer(), r) // Of(r.Prices()) is r
	return r
})

// LookupDefault is pricing.Default().Lookup(model), through
// defaultResolver: what a replay asks of the table for every run.
func LookupDefault(model string) (pricing.Price, string, error) {
	return defaultResolver().Lookup(model)
}
