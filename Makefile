# RoadSnap: `make run` (install what is missing, build release, run the main job on the sample) and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
PREFIX ?= /usr/local
# Debian packages the build and the tests need.
APT_PACKAGES := libgeos-dev libproj-dev libosmium2-dev libprotozero-dev zlib1g-dev libbz2-dev libexpat1-dev \
	osmium-tool pkg-config gpsd gpsd-clients
# JSON parsing (simdjson; XML goes through libexpat above), issue 10.
APT_PACKAGES += libsimdjson-dev
# The C API's install and tests (issue 6).
APT_PACKAGES += valgrind patchelf binutils
# Pictures (issue 14): cairo's headers (cairo itself is loaded on first draw, CShims/libs.c) and the font it uses.
APT_PACKAGES += libcairo2-dev fonts-dejavu-core
# Spoken guidance prompts as WAV files (`roadsnap navigate --speak DIR`), issue 15.
APT_PACKAGES += espeak-ng
# The Spark job (issue 17): a Java runtime for local-mode Spark; pyspark from PyPI into .build/spark-venv.
APT_PACKAGES += openjdk-17-jre-headless python3 python3-venv
# The HTML match report is opened in a real browser by one test (headless Chromium).
APT_PACKAGES += chromium
SAMPLE_MAP := Samples/bellevue-issue147.osm.gz
SAMPLE_TRACK := Samples/newson-krumm-bellevue.csv
OUT := out

.PHONY: deps build run test bench clean install capi-lib capi-test capi-bench cross-check spark-deps spark-test spark-demo spark-bench

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
	.build/release/roadsnap match --map $(SAMPLE_MAP) --format html --out $(OUT) $(SAMPLE_TRACK)
	@echo "HTML report of the sample: $(CURDIR)/$(OUT)/$$(basename $(SAMPLE_TRACK) .csv).matched.html"

test: deps
	$(SWIFT) test
	$(MAKE) capi-test
	$(MAKE) spark-test

bench: deps
	$(SWIFT) run -c release Benchmarks

clean:
	rm -rf .build $(OUT)

# ---- C API: libroadsnap (shared + static), include/roadsnap.h, roadsnap.pc; C tests under valgrind ----------------
CAPI_CONFIG ?= release
CC ?= cc
CAPI_HEADER := include/roadsnap.h
capi_version = $(shell sed -n 's/^\#define ROADSNAP_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' $(CAPI_HEADER) | paste -sd.)
capi_abi = $(shell sed -n 's/^\#define ROADSNAP_ABI_VERSION \([0-9]*\).*/\1/p' $(CAPI_HEADER))
CAPI_TEST_DIR := $(CURDIR)/.build/capi-test
CAPI_CFLAGS := -std=c99 -D_DEFAULT_SOURCE -Wall -Wextra -Werror -O1 -g
VALGRIND := valgrind -q --error-exitcode=1 --leak-check=full --suppressions=Tests/c/valgrind.supp

CAPI_LIB_DIR = $(CURDIR)/.build/capi-lib/$(CAPI_CONFIG)

# libroadsnap.so.ABI (Swift runtime linked in statically, only rs_ exported) and libroadsnap.a (one prelinked
# object, only rs_ global), both linked by scripts/capi-link.sh from the static product's objects.
capi-lib: deps
	$(SWIFT) build -c $(CAPI_CONFIG) --product RoadSnapCStatic
	SWIFT=$(SWIFT) scripts/capi-link.sh $(CAPI_CONFIG) $(CAPI_LIB_DIR) $(capi_abi)

