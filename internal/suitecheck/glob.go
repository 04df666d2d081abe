package suitecheck

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// expandHome replaces a leading ~ (alone, or before a separator) with
// the user's home folder, as a shell does; another path is returned as
// it is.
func expandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, p[1:]), nil
}

// glob returns the files pattern matches, as filepath.Glob does, but a
// path element ** matches any number of folders, none included
// (sessions/**/*.jsonl holds sessions/a.jsonl and
// sessions/p/subagents/b.jsonl); .git folders are passed over. Files
// come in lexical order.
func glob(pattern string) ([]string, error) {
	if !strings.Contains(pattern, "**") {
		return filepath.Glob(pattern)
	}
	elems := strings.Split(filepath.ToSlash(pattern), "/")
	for _, e := range elems {
		if _, err := path.Match(e, ""); err != nil {
			return nil, err
		}
	}
	// The walk starts at the folder the elements before the first
	// pattern name.
	fixed := 0
	for fixed < len(elems) && !strings.ContainsAny(elems[fixed], `*?[\`) {
		fixed++
	}
	root := strings.Join(elems[:fixed], "/")
	switch {
	case root == "" && fixed > 0:
		root = "/" // an absolute pattern with a pattern just under /
	case root == "":
		root = "."
	}
	root = filepath.FromSlash(root)
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: not a match, as filepath.Glob has it
		}
		if d.IsDir() {
			if d.Name() == ".git" && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err == nil && matchElems(elems[fixed:], strings.Split(filepath.ToSlash(rel), "/")) {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// matchElems reports whether the path elements name match the pattern
// elements pat, ** matching any number of elements.
func matchElems(pat, name []string) bool {
	if len(pat) == 0 {
		return len(name) == 0
	}
	if pat[0] == "**" {
		return matchElems(pat[1:], name) || len(name) > 0 && matchElems(pat, name[1:])
	}
	if len(name) == 0 {
		return false
	}
	ok, _ := path.Match(pat[0], name[0])
	return ok && matchElems(pat[1:], name[1:])
}
