package framework

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/argoproj/argo-cd/v3/cmpserver/apiclient"
	"github.com/argoproj/argo-cd/v3/util/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// PluginClient is a client of the cmp-phase sidecar's socket, as argocd-repo-server holds
// one; Close it when done.
type PluginClient struct {
	conn *grpc.ClientConn
	cmp  apiclient.ConfigManagementPluginServiceClient
}

// DialPlugin connects to the cmp-phase sidecar's socket in the environment.
func (e *Env) DialPlugin() (*PluginClient, error) {
	conn, err := grpc.NewClient("unix://"+filepath.Join(e.PluginSockDir, contract.PluginName+".sock"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("dial plugin: %w", err)
	}
	return &PluginClient{conn: conn, cmp: apiclient.NewConfigManagementPluginServiceClient(conn)}, nil
}

// Close ends the connection.
func (c *PluginClient) Close() error { return c.conn.Close() }

// Render streams the repository at root (without .git) with the app directory appDir and
// the environment envs (NAME=value, as the repo-server sends them), and returns the manifests.
func (c *PluginClient) Render(ctx context.Context, root, appDir string, envs []string) ([]string, error) {
	stream, err := c.cmp.GenerateManifest(ctx)
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	if err := cmp.SendRepoStream(ctx, appDir, root, stream, envs, []string{".git"}); err != nil {
		return nil, fmt.Errorf("render: send repository: %w", err)
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	return resp.GetManifests(), nil
}
