# The two commands of the README: `make run` and `make test`. Each does its own set-up: it installs
# the npm dependencies (which bring their own Node 24) when missing or stale, and builds the local
# control plane from Go modules when it is not in the cache yet.
SHELL := bash
NPM ?= npm
DEPS_STAMP := node_modules/.loom-deps-installed

.PHONY: run test test-loaded deps control-plane helm lint typecheck unit integration packages image-rootfs clean

run: deps
	$(NPM) run --silent dev

test: lint typecheck unit integration

# The whole suite with two busy CPU loops beside it, as a loaded CI machine would run it.
test-loaded:
	@bash scripts/test-loaded.sh

deps: $(DEPS_STAMP)

$(DEPS_STAMP): package.json package-lock.json src/sdk/package.json
	@command -v $(NPM) >/dev/null || { echo "make: npm is needed to install loom's dependencies" >&2; exit 1; }
	$(NPM) ci --no-audit --no-fund --loglevel=error
	@touch $@

# Cheap when the binaries are cached; the first time it is a long Go build (see README).
control-plane:
	@bash src/devcluster/build-binaries.sh >/dev/null

lint: deps
	$(NPM) run --silent lint

typecheck: deps
	$(NPM) run --silent typecheck

# helm, for the chart's tests: built from Go modules once, cached outside the repository.
helm:
	@bash scripts/build-helm.sh >/dev/null

# LOOM_HELM names the helm just built, so the chart's tests run here rather than skip (see charts/loom).
unit: deps helm
	LOOM_HELM="$$(bash scripts/build-helm.sh)" $(NPM) run --silent test:unit

integration: deps control-plane helm
	$(NPM) run --silent test:integration

# The two npm packages, kube-loom and kube-loom-sdk, packed into .build/packages.
packages: deps
	bash scripts/pack.sh .build/packages

# What the root Dockerfile copies into the image, laid out in .build/image-rootfs without a container
# engine; run loom from it with .build/image-rootfs/opt/loom/node_modules/.bin/loom (on Node 24).
image-rootfs: deps
	bash scripts/image-rootfs.sh .build/image-rootfs

clean:
	rm -rf node_modules dist .build