# Installs the header, libroadsnap.so.ABI (+ libroadsnap.so link), libroadsnap.a, roadsnap.pc, roadsnap-static.pc.
# Debug info is stripped (it is DWARF 5, which Debian 12's valgrind cannot read); symbols stay. No path of the build
# machine goes into the libraries or the .pc files (only PREFIX).
install: capi-lib
	@set -e; so=libroadsnap.so.$(capi_abi); lib="$(DESTDIR)$(PREFIX)/lib"; \
	install -d "$(DESTDIR)$(PREFIX)/include" "$$lib/pkgconfig"; \
	install -m 644 $(CAPI_HEADER) "$(DESTDIR)$(PREFIX)/include/roadsnap.h"; \
	strip --strip-debug -o "$$lib/$$so.tmp" "$(CAPI_LIB_DIR)/$$so"; mv -f "$$lib/$$so.tmp" "$$lib/$$so"; \
	ln -sf "$$so" "$$lib/libroadsnap.so"; \
	strip --strip-debug -o "$$lib/libroadsnap.a.tmp" "$(CAPI_LIB_DIR)/libroadsnap.a"; mv -f "$$lib/libroadsnap.a.tmp" "$$lib/libroadsnap.a"; \
	for pc in roadsnap roadsnap-static; do \
	  sed -e "s|@PREFIX@|$(PREFIX)|" -e "s|@VERSION@|$(capi_version)|" \
	      -e "s|@STATIC_LIBS@|$$(cat $(CAPI_LIB_DIR)/static-libs.txt)|" pkgconfig/$$pc.pc.in > "$$lib/pkgconfig/$$pc.pc"; \
	done; \
	echo "installed roadsnap $(capi_version) (ABI $(capi_abi)) into $(DESTDIR)$(PREFIX)"

