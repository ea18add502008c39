package cmpserver

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/argoproj/argo-cd/v3/cmpserver/apiclient"
	"google.golang.org/grpc"
)

// Serve listens on <socketDir>/<pluginName>.sock until ctx ends, then stops gracefully.
func Serve(ctx context.Context, socketDir, pluginName string, srv *Server) error {
	sock := filepath.Join(socketDir, pluginName+".sock")
	if err := os.Remove(sock); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("remove stale socket %s: %w", sock, err)
	}
	l, err := net.Listen("unix", sock)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", sock, err)
	}
	g := grpc.NewServer(grpc.MaxRecvMsgSize(64 << 20))
	apiclient.RegisterConfigManagementPluginServiceServer(g, srv)
	errc := make(chan error, 1)
	go func() { errc <- g.Serve(l) }()
	srv.log.Info("serving", "socket", sock)
	select {
	case <-ctx.Done():
		g.GracefulStop()
		_ = os.Remove(sock)
		return nil
	case err := <-errc:
		return fmt.Errorf("serve %s: %w", sock, err)
	}
}
