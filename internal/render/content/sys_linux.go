//go:build linux

package content

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// listDir lists the directory f, opened through the os.Root, without the lstat per entry
// that os.File.ReadDir makes for a file of a Root: it reads a duplicate of the descriptor
// as a plain file, whose entries carry the type the kernel reports.
func listDir(f *os.File) ([]fs.DirEntry, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var fd uintptr
	var errno syscall.Errno
	if err := rc.Control(func(s uintptr) {
		fd, _, errno = syscall.Syscall(syscall.SYS_FCNTL, s, syscall.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return nil, err
	}
	if errno != 0 {
		return nil, fmt.Errorf("list %s: %w", f.Name(), errno)
	}
	d := os.NewFile(fd, f.Name())
	defer d.Close()
	return d.ReadDir(-1)
}

// hashDir hashes the files of j. The directory is opened through the os.Root, and each
// file relative to it by name with O_NOFOLLOW, so no file outside the repository is read;
// raw system calls spare the os.File set-up per file. On error it returns the file's name.
func (hs *hasher) hashDir(w *worker, j *job) (string, error) {
	if j.dir == nil {
		d, err := hs.root.Open(j.path)
		if err != nil {
			return j.names[0], err
		}
		j.dir = d
	}
	rc, err := j.dir.SyscallConn()
	if err != nil {
		return j.names[0], err
	}
	bad, ferr := "", error(nil)
	err = rc.Control(func(fd uintptr) {
		for k, name := range j.names {
			if ferr = hs.hashAt(w, int(fd), j, k); ferr != nil {
				bad = name
				return
			}
		}
	})
	if err == nil {
		err = ferr
	}
	return bad, err
}

// hashAt hashes file k of j, opened relative to the directory dirfd.
func (hs *hasher) hashAt(w *worker, dirfd int, j *job, k int) error {
	flags := syscall.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_CLOEXEC | syscall.O_NONBLOCK
	var fd int
	err := retry(func() (err error) {
		fd, err = syscall.Openat(dirfd, j.names[k], flags, 0)
		return err
	})
	if err != nil {
		return fmt.Errorf("open %s: %w", join(j.path, j.names[k]), err)
	}
	defer syscall.Close(fd)
	return hs.sum(w, j, k, func(b []byte) (n int, err error) {
		err = retry(func() (err error) {
			n, err = syscall.Read(fd, b)
			return err
		})
		return max(n, 0), err
	})
}

// retry calls f again while it is interrupted by a signal.
func retry(f func() error) error {
	for {
		if err := f(); err != syscall.EINTR {
			return err
		}
	}
}