# Builds the debug library, installs it into .build/capi-test/prefix, checks header against exported symbols,
# builds the C tests and the example through pkg-config (shared and static) and runs them under valgrind.
capi-test: deps
	@rm -rf $(CAPI_TEST_DIR) && mkdir -p $(CAPI_TEST_DIR)
	$(MAKE) --no-print-directory install CAPI_CONFIG=debug PREFIX=$(CAPI_TEST_DIR)/prefix
	PKG_CONFIG_PATH=$(CAPI_TEST_DIR)/prefix/lib/pkgconfig Tests/c/check-symbols.sh $(CAPI_TEST_DIR)/prefix $(CC)
	@set -e; export PKG_CONFIG_PATH=$(CAPI_TEST_DIR)/prefix/lib/pkgconfig; \
	$(CC) $(CAPI_CFLAGS) Tests/c/test_api.c -o $(CAPI_TEST_DIR)/test_api $$(pkg-config --cflags --libs roadsnap) -lpthread -lm; \
	$(CC) $(CAPI_CFLAGS) Tests/c/test_api.c -o $(CAPI_TEST_DIR)/test_api_static $$(pkg-config --static --cflags --libs roadsnap-static); \
	$(CC) $(CAPI_CFLAGS) Tests/c/test_host.c -o $(CAPI_TEST_DIR)/test_host $$(pkg-config --cflags --libs roadsnap); \
	$(CC) $(CAPI_CFLAGS) Tests/c/test_host.c -o $(CAPI_TEST_DIR)/test_host_static $$(pkg-config --static --cflags --libs roadsnap-static); \
	$(CC) $(CAPI_CFLAGS) Tests/c/leak_canary.c -o $(CAPI_TEST_DIR)/leak_canary $$(pkg-config --cflags --libs roadsnap); \
	$(CC) $(CAPI_CFLAGS) Tests/c/test_libs.c -o $(CAPI_TEST_DIR)/test_libs $$(pkg-config --cflags --libs roadsnap); \
	$(CC) $(CAPI_CFLAGS) Tests/c/test_route_choice.c -o $(CAPI_TEST_DIR)/test_route_choice $$(pkg-config --cflags --libs roadsnap) -lm; \
	$(CC) $(CAPI_CFLAGS) Tests/c/test_libs.c -o $(CAPI_TEST_DIR)/test_libs_static $$(pkg-config --static --cflags --libs roadsnap-static); \
	$(CC) $(CAPI_CFLAGS) Tests/c/test_stream.c -o $(CAPI_TEST_DIR)/test_stream $$(pkg-config --cflags --libs roadsnap) -lm; \
	$(CC) $(CAPI_CFLAGS) Tests/c/test_render.c -o $(CAPI_TEST_DIR)/test_render $$(pkg-config --cflags --libs roadsnap) -lm; \
	$(MAKE) --no-print-directory -C examples/c PKG_CONFIG_PATH=$$PKG_CONFIG_PATH OUT=$(CAPI_TEST_DIR)
	$(SWIFT) build --product roadsnap
	.build/debug/roadsnap compile --map Tests/RoadSnapCoreTests/Fixtures/osm/issue-70.osm.gz --out $(CAPI_TEST_DIR)/issue-70.rsmap
	$(VALGRIND) $(CAPI_TEST_DIR)/test_api $(CURDIR) $(CAPI_TEST_DIR)/issue-70.rsmap
	@# The streaming matcher against the batch one on the sample drive (rs_stream_matcher_*).
	$(VALGRIND) $(CAPI_TEST_DIR)/test_stream $(CURDIR)
	@# Route choice (issue #15): alternatives, traffic-aware routing, a navigator on a chosen alternative.
	$(VALGRIND) $(CAPI_TEST_DIR)/test_route_choice $(CURDIR)
	Tests/c/check-self-contained.sh $(CAPI_TEST_DIR)/prefix $(CAPI_TEST_DIR)/test_api_static $(CURDIR) $(CAPI_TEST_DIR)/issue-70.rsmap \
	  -- $(CAPI_TEST_DIR)/test_api $(CURDIR) $(CAPI_TEST_DIR)/issue-70.rsmap
	@# Signals, log handler, threads and version macros, through the shared library (under valgrind) and the archive.
	env -u SWIFT_BACKTRACE $(VALGRIND) $(CAPI_TEST_DIR)/test_host $(CURDIR)
	env -u SWIFT_BACKTRACE $(CAPI_TEST_DIR)/test_host_static $(CURDIR)
	@# Pictures into caller-owned RGBA buffers (cairo loaded on the first draw; not under valgrind: fontconfig's caches).
	$(CAPI_TEST_DIR)/test_render $(CURDIR)
	@# GEOS and PROJ are loaded on first use, and a missing one is an error naming it (.so under valgrind, and .a).
	$(VALGRIND) $(CAPI_TEST_DIR)/test_libs $(CURDIR) $(CAPI_TEST_DIR)/issue-70.rsmap
	$(CAPI_TEST_DIR)/test_libs $(CURDIR) $(CAPI_TEST_DIR)/issue-70.rsmap no-proj
	$(CAPI_TEST_DIR)/test_libs $(CURDIR) $(CAPI_TEST_DIR)/issue-70.rsmap no-geos
	$(CAPI_TEST_DIR)/test_libs_static $(CURDIR) $(CAPI_TEST_DIR)/issue-70.rsmap
	@# GEOS errors and notices reach the log hook (CShims' own handlers on a real GEOS context).
	$(CC) $(CAPI_CFLAGS) -ICShims -ICShims/include -Iinclude Tests/c/test_log_geos.c CShims/log.c CShims/libs.c \
	  -o $(CAPI_TEST_DIR)/test_log_geos -lgeos_c -ldl -lpthread
	$(VALGRIND) $(CAPI_TEST_DIR)/test_log_geos
	@# The examples' whole output against the CLI on the same inputs (snap_and_match under valgrind).
	RUN_SNAP_AND_MATCH="$(VALGRIND)" Tests/c/check-examples.sh $(CAPI_TEST_DIR) .build/debug/roadsnap $(SAMPLE_MAP) $(SAMPLE_TRACK)
	@# The suppressions must not hide a real leak: a program leaking a snapper's results buffer must fail.
	@if $(VALGRIND) $(CAPI_TEST_DIR)/leak_canary $(CURDIR)/Tests/c/Fixtures/two-roads.geojson 2>$(CAPI_TEST_DIR)/canary.txt; then \
	  echo "valgrind did not report the leak canary's leak"; cat $(CAPI_TEST_DIR)/canary.txt; exit 1; \
	else grep -q "definitely lost" $(CAPI_TEST_DIR)/canary.txt && echo "leak canary: leak reported as it should be"; fi

