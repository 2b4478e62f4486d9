# RoadSnap: `make run` (install what is missing, build release, run the main job on the sample) and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
PREFIX ?= /usr/local
# Debian packages the build and the tests need.
APT_PACKAGES := libgeos-dev libproj-dev libosmium2-dev libprotozero-dev zlib1g-dev libbz2-dev libexpat1-dev \
	osmium-tool pkg-config
SAMPLE_MAP := Samples/bellevue-issue147.osm.gz
SAMPLE_TRACK := Samples/newson-krumm-bellevue.csv
OUT := out

.PHONY: deps build run test bench clean

deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build -c release

run: build
	@mkdir -p $(OUT)
	.build/release/roadsnap match --map $(SAMPLE_MAP) --format geojson --out $(OUT) $(SAMPLE_TRACK)

test: deps
	$(SWIFT) test

bench: deps
	$(SWIFT) run -c release Benchmarks

clean:
	rm -rf .build $(OUT)
