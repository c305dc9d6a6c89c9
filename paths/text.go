package paths

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/agentlsp/agentlsp/messages"
)

// MaxFileSize bounds the files agentlsp reads and syncs, in bytes.
const MaxFileSize = 16 << 20

// Stamp identifies one content of a file on disk by its size and
// modification time. The zero Stamp is a file that does not exist (or
// could not be read).
type Stamp struct {
	Size    int64
	ModTime time.Time
	// Changed is the inode's change time (ctime; zero where it is not
	// read), which every write and every change of ModTime moves on:
	// rsync -a, cp -p and tar give a file they replace its old
	// modification time, and one of the same size looked unchanged.
	Changed time.Time
}

// Exists reports whether the stamp is of an existing file.
func (s Stamp) Exists() bool { return s != Stamp{} }

// SameFile reports whether size and times match: cheap, without reading
// the file. Where the change time is read (Linux), a rewrite always shows;
// elsewhere a file rewritten within the file system's time resolution (or
// given back its old time) with the same size looks the same: the
// watcher's events tell those apart (the router reads a file the watcher
// saw change even when its stamp did not).
func (s Stamp) SameFile(o Stamp) bool {
	return s.Size == o.Size && s.ModTime.Equal(o.ModTime) && s.Changed.Equal(o.Changed)
}

// StampOf stats path (following links): the zero Stamp unless it is a
// regular file. On Linux it makes the system call itself, into a value on
// the stack (os.Stat allocated a FileInfo for each of the router's
// several stats per call).
func StampOf(path string) Stamp { return stampOf(path) }

// osStampOf is StampOf through os.Stat.
func osStampOf(path string) Stamp {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return Stamp{}
	}
	return stampOfInfo(fi)
}

// ReadText reads the file at abs (a path InWorkspace or CheckFile
// returned) as text, with its stamp. It must be a regular file of at most
// MaxFileSize bytes holding valid UTF-8 without NUL bytes; the errors wrap
// messages.ErrFileNotFound, ErrIsDirectory, ErrFileTooLarge or ErrNotText
// and name the file as given.
func ReadText(abs, given string) (string, Stamp, error) {
	text, stamp, _, err := readText(abs, given, false)
	return text, stamp, err
}

// Lease says whether a file was read while no writer had it open.
type Lease int

const (
	// LeaseNone: it cannot be told (not Linux, leases turned off, a file
	// of another user, a file system without them).
	LeaseNone Lease = iota
	// LeaseHeld: no process had the file open for writing while it was
	// read, so it was read whole: never between a writer's truncation and
	// its write.
	LeaseHeld
	// LeaseBusy: a process had the file open for writing when it was
	// read: the text may be half written.
	LeaseBusy
)

// ReadTextLeased is ReadText under a read lease (Linux): it also says
// whether the text was read while no writer had the file open (see
// Lease). A writer that opens the file during the read waits until the
// read is over.
func ReadTextLeased(abs, given string) (string, Stamp, Lease, error) {
	return readText(abs, given, true)
}

// openRegular opens a regular file of at most MaxFileSize bytes to read
// (errors name it as given), without blocking on a named pipe.
func openRegular(abs, given string) (*os.File, os.FileInfo, error) {
	f, err := openRead(abs)
	if err != nil {
		return nil, nil, &messages.PathError{Path: given, Kind: messages.ErrFileNotFound, Detail: err.Error()}
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		err = &messages.PathError{Path: given, Kind: messages.ErrFileNotFound, Detail: err.Error()}
	case fi.IsDir():
		err = &messages.PathError{Path: given, Kind: messages.ErrIsDirectory}
	case !fi.Mode().IsRegular():
		err = notRegular(given, fi.Mode())
	case fi.Size() > MaxFileSize:
		err = fmt.Errorf("%w: %s is %d bytes, the limit is %d", messages.ErrFileTooLarge, given, fi.Size(), MaxFileSize)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

func readText(abs, given string, lease bool) (string, Stamp, Lease, error) {
	f, fi, err := openRegular(abs, given)
	if err != nil {
		return "", Stamp{}, LeaseNone, err
	}
	defer f.Close()
	held := LeaseNone
	if lease {
		if held = takeLease(f); held == LeaseHeld {
			// The stamp again, under the lease: a writer that closed the
			// file between the first stat and the lease changed it.
			if fi, err = f.Stat(); err != nil {
				dropLease(f)
				return "", Stamp{}, LeaseNone, &messages.PathError{Path: given, Kind: messages.ErrFileNotFound, Detail: err.Error()}
			}
		}
	}
	b, err := readAll(f, fi.Size())
	if held == LeaseHeld {
		dropLease(f)
	}
	switch {
	case errors.Is(err, messages.ErrFileTooLarge):
		return "", Stamp{}, held, fmt.Errorf("%w: %s grew past the limit of %d bytes", messages.ErrFileTooLarge, given, MaxFileSize)
	case err != nil:
		return "", Stamp{}, held, &messages.PathError{Path: given, Kind: messages.ErrFileNotFound, Detail: err.Error()}
	}
	if err := CheckText(b); err != nil {
		return "", Stamp{}, held, fmt.Errorf("%w: %s", err, given)
	}
	// The text is b itself, which nothing else holds or changes (as
	// strings.Builder does): a file is held in memory once, not twice.
	text := unsafe.String(unsafe.SliceData(b), len(b))
	return text, stampOfInfo(fi), held, nil
}

// ReadRegular reads a regular file of at most MaxFileSize bytes: not a
// named pipe, which opening to read could block for ever, nor a device.
// For files read without a person naming them (a walk of the workspace).
func ReadRegular(abs string) ([]byte, error) {
	f, fi, err := openRegular(abs, abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, fi.Size())
}

// readAll reads f to its end in one buffer of the size it had (size, from
// its stat; io.ReadAll starts at 512 bytes and doubles), growing it if the
// file grew meanwhile, and fails with messages.ErrFileTooLarge past
// MaxFileSize bytes.
func readAll(f *os.File, size int64) ([]byte, error) {
	b := make([]byte, 0, max(min(size, MaxFileSize)+1, 512)) // +1: the end is seen without growing
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		switch {
		case len(b) > MaxFileSize:
			return nil, messages.ErrFileTooLarge
		case err == io.EOF:
			return b, nil
		case err != nil:
			return nil, err
		case len(b) == cap(b):
			b = append(b, 0)[:len(b)]
		}
	}
}

// CheckText reports text that is not valid UTF-8 or holds a NUL byte
// (messages.ErrNotText). A string is checked in place, not copied.
func CheckText[T string | []byte](text T) error {
	var nul, valid bool
	switch t := any(text).(type) {
	case string:
		nul, valid = strings.IndexByte(t, 0) >= 0, utf8.ValidString(t)
	case []byte:
		nul, valid = bytes.IndexByte(t, 0) >= 0, utf8.Valid(t)
	}
	if nul {
		return fmt.Errorf("%w (it holds a NUL byte)", messages.ErrNotText)
	}
	if !valid {
		return fmt.Errorf("%w (it is not valid UTF-8)", messages.ErrNotText)
	}
	return nil
}
