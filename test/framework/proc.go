package framework

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Proc is one program the harness started. It runs in its own process group, dies with the
// test binary (Pdeathsig), and logs to a file under the environment's log directory.
type Proc struct {
	Name    string
	LogPath string
	spec    ProcSpec // how it was started (Env.Restart starts it again so)
	cmd     *exec.Cmd
	done    chan struct{}
	once    sync.Once
	waitErr error
}

// ProcSpec says how to start a program.
type ProcSpec struct {
	Name string
	Path string
	Args []string
	Env  []string // added to a minimal base environment
	Dir  string
}

func startProc(logDir string, spec ProcSpec) (*Proc, error) {
	logPath := filepath.Join(logDir, spec.Name+".log")
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open log of %s: %w", spec.Name, err)
	}
	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Env = append(baseEnv(), spec.Env...)
	cmd.Dir = spec.Dir
	cmd.Stdout = f
	cmd.Stderr = f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("start %s: %w", spec.Name, err)
	}
	p := &Proc{Name: spec.Name, LogPath: logPath, spec: spec, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		_ = f.Close()
		close(p.done)
	}()
	return p, nil
}

// baseEnv keeps only what programs need from the test's environment.
func baseEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "LANG", "USER"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// PID is the process id (also the process group id).
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// Exited reports whether the program has ended.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Stop sends SIGTERM to the process group, then SIGKILL after grace. Some programs
// (argocd-cmp-server) ignore the first SIGTERM, so the kill always follows if needed.
func (p *Proc) Stop(grace time.Duration) {
	p.once.Do(func() {
		pgid := p.cmd.Process.Pid
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(grace):
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-p.done
		}
		// Reap anything left in the group (grandchildren holding no pipe of ours).
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	})
}

// Kill ends the process group with SIGKILL at once (a crash: no graceful shutdown) and
// waits for the process to be reaped.
func (p *Proc) Kill() {
	p.once.Do(func() {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	})
}

// Wait returns a channel closed when the process has ended.
func (p *Proc) Wait() <-chan struct{} { return p.done }

// Tail returns the last n bytes of the program's log.
func (p *Proc) Tail(n int64) string {
	f, err := os.Open(p.LogPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > n {
		_, _ = f.Seek(st.Size()-n, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	return string(b)
}

// FreePort returns a TCP port free on every address, picked below the kernel's ephemeral
// range (32768 and up on Linux): a port from that range, once released, can be taken by any
// outgoing connection before the program meant to listen on it binds (seen: Argo CD's
// controller failing with "address already in use" on its metrics port).
func FreePort() (int, error) {
	portMu.Lock()
	defer portMu.Unlock()
	for range 200 {
		p := 20000 + rand.IntN(12000)
		if portsGiven[p] {
			continue
		}
		l, err := net.Listen("tcp", ":"+strconv.Itoa(p))
		if err != nil {
			continue
		}
		_ = l.Close()
		portsGiven[p] = true
		return p, nil
	}
	return 0, fmt.Errorf("find free port: no free port in 20000-31999")
}

var (
	portMu     sync.Mutex
	portsGiven = map[int]bool{} // never hand out the same port twice in one test binary
)

// WaitTCP waits until addr accepts connections, the process dies, or the deadline passes.
func WaitTCP(ctx context.Context, p *Proc, addr string) error {
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
			return nil
		}
		if p != nil && p.Exited() {
			return fmt.Errorf("%s exited before listening on %s: %w\n%s", p.Name, addr, errors.Join(p.waitErr), p.Tail(4000))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %s: %w", addr, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// CheckNoneLeft fails when any program the environment started is still running.
func CheckNoneLeft(e *Env) error {
	var left []string
	for _, p := range e.Procs() {
		if !p.Exited() || syscall.Kill(-p.PID(), 0) == nil {
			left = append(left, fmt.Sprintf("%s (pid %d)", p.Name, p.PID()))
		}
	}
	if len(left) > 0 {
		return fmt.Errorf("processes left running after the tests: %v", left)
	}
	return nil
}
