// Package sentreuse lets the replay engine tell a window policy that
// nothing reads the history it returns after the call, so that the
// policy may build its next history in the same array: a speed device
// of the engine, kept out of window's public API.
package sentreuse

// Allow marks a *window.Env so: package window sets it when it is
// loaded. A policy applied through the public API never sees the mark.
var Allow func(env any)
