// RoadSnap benchmarks. Run with `swift run -c release Benchmarks [snap|match|route|navigation|capi|parse|frame ...]`
// (no argument runs all). Each prints per-fix figures (fixes/s, median and p99 ns/fix) after a warm-up.
import RoadSnapCore
import RoadSnapFormats

#if canImport(Glibc)
import Glibc
#endif

let suites: [(String, ([String]) throws -> Void)] = [
    ("snap", SnapBenchmark.run),
    ("load", LoadBenchmark.run),
    ("match", MatchBenchmark.run),
    ("stream", StreamBenchmark.run),
    ("route", RouteBenchmark.run),
    ("alternatives", AlternativesBenchmark.run),
    ("preprocess", PrepBenchmark.run),
    ("navigation", NavigationBenchmark.run),
    ("capi", CAPIBenchmark.run),
    ("parse", ParseBenchmark.run),
    ("compiled", CompiledMapBenchmark.run),
    ("render", RenderBenchmark.run),
    ("frame", FrameBenchmark.run),
]
let requested = Array(CommandLine.arguments.dropFirst())
// Child processes of the `compiled` suite (one map open each, measured from a fresh process).
if requested.first == "compiled-open" {
    do { try CompiledMapBenchmark.openChild(requested) } catch { print("open failed: \(error)") }
    exit(0)
}
if requested.first == "compiled-share" {
    do { try CompiledMapBenchmark.shareChild(requested) } catch { print("open failed: \(error)") }
    exit(0)
}
// `compiled` (compiles ~1 M-edge maps) runs only when asked for.
let chosen = requested.isEmpty ? suites.map(\.0).filter { $0 != "compiled" } : requested.filter { r in suites.contains { $0.0 == r } }
for name in chosen {
    guard let suite = suites.first(where: { $0.0 == name }) else { continue }
    print("== \(name) ==")
    do { try suite.1(requested) } catch { print("\(name) failed: \(error)") }
}
