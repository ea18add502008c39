// Command release builds and pushes cmp-phase's release artifacts (internal/release);
// hack/release.sh runs it.
//
//	go run ./hack/release build -version v0.2.0 -out dist/v0.2.0 -ui-js ui/dist/extension-cmp-phase.js
//	go run ./hack/release push -out dist/v0.2.0 [-to REGISTRY/REPO:TAG]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/release"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("no command (fix: release build … or release push …)")
	}
	switch args[0] {
	case "build":
		return build(ctx, args[1:])
	case "push":
		return push(ctx, args[1:])
	}
	return fmt.Errorf("unknown command %q (fix: build or push)", args[0])
}

func build(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	o := release.Options{}
	fs.StringVar(&o.Version, "version", "", "the release, vMAJOR.MINOR.PATCH")
	fs.StringVar(&o.Out, "out", "", "an empty or new directory for the release's files")
	fs.StringVar(&o.UIJS, "ui-js", "ui/dist/extension-cmp-phase.js", "the built UI extension bundle")
	fs.StringVar(&o.Image, "image", release.DefaultImage, "the repository the image is pushed to, which the manifests name")
	fs.StringVar(&o.Revision, "revision", "", "the commit, for the image's labels")
	fs.StringVar(&o.CABundle, "ca-bundle", release.DefaultCABundle, "the PEM CA bundle the image carries")
	fs.BoolVar(&o.Partial, "partial", false, "a trial for fewer platforms: no krew manifest")
	imgs := fs.String("image-platforms", platforms(release.ImagePlatforms), "the image's platforms")
	clis := fs.String("cli-platforms", platforms(release.CLIPlatforms), "the CLI archives' platforms")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var err error
	if o.ImagePlatforms, err = release.ParsePlatforms(*imgs); err != nil {
		return err
	}
	if o.CLIPlatforms, err = release.ParsePlatforms(*clis); err != nil {
		return err
	}
	if o.Root, err = os.Getwd(); err != nil {
		return fmt.Errorf("working dir: %w", err)
	}
	if o.Epoch, err = release.Epoch(o.Root); err != nil {
		return err
	}
	res, err := release.Release(ctx, o)
	if err != nil {
		return err
	}
	fmt.Printf("image %s (OCI layout %s)\n", res.Pinned, filepath.Join(o.Out, release.Layout))
	for _, f := range res.Files {
		fmt.Println(filepath.Join(o.Out, f))
	}
	return nil
}

func push(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("push", flag.ContinueOnError)
	out := fs.String("out", "", "the release's directory (release build -out)")
	to := fs.String("to", "", "REGISTRY/REPO:TAG; by default the repository the manifests name, at the release's version")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ref, err := defaultTarget(*out)
	if err != nil {
		return err
	}
	if *to != "" {
		ref = *to
	}
	d, err := release.Push(ctx, filepath.Join(*out, release.Layout), ref)
	if err != nil {
		return err
	}
	fmt.Printf("pushed %s@%s\n", ref, d)
	return nil
}

// defaultTarget is REPO:VERSION from the release's image file (cmp-phase_<v>_image.txt).
func defaultTarget(out string) (string, error) {
	files, _ := filepath.Glob(filepath.Join(out, "cmp-phase_*_image.txt"))
	if len(files) != 1 {
		return "", fmt.Errorf("%s holds %d image files, want one (fix: name the directory release build wrote)", out, len(files))
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		return "", fmt.Errorf("image file: %w", err)
	}
	repo, _, _ := strings.Cut(strings.TrimSpace(string(b)), "@")
	v := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(files[0]), "cmp-phase_"), "_image.txt")
	return repo + ":" + v, nil
}

func platforms(ps []release.Platform) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, ",")
}
