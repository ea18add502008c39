package extension

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"
)

// Server limits: a slow or large request is cut off before it holds a slot long.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 10 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 60 * time.Second
	maxHeaderBytes    = 16 << 10
)

// Serve serves h on addr until the returned stop is called.
func Serve(addr string, h http.Handler, log *slog.Logger) (stop func(), err error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("extension endpoint on %s: %w (fix: another --extension-addr)", addr, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout,
		WriteTimeout: writeTimeout, IdleTimeout: idleTimeout, MaxHeaderBytes: maxHeaderBytes}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("extension endpoint stopped", "error", err)
		}
	}()
	log.Info("serving the UI extension's endpoint", "addr", l.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}

// ReadSecret reads the shared secret from path (surrounding white space dropped); an empty
// or short one is refused. The error never holds the secret.
func ReadSecret(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil { // not %w: the error names the path, which may be the secret put in by mistake
		return nil, errors.New("--extension-secret-file is not a readable file (fix: mount the Secret extension.config references and give its file's path, not the secret itself)")
	}
	b = bytes.TrimSpace(b)
	if len(b) < 16 {
		return nil, errors.New("the extension secret in --extension-secret-file is shorter than 16 bytes (fix: e.g. openssl rand -hex 32)")
	}
	return b, nil
}
