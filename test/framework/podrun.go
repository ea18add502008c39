package framework

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
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
// harness wrote. Each container runs in a mount and UTS namespace of its own (unshare, as
// root) with a root of its own (chroot): a copy of its image's root filesystem
// (BuildImageRoot), the volumes mounted in it, read-only when the container asks.
type Pod struct {
	Name      string
	Namespace string
	Spec      corev1.PodSpec
	// Images are each image's root filesystem (a directory, BuildImageRoot), by its
	// repository (the image less its tag or digest).
	Images map[string]string
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
	if err := os.MkdirAll(stage, 0o755); err != nil {
		return nil, fmt.Errorf("stage %s/%s: %w", pod.Name, name, err)
	}
	env, err := e.containerEnv(ctx, pod, c)
	if err != nil {
		return nil, fmt.Errorf("env of %s/%s: %w", pod.Name, name, err)
	}
	image, ok := pod.Images[repository(c.Image)]
	if !ok {
		return nil, fmt.Errorf("container %s/%s runs image %s, which the test does not provide", pod.Name, name, c.Image)
	}
	if c.WorkingDir != "" {
		return nil, fmt.Errorf("container %s/%s sets workingDir, which the harness does not run (the image has no shell to change into it)", pod.Name, name)
	}
	u := userOf(pod.Spec, c, image)
	mounts, err := e.containerMounts(ctx, pod, c, stage, u)
	if err != nil {
		return nil, fmt.Errorf("volumes of %s/%s: %w", pod.Name, name, err)
	}
	root := filepath.Join(stage, "root")
	if err := prepareRoot(image, root, mounts, pod.Hosts); err != nil {
		return nil, fmt.Errorf("root of %s/%s: %w", pod.Name, name, err)
	}
	script := rootScript(root, pod.Name, mounts, readOnlyRoot(c))
	argv := expandAll(append(slices.Clone(c.Command), c.Args...), env)
	if len(c.Command) == 0 {
		return nil, fmt.Errorf("container %s/%s has no command: the harness does not read image entrypoints", pod.Name, name)
	}
	script += execLine(u, env, argv)
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

// userOf is the container's user as the kubelet and the runtime set it: runAsUser and
// runAsGroup (the container's over the pod's), the primary group of runAsUser in the
// image's /etc/passwd when no runAsGroup is set (0 when the image does not name the user),
// with fsGroup and supplementalGroups as supplementary groups.
func userOf(spec corev1.PodSpec, c corev1.Container, root string) user {
	u := user{gid: -1}
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
	if u.gid < 0 {
		u.gid = passwdGroup(filepath.Join(root, "etc", "passwd"), u.uid)
	}
	return u
}

// passwdGroup is uid's primary group in an /etc/passwd, 0 when it is not there.
func passwdGroup(file string, uid int) int {
	b, _ := os.ReadFile(file)
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, ":")
		if len(f) > 3 && f[2] == strconv.Itoa(uid) {
			if g, err := strconv.Atoi(f[3]); err == nil {
				return g
			}
		}
	}
	return 0
}

func readOnlyRoot(c corev1.Container) bool {
	return c.SecurityContext != nil && c.SecurityContext.ReadOnlyRootFilesystem != nil && *c.SecurityContext.ReadOnlyRootFilesystem
}

// prepareRoot copies the image's root filesystem to root (with owners and modes), makes the
// mount points the image lacks, and writes its /etc/hosts: a container runtime's writable
// layer, before the root turns read-only.
func prepareRoot(image, root string, mounts []mount, hosts map[string]string) error {
	if out, err := exec.Command("cp", "-a", image, root).CombinedOutput(); err != nil {
		return fmt.Errorf("copy the image: %w: %s", err, out)
	}
	for _, d := range []string{"dev", "proc", "sys", "etc"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			return err
		}
	}
	for _, m := range mounts {
		if err := os.MkdirAll(filepath.Join(root, m.target), 0o755); err != nil {
			return err
		}
	}
	var b strings.Builder
	b.WriteString("127.0.0.1 localhost\n")
	for _, n := range slices.Sorted(maps.Keys(hosts)) {
		fmt.Fprintf(&b, "%s %s\n", hosts[n], n)
	}
	return os.WriteFile(filepath.Join(root, "etc", "hosts"), []byte(b.String()), 0o644)
}

// shq quotes s for /bin/sh.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// rootScript mounts the container's root in its mount namespace (and names its UTS
// namespace after the pod, as a pod's hostname is): the copied image bound onto itself,
// /dev, /proc and /sys, the volumes (parents first); then the root turns read-only when the
// container asks.
func rootScript(root, hostname string, mounts []mount, readOnly bool) string {
	var b strings.Builder
	b.WriteString("set -eu\nR=" + shq(root) + "\nmount --bind \"$R\" \"$R\"\n")
	b.WriteString("hostname " + shq(hostname) + "\n")
	for _, d := range []string{"/dev", "/proc", "/sys"} {
		fmt.Fprintf(&b, "mount --rbind %[1]s \"$R\"%[1]s\n", shq(d))
	}
	slices.SortFunc(mounts, func(a, b mount) int { return strings.Count(a.target, "/") - strings.Count(b.target, "/") })
	for _, m := range mounts {
		fmt.Fprintf(&b, "mount --bind %s \"$R\"%s\n", shq(m.source), shq(m.target))
		if m.readOnly {
			fmt.Fprintf(&b, "mount -o remount,bind,ro \"$R\"%s\n", shq(m.target))
		}
	}
	if readOnly {
		b.WriteString("mount -o remount,bind,ro \"$R\"\n")
	}
	return b.String()
}

// execLine runs argv as the container's user in its root, with its env only.
func execLine(u user, env []string, argv []string) string {
	var b strings.Builder
	b.WriteString("exec env -i")
	for _, kv := range env {
		b.WriteString(" " + shq(kv))
	}
	b.WriteString(" chroot --userspec=" + strconv.Itoa(u.uid) + ":" + strconv.Itoa(u.gid))
	gs := []string{strconv.Itoa(u.gid)} // chroot keeps root's groups unless told
	for _, g := range u.groups {
		gs = append(gs, strconv.FormatInt(g, 10))
	}
	b.WriteString(" --groups=" + strings.Join(gs, ",") + " \"$R\"")
	for _, a := range argv {
		b.WriteString(" " + shq(a))
	}
	b.WriteString("\n")
	return b.String()
}
