package content

import (
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
)

// chunk is the most files one job hashes, so a large directory is shared among workers.
const chunk = 64

// job is files of one directory to hash: sums[k] is the SHA-256 of names[k].
type job struct {
	dir   *os.File // the directory, open; nil: the hasher opens it through the root
	path  string   // the directory's real repository-relative path
	names []string
	sums  [][32]byte
}

// hasher hashes files with a pool of GOMAXPROCS workers while the walker finds them.
type hasher struct {
	root     *os.Root
	jobs     chan *job
	maxBytes int64
	total    atomic.Int64 // bytes read
	failed   atomic.Bool
	once     sync.Once
	bad      string // the file that failed
	err      error
	wg       sync.WaitGroup
}

// worker is one goroutine's buffer and hash state.
type worker struct {
	buf []byte
	h   hash.Hash
}

func startHasher(r *os.Root, maxBytes int64) *hasher {
	hs := &hasher{root: r, jobs: make(chan *job, 256), maxBytes: maxBytes}
	for range runtime.GOMAXPROCS(0) {
		hs.wg.Go(func() {
			w := &worker{buf: make([]byte, 64<<10), h: sha256.New()}
			for j := range hs.jobs {
				if !hs.failed.Load() {
					if bad, err := hs.hashDir(w, j); err != nil {
						hs.fail(j.path, bad, err)
					}
				}
				if j.dir != nil {
					j.dir.Close()
				}
			}
		})
	}
	return hs
}

// add queues the named files of the directory at path (open as dir, or nil), in jobs of
// at most chunk files, and returns the jobs. The hasher closes dir.
func (hs *hasher) add(dir *os.File, path string, names []string) []*job {
	var js []*job
	for len(names) > 0 {
		n := min(len(names), chunk)
		j := &job{dir: dir, path: path, names: names[:n], sums: make([][32]byte, n)}
		hs.jobs <- j
		js, names, dir = append(js, j), names[n:], nil
	}
	return js
}

// wait waits for every queued job; on error it returns the file that failed.
func (hs *hasher) wait() (bad string, err error) {
	close(hs.jobs)
	hs.wg.Wait()
	return hs.bad, hs.err
}

func (hs *hasher) fail(dir, name string, err error) {
	hs.once.Do(func() { hs.bad, hs.err = join(dir, name), err })
	hs.failed.Store(true)
}

// sum reads file k of j to its end with read and records its SHA-256.
func (hs *hasher) sum(w *worker, j *job, k int, read func([]byte) (int, error)) error {
	w.h.Reset()
	for {
		n, err := read(w.buf)
		if n > 0 {
			w.h.Write(w.buf[:n])
			if hs.total.Add(int64(n)) > hs.maxBytes {
				return &tooLarge{what: "bytes in the files hashed", limit: hs.maxBytes, field: "MaxBytes"}
			}
		}
		if err == io.EOF || err == nil && n == 0 {
			w.h.Sum(j.sums[k][:0])
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", join(j.path, j.names[k]), err)
		}
	}
}
