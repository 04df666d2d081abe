// Package tempfile makes the temporary files ctxbench spools to: files
// with no name, which live while they are open and no longer, so that a
// killed run leaves none behind.
package tempfile

import "os"

// Unlinked makes a file in the temporary directory (os.CreateTemp's
// pattern) and removes its name at once.
func Unlinked(pattern string) (*os.File, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
