package framework

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Pod is a pod, as a rendered manifest holds it, that the harness runs containers of the way
// a kubelet would: the container's command and args ($(VAR) expanded), its env and envFrom
// (values, the downward API, ConfigMap and Secret keys read from the API server), its
// volumes (emptyDir, configMap, secret, projected and downwardAPI) mounted at their
// mountPaths, its user and groups, a read-only root when it asks for one, and the API
// server reached as in-cluster (KUBERNETES_SERVICE_HOST). So a manifest's wrong flag,
// missing mount or unreadable token fails a test instead of hiding behind flags the
// harness wrote. Each container runs in a mount namespace of its own (unshare, as root) with
// a root of its own (chroot): the host's system directories, the image's files over them.
type Pod struct {
	Name      string
	Namespace string
	Spec      corev1.PodSpec
	// Images are what each image holds, by its repository (the image less its tag or
	// digest): its files by path in the image, each a file on this machine.
	Images map[string]map[string]string
	// Hosts are names the containers resolve (Services) and the loopback addresses that
	// stand for them (/etc/hosts).
	Hosts map[string]string
	// Shared are emptyDir volumes the containers share with programs the harness runs
	// itself (the repo-server's plugin socket directory), by volume name.
	Shared map[string]string
}

// RunContainer starts one container of the pod.
func (e *Env) RunContainer(ctx context.Context, pod Pod, name string) (*Proc, error) {
	c, ok := containerOf(pod.Spec, name)
	if !ok {
		return nil, fmt.Errorf("pod %s has no container %s", pod.Name, name)
	}
	stage := filepath.Join(e.Dir, "pods", pod.Name, name)
	if err := os.MkdirAll(filepath.Join(stage, "root"), 0o755); err != nil {
		return nil, fmt.Errorf("stage %s/%s: %w", pod.Name, name, err)
	}
	env, err := e.containerEnv(ctx, pod, c)
	if err != nil {
		return nil, fmt.Errorf("env of %s/%s: %w", pod.Name, name, err)
	}
	mounts, err := e.containerMounts(ctx, pod, c, stage)
	if err != nil {
		return nil, fmt.Errorf("volumes of %s/%s: %w", pod.Name, name, err)
	}
	files, ok := pod.Images[repository(c.Image)]
	if !ok {
		return nil, fmt.Errorf("container %s/%s runs image %s, which the test does not provide", pod.Name, name, c.Image)
	}
	hosts := filepath.Join(stage, "hosts")
	if err := writeHosts(hosts, pod.Hosts); err != nil {
		return nil, err
	}
	u := userOf(pod.Spec, c)
	script := rootScript(filepath.Join(stage, "root"), pod.Name, files, mounts, hosts, readOnlyRoot(c))
	argv := expandAll(append(slices.Clone(c.Command), c.Args...), env)
	if len(c.Command) == 0 {
		return nil, fmt.Errorf("container %s/%s has no command: the harness does not read image entrypoints", pod.Name, name)
	}
	script += execLine(u, c.WorkingDir, env, argv)
	scriptPath := filepath.Join(stage, "start.sh")
	if err := os.WriteFile(scriptPath, []byte(script), 0o700); err != nil {
		return nil, err
	}
	for _, dir := range pod.Shared { // an emptyDir, as the kubelet makes it
		if err := os.Chmod(dir, 0o777); err != nil {
			return nil, err
		}
	}
	return e.Start(ProcSpec{Name: pod.Name + "-" + name, Path: "unshare", Args: []string{"--mount", "--uts", "--propagation", "private", "/bin/sh", scriptPath}})
}

func containerOf(spec corev1.PodSpec, name string) (corev1.Container, bool) {
	for _, c := range spec.Containers {
		if c.Name == name {
			return c, true
		}
	}
	return corev1.Container{}, false
}

// repository is an image reference less its tag or digest.
func repository(image string) string {
	if i := strings.Index(image, "@"); i >= 0 {
		image = image[:i]
	}
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		image = image[:i]
	}
	return image
}

type user struct {
	uid, gid int
	groups   []int64
}

// userOf is the container's user as the kubelet sets it: runAsUser and runAsGroup (the
// container's over the pod's; no image here names a user, so 0 when unset), with fsGroup
// and supplementalGroups as supplementary groups.
func userOf(spec corev1.PodSpec, c corev1.Container) user {
	u := user{}
	if ps := spec.SecurityContext; ps != nil {
		if ps.RunAsUser != nil {
			u.uid = int(*ps.RunAsUser)
		}
		if ps.RunAsGroup != nil {
			u.gid = int(*ps.RunAsGroup)
		}
		if ps.FSGroup != nil {
			u.groups = append(u.groups, *ps.FSGroup)
		}
		u.groups = append(u.groups, ps.SupplementalGroups...)
	}
	if cs := c.SecurityContext; cs != nil {
		if cs.RunAsUser != nil {
			u.uid = int(*cs.RunAsUser)
		}
		if cs.RunAsGroup != nil {
			u.gid = int(*cs.RunAsGroup)
		}
	}
	return u
}

