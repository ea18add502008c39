//go:build !linux

package content

import (
	"io/fs"
	"os"
)

// listDir lists the directory f.
func listDir(f *os.File) ([]fs.DirEntry, error) {
	return f.ReadDir(-1)
}

// hashDir hashes the files of j, each opened through the os.Root.
// On error it returns the file's name.
func (hs *hasher) hashDir(w *worker, j *job) (string, error) {
	for k, name := range j.names {
		f, err := hs.root.Open(join(j.path, name))
		if err != nil {
			return name, err
		}
		err = hs.sum(w, j, k, f.Read)
		f.Close()
		if err != nil {
			return name, err
		}
	}
	return "", nil
}