# C batch snap from a C program against the Swift path (Benchmarks `capi` suite, which also calls the C entry point
# from Swift in the same process); prints both and the ratio. Release build.
capi-bench: deps
	$(MAKE) --no-print-directory install CAPI_CONFIG=release PREFIX=$(CURDIR)/.build/capi-bench/prefix
	$(SWIFT) build -c release --product Benchmarks
	@set -e; d=$(CURDIR)/.build/capi-bench; export PKG_CONFIG_PATH=$$d/prefix/lib/pkgconfig; \
	$(CC) -std=c99 -D_DEFAULT_SOURCE -O2 -Wall -Wextra Tests/c/snap_bench.c -o $$d/snap_bench $$(pkg-config --cflags --libs roadsnap); \
	.build/release/Benchmarks capi | tee $$d/swift.txt; \
	echo "== capi (C program) =="; $$d/snap_bench $(SAMPLE_MAP) $(SAMPLE_TRACK) | tee $$d/c.txt; \
	for w in real_drive random_in_box; do \
	  s=$$(awk -v w=$$w '$$1 == "CAPI_SWIFT_FIXES_PER_SEC" && $$2 == w { print $$3 }' $$d/swift.txt); \
	  c=$$(awk -v w=$$w '$$1 == "CAPI_C_FIXES_PER_SEC" && $$2 == w { print $$3 }' $$d/c.txt); \
	  awk -v w=$$w -v s=$$s -v c=$$c 'BEGIN { printf "%s: C program batch %d fixes/s, Swift Snapper.snap %d fixes/s: ratio %.2fx\n", w, c, s, c / s }'; \
	done

