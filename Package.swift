// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "RoadSnap",
    products: [
        .executable(name: "roadsnap", targets: ["roadsnap"]),
        .library(name: "RoadSnap", targets: ["RoadSnapCore", "RoadSnapFormats"]),
        // The C API (include/roadsnap.h): `make install` links libroadsnap.so/.a from this product's objects with the
        // Swift runtime inside (scripts/capi-link.sh; the name `roadsnap` is the CLI's product).
        .library(name: "RoadSnapCStatic", type: .static, targets: ["RoadSnapCAPI"]),
    ],
    targets: [
        // C/C++ shim over GEOS, PROJ, libosmium, libexpat (XML) and simdjson (JSON). Every exported symbol is prefixed `rsc_`.
        // GEOS and PROJ are not linked: CShims loads them on first use (dlopen by soname, CShims/libs.c), so a program
        // does not map them and PROJ's network/TLS/TIFF libraries at start-up; their headers are needed to build.
        // cairo (drawing, CShims/render.c) likewise is loaded on the first draw: a program that never draws does not
        // map cairo, fontconfig or freetype, and libroadsnap's dependencies stay as they are.
        .target(
            name: "CShims",
            path: "CShims",
            cSettings: [.define("GEOS_USE_ONLY_R_API")],
            cxxSettings: [.define("GEOS_USE_ONLY_R_API")],
            linkerSettings: [
                .linkedLibrary("z"), .linkedLibrary("bz2"), .linkedLibrary("expat"), .linkedLibrary("simdjson"),
                .linkedLibrary("pthread"), .linkedLibrary("dl"), .linkedLibrary("stdc++"),
            ]
        ),
        // The one Swift layer that owns C handles (final classes freeing in deinit).
        .target(name: "RoadSnapBridge", dependencies: ["CShims"]),
        // Pure Swift domain: road network, index, routing, matching, navigation. No Foundation.
        .target(name: "RoadSnapCore", dependencies: ["RoadSnapBridge"]),
        // File formats (tracks in, results out, GeoJSON networks) over POSIX files and the CShims parsers. No Foundation.
        .target(name: "RoadSnapFormats", dependencies: ["RoadSnapCore"]),
        // The public C header alone (include/roadsnap.h), so Swift checks each `@implementation @c` against it.
        .target(name: "RoadSnapCHeader", path: "include", publicHeadersPath: "."),
        // The C API: `rs_` functions exported with `@c`, handles in a generation-checked table.
        .target(name: "RoadSnapCAPI", dependencies: ["RoadSnapCHeader", "RoadSnapCore", "RoadSnapFormats"]),
        .executableTarget(name: "roadsnap", dependencies: ["RoadSnapCore", "RoadSnapFormats"]),
        .executableTarget(name: "Benchmarks", dependencies: ["RoadSnapCore", "RoadSnapFormats", "RoadSnapBridge", "CShims", "RoadSnapCAPI", "RoadSnapCHeader"], path: "Benchmarks", exclude: ["peers", "capi"]),
        // Fixtures are located through #filePath, not bundled as resources.
        .testTarget(name: "RoadSnapCoreTests", dependencies: ["RoadSnapCore", "RoadSnapFormats"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "RoadSnapCAPITests", dependencies: ["RoadSnapCAPI", "RoadSnapCHeader"]),
        .testTarget(name: "RoadSnapFormatsTests", dependencies: ["RoadSnapFormats"], exclude: ["Fixtures"]),
    ],
    cxxLanguageStandard: .cxx17
)
