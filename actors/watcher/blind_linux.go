//go:build linux

package watcher

import "golang.org/x/sys/unix"

// blindTypes are the file systems (statfs magic numbers, linux/magic.h)
// that others change without the kernel here hearing of it: inotify
// reports the changes made through this machine's mount only, not those
// made by another NFS or SMB client, by Windows to a drive WSL mounts
// (9p), by the host of a VM's shared folder, or behind a FUSE mount.
var blindTypes = map[uint32]string{
	0x6969:     "nfs",
	0x517b:     "smb",
	0xff534d42: "cifs",
	0xfe534d42: "smb2",
	0x01021997: "9p",
	0x65735546: "fuse",
	0x00c36400: "ceph",
	0x5346414f: "afs",
	0x6b414653: "afs",
	0x73757245: "coda",
	0x0bd00bd0: "lustre",
	0x01161970: "gfs2",
	0x7461636f: "ocfs2",
	0x786f4256: "vboxsf",
}

// blindFS names the file system holding dir when it is one of
// blindTypes, else "" (also when statfs fails: the watcher then works as
// on a local disk).
func blindFS(dir string) string {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return ""
	}
	return blindTypes[uint32(st.Type)] // the magic numbers are 32 bits; Type is wider on some systems
}