# Cross-compilation check (not part of `make test`): CShims (C and C++) and include/roadsnap.h compiled for aarch64
# with Debian's cross compilers, installed here if missing. Compile only: the libraries' headers are this machine's
# (arch-independent; found after the cross sysroot's own with -idirafter), there is no aarch64 Swift SDK here.
CROSS_APT_PACKAGES := gcc-aarch64-linux-gnu g++-aarch64-linux-gnu
CROSS_DIR := $(CURDIR)/.build/cross-aarch64
CROSS_FLAGS := -O2 -Wall -Wextra -DGEOS_USE_ONLY_R_API -ICShims/include -idirafter /usr/include
cross-check: deps
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(CROSS_APT_PACKAGES)"
	@rm -rf $(CROSS_DIR) && mkdir -p $(CROSS_DIR)
	@set -e; for f in CShims/*.c; do \
	  aarch64-linux-gnu-gcc -std=gnu11 $(CROSS_FLAGS) -c $$f -o $(CROSS_DIR)/$$(basename $$f).o; done; \
	for f in CShims/*.cpp; do \
	  aarch64-linux-gnu-g++ -std=c++17 $(CROSS_FLAGS) -c $$f -o $(CROSS_DIR)/$$(basename $$f).o; done; \
	aarch64-linux-gnu-gcc -std=c99 -pedantic -Wall -Wextra -Werror -Iinclude -c Tests/c/abi_layout.c -o $(CROSS_DIR)/abi_c.o; \
	aarch64-linux-gnu-g++ -x c++ -std=c++11 -pedantic -Wall -Wextra -Werror -Iinclude -c Tests/c/abi_layout.c -o $(CROSS_DIR)/abi_cxx.o; \
	$(CC) -std=c99 -pedantic -Wall -Wextra -Werror -Iinclude -c Tests/c/abi_layout.c -o $(CROSS_DIR)/abi_host.o; \
	for o in $(CROSS_DIR)/*.o; do \
	  [ "$$o" = $(CROSS_DIR)/abi_host.o ] && continue; \
	  readelf -h $$o | grep -q 'Machine:.*AArch64' || { echo "cross-check: $$o is not AArch64"; exit 1; }; done; \
	echo "cross-check: CShims ($$(ls CShims/*.c CShims/*.cpp | wc -l) files) and roadsnap.h (C99, C++11, struct layouts) compile for aarch64"

# ---- Reliability (issue 16, docs/reliability.md): libFuzzer targets and sanitizers ----------------------------------
# `make fuzz FUZZ_SECONDS=N [FUZZ_TARGETS="gpx csv ..."]` fuzzes every parser and the C API, one target at a time.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
# The tests exercising threads (navigator sessions, C API handles, routing in parallel, `match --jobs`, gpsd, the
# spare frames of CShims/frame.c).
TSAN_FILTER ?= NavigationSessionTests|HandleTableTests|RoutingPreprocessingTests|RoutingPropertyTests|MatchCommandTests|LiveGPSTests|GeodesyTests
.PHONY: fuzz fuzz-build sanitize sanitize-asan sanitize-tsan sanitize-capi
fuzz-build: deps
	SWIFT=$(SWIFT) scripts/fuzz.sh build
fuzz: fuzz-build
	SWIFT=$(SWIFT) scripts/fuzz.sh run $(FUZZ_SECONDS) $(FUZZ_TARGETS)
# Swift tests under ASan, CShims' C/C++ under ASan+UBSan (swiftc has no UBSan: UB in C traps), the threaded ones
# under TSan.
UBSAN_C := -Xcc -fsanitize=undefined -Xcc -fsanitize-trap=undefined -Xcxx -fsanitize=undefined -Xcxx -fsanitize-trap=undefined
sanitize: sanitize-asan sanitize-tsan sanitize-capi
sanitize-asan: deps
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --build-path .build/asan --sanitize=address $(UBSAN_C)
sanitize-tsan: deps
	$(SWIFT) test --build-path .build/tsan --sanitize=thread --filter '$(TSAN_FILTER)'
# The C API's C tests under ASan+UBSan, linked against the fuzzer build's instrumented objects (no third build).
sanitize-capi: fuzz-build
	SWIFT=$(SWIFT) scripts/capi-asan.sh
# CI runs this after `make test` (.ci/run): every Swift test under ASan (CShims also UBSan); the threaded tests
# under TSan; the fuzzer built (ASan, UBSan for C) and
# every target fuzzed CI_FUZZ_SECONDS from the committed seeds (every seed and crasher replayed under ASan first);
# the C tests under ASan+UBSan. A sanitizer report, a fuzz crash or a failing test fails it.
CI_FUZZ_SECONDS ?= 10
.PHONY: ci-extra
ci-extra: sanitize-asan sanitize-tsan fuzz-build
	SWIFT=$(SWIFT) scripts/fuzz.sh run $(CI_FUZZ_SECONDS)
	SWIFT=$(SWIFT) scripts/capi-asan.sh

# ---- Spark job (issue 17): spark/roadsnap_match.py, docs/spark.md -----------------------------------------------------
SPARK_VENV := .build/spark-venv
SPARK_PY := $(SPARK_VENV)/bin/python

spark-deps: deps
	@test -x $(SPARK_PY) || python3 -m venv $(SPARK_VENV)
	@$(SPARK_PY) -c "import pyspark, pandas, pyarrow" 2>/dev/null || $(SPARK_PY) -m pip install -q -r spark/requirements.txt

# Spark local mode against the CLI on the sample drive and the 70 Kubicka tracks (uses the debug build of swift test).
spark-test: spark-deps
	$(SWIFT) build --product roadsnap
	$(MAKE) --no-print-directory capi-lib CAPI_CONFIG=debug
	$(SPARK_PY) spark/test_roadsnap_match.py --roadsnap .build/debug/roadsnap \
	  --library .build/capi-lib/debug/libroadsnap.so.$(capi_abi)

# Both Spark engines against the CLI on the 70 Kubicka tracks (release builds; inputs left by spark-test), in one
# script, interleaved; medians, ratios and the load average (docs/spark.md). SPARK_BENCH_ARGS: e.g. --repeat 5.
SPARK_KUB := .build/spark-test/kubicka
spark-bench: spark-deps build capi-lib
	@test -f $(SPARK_KUB)/network.rsmap || $(MAKE) --no-print-directory spark-test
	$(SPARK_PY) spark/bench_spark.py --roadsnap .build/release/roadsnap \
	  --library .build/capi-lib/release/libroadsnap.so.$(capi_abi) --map $(SPARK_KUB)/network.rsmap \
	  --source-map $(SPARK_KUB)/network.geojson --fixes $(SPARK_KUB)/fixes.input --tracks $(SPARK_KUB) \
	  --out .build/spark-bench.json $(SPARK_BENCH_ARGS)

# Runs the job on the bundled sample drive (map compiled first) and prints where the Parquet is.
spark-demo: spark-deps build capi-lib
	@mkdir -p $(OUT)
	.build/release/roadsnap compile --map $(SAMPLE_MAP) --out $(OUT)/bellevue.rsmap
	$(SPARK_PY) spark/roadsnap_match.py --master 'local[2]' --roadsnap .build/release/roadsnap \
	  --library .build/capi-lib/release/libroadsnap.so.$(capi_abi) --map $(OUT)/bellevue.rsmap --input $(SAMPLE_TRACK) --output $(OUT)/spark-demo --per-fix
