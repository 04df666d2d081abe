package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestProfiles: the CPU and allocation profiles the environment asks for
// are written as gzip-compressed pprof files, and a path that cannot be
// created is an error.
func TestProfiles(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.out"), filepath.Join(dir, "mem.out")
	stop, err := startProfile(cpu)
	if err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if err := writeAllocs(mem); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{cpu, mem} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
			t.Errorf("%s: not a gzip-compressed profile (%d bytes)", f, len(b))
		}
	}
	if err := writeAllocs(filepath.Join(dir, "missing", "mem.out")); err == nil {
		t.Error("an allocation profile in a missing directory: no error")
	}
}
