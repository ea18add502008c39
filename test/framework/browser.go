package framework

import (
	"errors"
	"os/exec"

	"github.com/chromedp/chromedp"
)

// Chromium is the path of Debian's chromium (hack/build-tools.sh installs it).
func Chromium() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("chromium not found (fix: run hack/build-tools.sh, which installs Debian's chromium)")
}

// BrowserOptions start a headless Chromium at path with a fresh profile in userDataDir,
// nothing fetched but what the page asks for.
func BrowserOptions(path, userDataDir string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(userDataDir),
		chromedp.WindowSize(1280, 1000),
	}
}
