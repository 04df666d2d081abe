//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHelperMain is the command itself when the test binary is run with
// CTXBENCH_HELPER_ARGS (its arguments, separated by newlines).
func TestHelperMain(t *testing.T) {
	args, ok := os.LookupEnv("CTXBENCH_HELPER_ARGS")
	if !ok {
		t.Skip("run by the tests that start the command")
	}
	os.Args = append([]string{"ctxbench"}, strings.Split(args, "\n")...)
	os.Exit(mainCode())
}

// TestTermStopsARunWaitingOnAPipe: SIGTERM stops a run that waits for a
// writer to a named pipe within stopGrace, exit 2, where it waited for
// ever before.
func TestTermStopsARunWaitingOnAPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("waits stopGrace")
	}
	fifo := filepath.Join(t.TempDir(), "session.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperMain$")
	cmd.Env = append(os.Environ(), "CTXBENCH_HELPER_ARGS=inspect\n"+fifo)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // the run is waiting in open
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitError {
			t.Errorf("exit: %v, want status %d", err, exitError)
		}
		if !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("stderr %q, want it to say interrupted", stderr.String())
		}
		if took := time.Since(sent); took > stopGrace+3*time.Second {
			t.Errorf("stopped %v after SIGTERM, want within %v", took, stopGrace)
		}
	case <-time.After(stopGrace + 10*time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("still running %v after SIGTERM", stopGrace+10*time.Second)
	}
}