func readOnlyRoot(c corev1.Container) bool {
	return c.SecurityContext != nil && c.SecurityContext.ReadOnlyRootFilesystem != nil && *c.SecurityContext.ReadOnlyRootFilesystem
}

// writeHosts writes the container's /etc/hosts.
func writeHosts(file string, hosts map[string]string) error {
	var b strings.Builder
	b.WriteString("127.0.0.1 localhost\n")
	names := make([]string, 0, len(hosts))
	for n := range hosts {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&b, "%s %s\n", hosts[n], n)
	}
	return os.WriteFile(file, []byte(b.String()), 0o644)
}

// shq quotes s for /bin/sh.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// rootScript builds the container's root in its mount namespace (and names its UTS
// namespace after the pod, as a pod's hostname is): a tmpfs, the host's system
// directories bound read-only, the image's files, /dev, /proc and /sys, /etc/hosts, then the
// volume mounts (parents first); then the root turns read-only when the container asks.
func rootScript(root, hostname string, files map[string]string, mounts []mount, hosts string, readOnly bool) string {
	var b strings.Builder
	b.WriteString("set -eu\nR=" + shq(root) + "\nmount -t tmpfs -o mode=0755 cmp-phase-root \"$R\"\n")
	b.WriteString("hostname " + shq(hostname) + "\n")
	for _, d := range []string{"/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc"} {
		fmt.Fprintf(&b, "if [ -e %[1]s ]; then mkdir -p \"$R\"%[1]s; mount --rbind %[1]s \"$R\"%[1]s; mount -o remount,bind,ro \"$R\"%[1]s; fi\n", shq(d))
	}
	for _, d := range []string{"/dev", "/proc", "/sys"} {
		fmt.Fprintf(&b, "mkdir -p \"$R\"%[1]s; mount --rbind %[1]s \"$R\"%[1]s\n", shq(d))
	}
	fmt.Fprintf(&b, "mount --bind %s \"$R\"/etc/hosts\n", shq(hosts))
	// The image's files: each directory of them a tmpfs of its own over what the host has
	// there (never a write into the host's directories), then each file bound in.
	paths := make([]string, 0, len(files))
	dirs := map[string]bool{}
	for p := range files {
		paths = append(paths, p)
		dirs[path.Dir(p)] = true
	}
	slices.Sort(paths)
	for _, d := range slices.Sorted(maps.Keys(dirs)) {
		fmt.Fprintf(&b, "mkdir -p \"$R\"%[1]s 2>/dev/null || true; mount -t tmpfs -o mode=0755 cmp-phase-image \"$R\"%[1]s\n", shq(d))
	}
	for _, p := range paths {
		fmt.Fprintf(&b, "touch \"$R\"%s; mount --bind %s \"$R\"%s\n", shq(p), shq(files[p]), shq(p))
	}
	slices.SortFunc(mounts, func(a, b mount) int { return strings.Count(a.target, "/") - strings.Count(b.target, "/") })
	for _, m := range mounts {
		fmt.Fprintf(&b, "mkdir -p \"$R\"%s; mount --bind %s \"$R\"%s\n", shq(m.target), shq(m.source), shq(m.target))
		if m.readOnly {
			fmt.Fprintf(&b, "mount -o remount,bind,ro \"$R\"%s\n", shq(m.target))
		}
	}
	if readOnly {
		b.WriteString("mount -o remount,ro \"$R\"\n")
	}
	return b.String()
}

// execLine runs argv as the container's user in its root, with its env only.
func execLine(u user, workDir string, env []string, argv []string) string {
	var b strings.Builder
	b.WriteString("exec chroot --userspec=" + strconv.Itoa(u.uid) + ":" + strconv.Itoa(u.gid))
	gs := []string{strconv.Itoa(u.gid)} // chroot keeps root's groups unless told
	for _, g := range u.groups {
		gs = append(gs, strconv.FormatInt(g, 10))
	}
	b.WriteString(" --groups=" + strings.Join(gs, ","))
	b.WriteString(" \"$R\" /usr/bin/env -i")
	if workDir != "" {
		b.WriteString(" -C " + shq(workDir))
	}
	for _, kv := range env {
		b.WriteString(" " + shq(kv))
	}
	for _, a := range argv {
		b.WriteString(" " + shq(a))
	}
	b.WriteString("\n")
	return b.String()
}
