# One image with both binaries: cmp-phase (the plugin sidecar and the CLI) and agent.
# Static (CGO_ENABLED=0), non-root (uid 999, as Argo CD's CMP sidecars run), and made to run
# with a read-only root filesystem (the manifests mount an emptyDir on /tmp).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY cmd ./cmd
COPY internal ./internal
# VERSION (e.g. v1.2.0) is the release the binaries say they are: a spec's
# argocd.argoproj.io/min-version is compared with it; empty is a development build.
ARG VERSION=
RUN X="-X github.com/cmp-phase/cmp-phase/internal/version.stamped=${VERSION}" \
 && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w $X" -o /out/cmp-phase ./cmd/cmp-phase \
 && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w $X" -o /out/agent ./cmd/agent

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/cmp-phase /out/agent /usr/local/bin/
COPY plugin.yaml /home/argocd/cmp-server/config/plugin.yaml
USER 999:999
ENTRYPOINT ["/usr/local/bin/cmp-phase"]
