# loom's image: `docker build -t kube-loom .` at the repository root.
#
# The build stage compiles and packs the packages and installs them with --omit=dev through
# scripts/image-rootfs.sh; the runtime stage copies that tree and nothing else. `make image-rootfs`
# runs the same script on a machine without a container engine, and the tests run loom from its
# output, so the payload tested is the payload shipped.
FROM node:24-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
COPY src/sdk/package.json src/sdk/
# --ignore-scripts: the `node` devDependency pins Node for the repository's own scripts; the image
# has Node 24 already and needs no download.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN bash scripts/image-rootfs.sh /rootfs

FROM node:24-slim
COPY --from=build /rootfs/opt/loom /opt/loom
ENV PATH=/opt/loom/node_modules/.bin:$PATH NODE_ENV=production
# The image's `node` user, by number, so a Pod with `runAsNonRoot: true` can verify it. loom writes
# nothing to its filesystem (logs go to stderr), so the root filesystem may be read-only.
USER 1000:1000
EXPOSE 8081 9999
# No init process needed: loom handles SIGTERM and SIGINT itself as PID 1 (drains, releases its
# lease, exits 0) and reaps the only processes it starts, its JSONata evaluators.
ENTRYPOINT ["loom"]
CMD ["run"]
