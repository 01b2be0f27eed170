# toolsieve proxy image: a static binary (CGO off) on an empty base, run as
# an unprivileged user. Configure it with TOOLSIEVE_* variables (see
# README.md, "Run it as a service", and deploy/compose.yaml).
#
#   docker build -t toolsieve --build-arg VERSION=$(git describe --always) .
#   docker run --rm -p 8080:8080 -e TOOLSIEVE_UPSTREAM=http://host.docker.internal:11434 toolsieve
#
# GO_IMAGE may name a local image with the Go toolchain (offline builds);
# GOPROXY=off then builds from the module cache that image holds.
ARG GO_IMAGE=golang:1.26-bookworm

FROM ${GO_IMAGE} AS build
ARG GOPROXY=https://proxy.golang.org,direct
ARG VERSION=dev
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The same command builds the binary in TestStaticBuild (cmd/toolsieve):
# keep it on one line.
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags "-s -w -X main.version=${VERSION}" -o /out/toolsieve ./cmd/toolsieve
RUN mkdir -p /out/capture && chown 65532:65532 /out/capture

FROM scratch
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/toolsieve /usr/local/bin/toolsieve
COPY --from=build --chown=65532:65532 /out/capture /var/lib/toolsieve/capture
# 65532: the conventional "nonroot" user of minimal images; no shell, no
# package manager, nothing but the binary and the CA certificates.
USER 65532:65532
ENV TOOLSIEVE_LISTEN=0.0.0.0:8080 \
    TOOLSIEVE_LOG_FORMAT=json
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/toolsieve", "proxy"]
